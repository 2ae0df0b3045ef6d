// Approve or reverse many commissions at once: the ticked rows, confirmed with counts and totals per currency.
import { Elysia, t } from 'elysia';
import type { AppContext } from '../../../context';
import { AppError } from '../../../lib/errors';
import { approveCommission, canTransition, reverseCommission, type CommissionAction } from '../../../modules/commissions/lifecycle';
import { commissionsByIds, totalsOf, type CommissionListed } from '../../../modules/reports/money';
import { ConfirmPanel, isConfirmed } from '../../confirm';
import { Field, formList } from '../../forms';
import { RefusedPanel } from '../kit/refused';
import { render, seeOther } from '../../render';
import type { AdminPage } from '../../session';
import { href } from '../../ui';
import { adminActor, AdminLayout, type AdminKit } from '../kit';
import { totalsText } from '../tables';

import { BulkTotals, plural, queryList } from '../kit/bulk';
import { back, FilterQuery, LIST, MAX_BULK, reasonProblem, REVERSE_TEXT, viewOf, type Bulk, type View } from './view';

/** Which ticked rows an action applies to, and their totals per currency. */
function bulkPlan(action: Bulk, rows: CommissionListed[], asked: number) {
  const move: CommissionAction = action === 'approve' ? 'approve' : 'reverse';
  const eligible = rows.filter((c) => canTransition(move, c.status));
  const totals = totalsOf(eligible.map((c) => ({ currency: c.currency, amount: c.amountMinor })));
  return { eligible, skipped: asked - eligible.length, totals };
}

async function bulkView(ctx: AppContext, page: AdminPage, action: Bulk, ids: string[], view: View, input: { reason?: string; error?: string } = {}) {
  const rows = await commissionsByIds(ctx.sql, ids.slice(0, MAX_BULK));
  return (<BulkPage page={page} action={action} ids={ids} rows={rows} view={view} reason={input.reason} error={input.error} />) as string;
}

export function bulkRoutes(ctx: AppContext, kit: AdminKit) {
  return new Elysia({ detail: { hide: true } })
    // the bulk form (a GET: the ticked ids in the URL) lands on its confirmation
    .get(
      `${LIST}/bulk`,
      ({ request, query }) =>
        kit.page(request, async (page) => {
          const action: Bulk = new URL(request.url).searchParams.get('action') === 'reverse' ? 'reverse' : 'approve';
          return render(await bulkView(ctx, page, action, queryList(request, "ids"), viewOf(query as Record<string, string | undefined>)));
        }),
      { query: t.Object({ ...FilterQuery.properties, action: t.Optional(t.String({ maxLength: 10 })), ids: t.Optional(t.Unknown()) }) },
    )
    .post(
      `${LIST}/approve`,
      ({ request, body, query }) =>
        kit.form(request, body, LIST, async (page, form) => {
          const view = viewOf(query);
          const ids = formList(body, 'ids');
          if (!isConfirmed(form) || ids.length === 0 || ids.length > MAX_BULK) return render(await bulkView(ctx, page, 'approve', ids, view), { status: ids.length === 0 || ids.length > MAX_BULK ? 400 : 200 });
          let approved = 0;
          for (const id of ids) {
            try {
              await approveCommission(ctx.sql, { id, actor: adminActor(page) });
              approved++;
            } catch (error) {
              // already approved, reversed or gone since the page was drawn: counted, not fatal
              if (!(error instanceof AppError)) throw error;
            }
          }
          return seeOther(back(view, { approved: String(approved), skipped: String(ids.length - approved) }));
        }),
      { query: FilterQuery },
    )
    .post(
      `${LIST}/reverse`,
      ({ request, body, query }) =>
        kit.form(request, body, LIST, async (page, form) => {
          const view = viewOf(query);
          const ids = formList(body, 'ids');
          const reason = (form.reason ?? '').trim();
          if (!isConfirmed(form) || ids.length === 0 || ids.length > MAX_BULK) return render(await bulkView(ctx, page, 'reverse', ids, view, { reason }), { status: ids.length === 0 || ids.length > MAX_BULK ? 400 : 200 });
          const problem = reasonProblem(reason);
          if (problem) return render(await bulkView(ctx, page, 'reverse', ids, view, { reason: form.reason ?? '', error: problem }), { status: 400 });
          let reversed = 0;
          for (const id of ids) {
            try {
              await reverseCommission(ctx.sql, { id, actor: adminActor(page), reason });
              reversed++;
            } catch (error) {
              if (!(error instanceof AppError)) throw error;
            }
          }
          return seeOther(back(view, { reversed: String(reversed), skipped: String(ids.length - reversed) }));
        }),
      { query: FilterQuery },
    );
}

/** The confirmation of a bulk approve or reverse: what moves (counts, totals per currency), what is skipped. */
function BulkPage(props: { page: AdminPage; action: Bulk; ids: string[]; rows: CommissionListed[]; view: View; reason?: string; error?: string }) {
  const listHref = href(LIST, props.view);
  const verb = props.action === 'approve' ? 'Approve' : 'Reverse';
  const asked = props.ids.length;
  const plan = bulkPlan(props.action, props.rows, asked);
  const n = plan.eligible.length;
  const partners = new Set(plan.eligible.map((c) => c.partnerId)).size;
  const title = n === 0 ? `${verb} commissions` : `${verb} ${plural(n, 'commission')} (${totalsText(plan.totals)})`;
  const tooMany = asked > MAX_BULK;
  return (
    <AdminLayout page={props.page} title={`${verb} commissions`} current={LIST}>
      <p class="back">
        <a href={listHref}>Commissions</a>
      </p>
      {asked === 0 || tooMany || n === 0 ? (
        <RefusedPanel
          title={`${verb} commissions`}
          text={
            asked === 0
              ? `Tick at least one commission to ${verb.toLowerCase()}.`
              : tooMany
                ? `At most ${MAX_BULK} commissions at once.`
                : `None of the ${plural(asked, 'ticked commission')} can be ${props.action === 'approve' ? 'approved (only pending ones can)' : 'reversed (reversed ones cannot)'}.`
          }
          back={listHref}
        />
      ) : (
        <ConfirmPanel
          title={title}
          action={href(`${LIST}/${props.action}`, props.view)}
          button={title}
          csrf={props.page.csrf}
          back={listHref}
          fields={{ ids: plan.eligible.map((c) => c.id) }}
          danger={props.action === 'reverse'}
        >
          <p safe>
            {props.action === 'approve'
              ? `${plural(n, 'commission')} for ${plural(partners, 'partner')} ${n === 1 ? 'becomes approved: it is' : 'become approved: they are'} paid in the next payout run once ${partners === 1 ? "the partner's" : "each partner's"} balance reaches the minimum payout.`
              : `${plural(n, 'commission')} for ${plural(partners, 'partner')} ${n === 1 ? 'is' : 'are'} reversed with the reason below. ${REVERSE_TEXT}`}
          </p>
          <BulkTotals totals={plan.totals} />
          {plan.skipped > 0 && (
            <p class="hint" id="bulk-skipped" safe>
              {`${plural(plan.skipped, 'ticked row is', 'ticked rows are')} skipped: ${props.action === 'approve' ? 'no longer pending' : 'already reversed or gone'}.`}
            </p>
          )}
          {props.action === 'reverse' && <Field name="reason" label="Reason (one for all)" hint="Refund, chargeback, fraud…" value={props.reason} error={props.error} required />}
        </ConfirmPanel>
      )}
    </AdminLayout>
  );
}
