// Bulk settle: mark the ticked payouts paid at once, with one payment reference (the bank transfer,
// the Wise or PayPal batch that paid them). Only payouts paid by hand can be ticked: pending or
// processing, on a rail the service does not call (by hand, Wise, PayPal by upload file); a rail
// that is called settles its payouts by its own answer. The confirmation gives counts in words and
// totals per currency; the action is POST /v1/payouts/settle's workflow (settlePayouts): all or
// nothing, so a payout settled meanwhile changes nothing and the page asks again.
import { Elysia, t } from 'elysia';
import type { AppContext } from '../../../context';
import { AppError } from '../../../lib/errors';
import { settlePayouts } from '../../../modules/payouts/settle';
import { payoutsByIds, totalsOf, type PayoutListed } from '../../../modules/reports/money';
import { ConfirmPanel, isConfirmed } from '../../confirm';
import { formList } from '../../forms';
import { Notice } from '../../layout';
import { render, seeOther } from '../../render';
import type { AdminPage } from '../../session';
import { href } from '../../ui';
import { BulkTotals, plural, queryList } from '../kit/bulk';
import { adminActor, AdminLayout, type AdminKit } from '../kit';
import { DialogField, totalsText } from '../tables';
import { handSettled, LIST, ListQuery, MAX_BULK, viewOf, type View } from './view';

type Input = { reference?: string; error?: string; notice?: string };

/** The ticked payouts that can be marked paid here, and why the others cannot. */
function sortTicked(ctx: AppContext, ids: string[], rows: PayoutListed[]) {
  const byHand = handSettled(ctx);
  const open = rows.filter((p) => p.status === 'pending' || p.status === 'processing');
  const eligible = open.filter(byHand);
  return { eligible, settled: ids.length - open.length, onRail: open.length - eligible.length };
}

function Refused(props: { ids: string[]; listHref: string }) {
  const text = props.ids.length === 0 ? 'Tick at least one payout paid by hand.' : props.ids.length > MAX_BULK ? `At most ${MAX_BULK} payouts at once.` : 'None of the ticked payouts can be marked paid here.';
  return (
    <section class="confirm-page">
      <h1>Mark payouts paid</h1>
      <Notice kind="error" text={text} />
      <p>
        <a class="button secondary" href={props.listHref}>
          Back to payouts
        </a>
      </p>
    </section>
  );
}

async function bulkView(ctx: AppContext, page: AdminPage, ids: string[], view: View, input: Input = {}, status = 200) {
  const rows = ids.length > MAX_BULK ? [] : await payoutsByIds(ctx.sql, ids);
  const { eligible, settled, onRail } = sortTicked(ctx, ids, rows);
  const totals = totalsOf(eligible.map((p) => ({ currency: p.currency, amount: p.amountMinor })));
  const partners = new Set(eligible.map((p) => p.partnerId)).size;
  const title = `Mark ${plural(eligible.length, 'payout')} paid (${totalsText(totals)})`;
  const listHref = href(LIST, view);
  return render(
    <AdminLayout page={page} title="Mark payouts paid" current={LIST}>
      <p class="back">
        <a href={listHref}>Payouts</a>
      </p>
      {eligible.length === 0 ? (
        <Refused ids={ids} listHref={listHref} />
      ) : (
        <ConfirmPanel title={title} action={href(`${LIST}/mark-paid`, view)} button={title} csrf={page.csrf} back={listHref} fields={{ ids: eligible.map((p) => p.id) }}>
          {!!input.notice && <Notice kind="error" text={input.notice} />}
          <p safe>{`Use this once the money has reached ${plural(partners, 'partner')}. Their commissions become paid and each partner is emailed; this cannot be undone.`}</p>
          <BulkTotals totals={totals} caption="Payouts to mark paid, per currency" />
          <DialogField
            id="bulk-reference"
            name="reference"
            label="Payment reference (optional)"
            hint="Kept on every payout: the bank transfer, or the Wise or PayPal batch that paid them"
            value={input.reference}
            error={input.error}
          />
          {settled + onRail > 0 && (
            <p class="hint" id="bulk-skipped" safe>
              {[
                settled > 0 ? `${plural(settled, 'ticked payout is', 'ticked payouts are')} skipped: no longer pending.` : '',
                onRail > 0 ? `${plural(onRail, 'ticked payout is', 'ticked payouts are')} skipped: paid through Stripe or PayPal, whose answer settles them.` : '',
              ]
                .filter(Boolean)
                .join(' ')}
            </p>
          )}
        </ConfirmPanel>
      )}
    </AdminLayout>,
    { status },
  );
}

/** Settles the posted payouts paid, all or nothing; answers an error to show, or null when done. */
async function settle(ctx: AppContext, page: AdminPage, ids: string[], reference: string | undefined): Promise<string | null> {
  const { eligible } = sortTicked(ctx, ids, await payoutsByIds(ctx.sql, ids));
  const changed = 'Some ticked payouts changed since this page was drawn (paid, failed or handed to a rail). Nothing was marked paid: check the payouts below and confirm again.';
  if (eligible.length !== ids.length) return changed;
  try {
    await settlePayouts(
      ctx.sql,
      ids.map((id) => ({ id, status: 'paid', reference, invoicePrefix: ctx.config.invoicePrefix })),
      adminActor(page),
    );
  } catch (error) {
    if (!(error instanceof AppError) || error.status >= 500) throw error;
    return changed;
  }
  return null;
}

export function bulkRoutes(ctx: AppContext, kit: AdminKit) {
  return new Elysia({ detail: { hide: true } })
    .get(`${LIST}/bulk`, ({ request, query }) => kit.page(request, (page) => bulkView(ctx, page, queryList(request, 'ids', MAX_BULK), viewOf(query as View))), {
      query: t.Object({ ...ListQuery.properties, ids: t.Optional(t.Unknown()) }),
    })
    .post(
      `${LIST}/mark-paid`,
      ({ request, body, query }) =>
        kit.form(request, body, LIST, async (page, form) => {
          const view = viewOf(query);
          const ids = formList(body, 'ids');
          const reference = (form.reference ?? '').trim();
          const input = { reference: form.reference ?? '' };
          if (ids.length === 0 || ids.length > MAX_BULK) return bulkView(ctx, page, ids, view, input, 400);
          if (!isConfirmed(form)) return bulkView(ctx, page, ids, view, input);
          if (reference.length > 255) return bulkView(ctx, page, ids, view, { ...input, error: 'at most 255 characters' }, 400);
          const refused = await settle(ctx, page, ids, reference || undefined);
          if (refused) return bulkView(ctx, page, ids, view, { ...input, notice: refused }, 409);
          return seeOther(href(LIST, view, { paid: String(ids.length) }));
        }),
      { query: ListQuery },
    );
}
