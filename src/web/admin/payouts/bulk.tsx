// Mark many payouts paid at once: the ticked rows, confirmed with counts and totals per currency.
import { Elysia, t } from 'elysia';
import type { AppContext } from '../../../context';
import { AppError } from '../../../lib/errors';
import { markPayoutPaid } from '../../../modules/payouts/service';
import { payoutsByIds, totalsOf } from '../../../modules/reports/money';
import { ConfirmPanel, isConfirmed } from '../../confirm';
import { formList } from '../../forms';
import { Notice } from '../../layout';
import { render, seeOther } from '../../render';
import type { AdminPage } from '../../session';
import { href } from '../../ui';
import { BulkTotals, plural, queryList } from '../kit/bulk';
import { adminActor, AdminLayout, type AdminKit } from '../kit';
import { totalsText } from '../tables';
import { LIST, ListQuery, MAX_BULK, viewOf, type View } from './view';

async function bulkView(ctx: AppContext, page: AdminPage, ids: string[], view: View, status = 200) {
  const rows = await payoutsByIds(ctx.sql, ids.slice(0, MAX_BULK));
  const pending = rows.filter((p) => p.status === 'pending');
  const totals = totalsOf(pending.map((p) => ({ currency: p.currency, amount: p.amountMinor })));
  const partners = new Set(pending.map((p) => p.partnerId)).size;
  const skipped = ids.length - pending.length;
  const title = `Mark ${plural(pending.length, 'payout')} paid (${totalsText(totals)})`;
  const listHref = href(LIST, view);
  return render(
    <AdminLayout page={page} title="Mark payouts paid" current={LIST}>
      <p class="back">
        <a href={listHref}>Payouts</a>
      </p>
      {pending.length === 0 || ids.length > MAX_BULK ? (
        <section class="confirm-page">
          <h1>Mark payouts paid</h1>
          <Notice
            kind="error"
            text={ids.length === 0 ? 'Tick at least one pending payout.' : ids.length > MAX_BULK ? `At most ${MAX_BULK} payouts at once.` : 'None of the ticked payouts is pending.'}
          />
          <p>
            <a class="button secondary" href={listHref}>
              Back to payouts
            </a>
          </p>
        </section>
      ) : (
        <ConfirmPanel title={title} action={href(`${LIST}/mark-paid`, view)} button={title} csrf={page.csrf} back={listHref} fields={{ ids: pending.map((p) => p.id) }}>
          <p safe>{`Use this once the money has reached ${plural(partners, 'partner')}. Their commissions become paid; this cannot be undone.`}</p>
          <BulkTotals totals={totals} caption="Payouts to mark paid, per currency" />
          {skipped > 0 && (
            <p class="hint" id="bulk-skipped" safe>
              {`${plural(skipped, 'ticked payout is', 'ticked payouts are')} skipped: no longer pending.`}
            </p>
          )}
        </ConfirmPanel>
      )}
    </AdminLayout>,
    { status },
  );
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
          if (!isConfirmed(form) || ids.length === 0 || ids.length > MAX_BULK) return bulkView(ctx, page, ids, view, ids.length === 0 || ids.length > MAX_BULK ? 400 : 200);
          let paid = 0;
          for (const id of ids) {
            try {
              await markPayoutPaid(ctx.sql, { id, actor: adminActor(page), invoicePrefix: ctx.config.invoicePrefix });
              paid++;
            } catch (error) {
              // paid, failed or gone since the page was drawn: counted as skipped
              if (!(error instanceof AppError)) throw error;
            }
          }
          return seeOther(href(LIST, view, { paid: String(paid), skipped: String(ids.length - paid) }));
        }),
      { query: ListQuery },
    );
}
