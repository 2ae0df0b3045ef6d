// One commission's actions: reverse it (a confirm page asking the reason) or approve it from its row.
import { Elysia } from 'elysia';
import type { AppContext } from '../../../context';
import { AppError } from '../../../lib/errors';
import { approveCommission, canTransition, reverseCommission } from '../../../modules/commissions/lifecycle';
import { getCommission } from '../../../modules/commissions/service';
import { commissionsByIds, type CommissionListed } from '../../../modules/reports/money';
import { ConfirmPanel, isConfirmed } from '../../confirm';
import { Field } from '../../forms';
import { RefusedPanel } from '../kit/refused';
import { render, seeOther } from '../../render';
import type { AdminPage } from '../../session';
import { Badge, commissionBadge, formatMoney, href } from '../../ui';
import { adminActor, AdminLayout, NotFoundPage, type AdminKit } from '../kit';
import { eventHref } from '../tables';
import { back, FilterQuery, IdParams, LIST, reasonProblem, REVERSE_TEXT, viewOf, type View } from './view';
import { listView } from './list';

/** The reverse confirm page of one commission; null when no commission has this id. */
async function reverseView(ctx: AppContext, page: AdminPage, id: string, view: View, input: { reason?: string; error?: string }) {
  const commission = await getCommission(ctx.sql, id).catch((error) => {
    if (error instanceof AppError && error.code === 'not_found') return null;
    throw error;
  });
  if (!commission) return null;
  const [listed] = await commissionsByIds(ctx.sql, [commission.id]);
  return (<ReversePage page={page} commission={listed!} view={view} reason={input.reason} error={input.error} />) as string;
}

export function actionRoutes(ctx: AppContext, kit: AdminKit) {
  return new Elysia({ detail: { hide: true } })
    .get(
      `${LIST}/:id/reverse`,
      ({ request, params, query }) =>
        kit.page(request, async (page) => {
          const view = await reverseView(ctx, page, params.id, viewOf(query), {});
          return view ? render(view) : render(<NotFoundPage page={page} what="commission" back={LIST} />, { status: 404 });
        }),
      { params: IdParams, query: FilterQuery },
    )
    .post(
      `${LIST}/:id/reverse`,
      ({ request, body, params, query }) =>
        kit.form(request, body, LIST, async (page, form) => {
          const view = viewOf(query);
          const reason = (form.reason ?? '').trim();
          const again = async (text: string | undefined, status: number) => {
            const html = await reverseView(ctx, page, params.id, view, { reason: form.reason ?? '', error: text });
            return html ? render(html, { status }) : render(<NotFoundPage page={page} what="commission" back={LIST} />, { status: 404 });
          };
          if (!isConfirmed(form)) return again(undefined, 200);
          const problem = reasonProblem(reason);
          if (problem) return again(problem, 400);
          try {
            await reverseCommission(ctx.sql, { id: params.id, actor: adminActor(page), reason });
          } catch (error) {
            if (!(error instanceof AppError) || error.status >= 500) throw error;
            return again(error.message, error.status);
          }
          return seeOther(back(view, { done: 'reversed' }));
        }),
      { params: IdParams, query: FilterQuery },
    )
    .post(
      `${LIST}/:id/approve`,
      ({ request, body, params, query }) =>
        kit.form(request, body, LIST, async (page) => {
          const view = viewOf(query);
          try {
            await approveCommission(ctx.sql, { id: params.id, actor: adminActor(page) });
          } catch (error) {
            if (!(error instanceof AppError) || error.status >= 500) throw error;
            return render(await listView(ctx, page, view, { error: `Could not approve the commission: ${error.message}` }), { status: error.status });
          }
          return seeOther(back(view, { approved: '1' }));
        }),
      { params: IdParams, query: FilterQuery },
    );
}

/** The confirm page of one reversal: no undo, so it says what happens and asks why. */
function ReversePage(props: { page: AdminPage; commission: CommissionListed; view: View; reason?: string; error?: string }) {
  const c = props.commission;
  const amount = formatMoney(c.amount, c.currency);
  const listHref = href(LIST, props.view);
  return (
    <AdminLayout page={props.page} title="Reverse commission" current={LIST}>
      <p class="back">
        <a href={listHref}>Commissions</a>
      </p>
      {!canTransition('reverse', c.status) ? (
        <RefusedPanel title={`Reverse ${amount} for ${c.partnerName}`} text="This commission is already reversed." back={listHref} />
      ) : (
        <ConfirmPanel
          title={`Reverse ${amount} for ${c.partnerName}`}
          action={href(`${LIST}/${encodeURIComponent(c.id)}/reverse`, props.view)}
          button={`Reverse ${amount}`}
          csrf={props.page.csrf}
          back={listHref}
          danger
        >
          <dl class="facts">
            <dt>Status</dt>
            <dd>
              <Badge {...commissionBadge(c)} />
            </dd>
            <dt>Event</dt>
            <dd>
              <a href={eventHref(c.eventId)} safe>
                {c.eventType}
              </a>
            </dd>
            <dt>Campaign</dt>
            <dd safe>{c.campaignName}</dd>
            <dt>Date</dt>
            <dd safe>{c.createdAt.slice(0, 10)}</dd>
          </dl>
          <p>{REVERSE_TEXT}</p>
          <Field name="reason" label="Reason" hint="Refund, chargeback, fraud…" value={props.reason} error={props.error} required />
        </ConfirmPanel>
      )}
    </AdminLayout>
  );
}
