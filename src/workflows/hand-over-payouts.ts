// Hands committed payouts to the rails that call out (Stripe Connect, PayPal's API) and settles each
// by the rail's answer. Exactly once: the rail is called with the payout id (Stripe) or the batch id
// written before the call (PayPal) as the idempotency key, so a crash between the call and the
// commit never pays twice; a payout still pending for such a rail is simply handed over again (after
// a run, at start, and by the rails job).
import type { PayoutRail, PayoutRails, RailOutcome, RailPayout } from '../../plugins/payouts';
import type { AppContext } from '../context';
import { formatMinor } from '../lib/money';
import { auditInsertFrom } from '../modules/audit/bulk';
import { settleIn } from '../modules/payouts/settle';

type Open = { id: string; partner_id: string; currency: string; amount: bigint; destination: string | null; rail_batch: string | null };

/** The rails whose payouts are handed over by calling them (the others wait for an upload and a settle). */
function callingRails(rails: PayoutRails): PayoutRail[] {
  return [rails.stripe, rails.paypalApi ? rails.paypal : null].filter((r): r is PayoutRail => r !== null);
}

/**
 * Hands over the pending payouts of the calling rails: those with these ids, or all of them. Answers
 * how many were answered (paid, failed or processing).
 */
export async function handOverPending(ctx: AppContext, rails: PayoutRails, ids?: string[]): Promise<number> {
  let answered = 0;
  for (const rail of callingRails(rails)) {
    const rows = await ctx.sql<Open[]>`
      select id, partner_id, currency, amount, destination, rail_batch from payouts
      where provider = ${rail.name} and status = 'pending' ${ids ? ctx.sql`and id = any(${ids}::text[])` : ctx.sql``}
      order by id`;
    if (rows.length === 0) continue;
    const groups = rail.name === 'paypal' ? await paypalBatches(ctx, rows, rail.batchLimit) : chunks(rows, rail.batchLimit);
    for (const group of groups) {
      const outcomes = await rail.send(group.map(railPayout));
      answered += await record(ctx, rail.name, outcomes);
    }
  }
  return answered;
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * PayPal payouts grouped by their batch: one not yet in a batch is put in one (at most `limit` items,
 * sender_batch_id = its first payout's id) and that is committed before PayPal is called, so a call
 * repeated after a crash carries the same sender_batch_id and PayPal refuses to pay it twice.
 */
async function paypalBatches(ctx: AppContext, rows: Open[], limit: number): Promise<Open[][]> {
  const unbatched = rows.filter((r) => !r.rail_batch);
  for (const chunk of chunks(unbatched, limit)) {
    const batch = chunk[0]!.id;
    await ctx.sql`update payouts set rail_batch = ${batch} where id = any(${chunk.map((r) => r.id)}::text[]) and rail_batch is null`;
    for (const r of chunk) r.rail_batch = batch;
  }
  const byBatch = new Map<string, Open[]>();
  for (const r of rows) byBatch.set(r.rail_batch!, [...(byBatch.get(r.rail_batch!) ?? []), r]);
  return [...byBatch.values()];
}

function railPayout(r: Open): RailPayout {
  return {
    id: r.id,
    partnerId: r.partner_id,
    currency: r.currency,
    amountMinor: r.amount,
    amount: formatMinor(r.amount, r.currency),
    destination: r.destination,
    batch: r.rail_batch,
    note: `Partner payout ${r.id}`,
  };
}

/** Writes what the rail answered: processing in one statement, each settlement in its own transaction. */
async function record(ctx: AppContext, rail: string, outcomes: Map<string, RailOutcome>): Promise<number> {
  const actor = `provider:${rail}`;
  const processing = [...outcomes].filter((e): e is [string, Extract<RailOutcome, { status: 'processing' }>] => e[1].status === 'processing');
  if (processing.length > 0) {
    // handed over: each payout's audit entry (payout.handed_over) in the same statement
    await ctx.sql.begin(
      (tx) => tx`
      with handed as (
        update payouts p set status = 'processing', processing_at = now(), provider_reference = o.reference, provider_answer = o.answer
        from unnest(${processing.map(([id]) => id)}::text[], ${processing.map(([, o]) => o.reference)}::text[], ${processing.map(([, o]) => o.answer ?? null)}::text[])
          as o(id, reference, answer)
        where p.id = o.id and p.status = 'pending'
        returning p.id, p.provider_reference
      ), audited as (
        ${auditInsertFrom(tx, {
          source: 'handed',
          targetColumn: 'id',
          action: 'payout.handed_over',
          targetType: 'payout',
          changes: tx`jsonb_build_object('status', jsonb_build_array('pending', 'processing'), 'rail', jsonb_build_array(null, ${rail}::text), 'providerReference', jsonb_build_array(null, provider_reference))`,
        })}
      )
      select count(*)::int as n from audited`,
    );
  }
  let settled = 0;
  for (const [id, outcome] of outcomes) {
    if (outcome.status !== 'paid' && outcome.status !== 'failed') continue;
    await ctx.sql.begin((tx) =>
      settleIn(
        tx,
        outcome.status === 'paid'
          ? { id, status: 'paid', reference: outcome.reference, answer: outcome.answer, invoicePrefix: ctx.config.invoicePrefix }
          : { id, status: 'failed', reason: outcome.reason, answer: outcome.answer },
        actor,
        false,
      ),
    );
    settled++;
  }
  return processing.length + settled;
}
