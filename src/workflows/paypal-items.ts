// What PayPal says about payout items (a verified webhook, or the reconciliation job reading a batch)
// settles the payouts: SUCCESS -> paid; FAILED, BLOCKED, RETURNED, REFUNDED, REVERSED, DENIED ->
// failed (what it held is payable again); UNCLAIMED and the other open states stay processing with
// PayPal's word kept as the payout's answer. A payout already settled is left as it is, so a
// redelivered or late webhook changes nothing.
import type { PayPalItem } from '../../plugins/payouts';
import type { AppContext } from '../context';
import { settleIn } from '../modules/payouts/settle';

const ACTOR = 'provider:paypal';

/** Applies the items; answers what each did (for the webhook's answer and the job's log). */
export async function applyPayPalItems(ctx: AppContext, items: PayPalItem[]): Promise<string[]> {
  const done: string[] = [];
  for (const item of items) {
    const words = [`PayPal ${item.status}`, item.message].filter(Boolean).join(': ');
    const line = await ctx.sql.begin(async (tx) => {
      const [row] = await tx<{ status: string; provider_reference: string | null }[]>`
        select status, provider_reference from payouts where id = ${item.payoutId} and provider = 'paypal' for update`;
      if (!row) return `${item.payoutId}: not a PayPal payout here`;
      if (row.status !== 'pending' && row.status !== 'processing') return `${item.payoutId}: already ${row.status}`;
      if (item.outcome === 'open') {
        await tx`update payouts set provider_answer = ${words} where id = ${item.payoutId}`;
        return `${item.payoutId}: ${item.status}, still processing`;
      }
      const settled = await settleIn(
        tx,
        item.outcome === 'paid'
          ? { id: item.payoutId, status: 'paid', reference: row.provider_reference, answer: words, invoicePrefix: ctx.config.invoicePrefix }
          : { id: item.payoutId, status: 'failed', reason: words, answer: words },
        ACTOR,
      );
      return `${item.payoutId}: ${settled.status}`;
    });
    done.push(line);
  }
  return done;
}

/** Batches still processing an hour after PayPal took them: read each and apply what it says. */
export async function reconcilePayPal(ctx: AppContext): Promise<number> {
  const api = ctx.payoutProvider.paypalApi;
  if (!api) return 0;
  const batches = await ctx.sql<{ provider_reference: string }[]>`
    select distinct provider_reference from payouts
    where provider = 'paypal' and status = 'processing' and provider_reference is not null and processing_at < now() - interval '1 hour'`;
  let applied = 0;
  for (const { provider_reference: batchId } of batches) {
    const items = await api.batchItems(batchId);
    applied += (await applyPayPalItems(ctx, items)).length;
  }
  return applied;
}
