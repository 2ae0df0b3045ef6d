// One payout: its facts, the commissions it paid and the clawbacks it netted.
import { Elysia, t } from 'elysia';
import type { AppContext } from '../../../context';
import { findPayoutRow } from '../../../modules/payouts/service';
import { payoutLines, payoutsByIds, type ClawbackLine, type CommissionListed, type PayoutListed } from '../../../modules/reports/money';
import { ConfirmDialog, ConfirmTrigger } from '../../confirm';
import { Notice } from '../../layout';
import { render } from '../../render';
import type { AdminPage } from '../../session';
import { formatMoney, href, MoneyCell, payoutBadge, Trunc, NumHead } from '../../ui';
import { AdminLayout, can, NotFoundPage, type AdminKit } from '../kit';
import { HistorySection, loadHistory, type History } from '../kit/audit';
import { CommissionsTable, eventHref, payoutHref } from '../tables';
import { DONE, IdParams, LIST } from './view';
import { PayoutFacts, settleConfirm, SettleBody } from './settle';

export function detailRoutes(ctx: AppContext, kit: AdminKit) {
  return new Elysia({ detail: { hide: true } })
    .get(
      `${LIST}/:id`,
      ({ request, params, query }) =>
        kit.page(request, async (page) => {
          const row = await findPayoutRow(ctx.sql, params.id);
          const [payout] = row ? await payoutsByIds(ctx.sql, [row.id]) : [];
          if (!row || !payout) return render(<NotFoundPage page={page} what="payout" back={LIST} />, { status: 404 });
          const [lines, history] = await Promise.all([payoutLines(ctx.sql, row), loadHistory(ctx, page, row.id)]);
          return render(<PayoutPage page={page} payout={payout} commissions={lines.commissions} clawbacks={lines.clawbacks} history={history} done={query.done} />);
        }),
      { params: IdParams, query: t.Object({ done: t.Optional(t.String({ maxLength: 20 })) }) },
    );
}

/** One payout: facts, the badge with what comes next, its commissions and clawbacks, its actions. */
function PayoutPage(props: { page: AdminPage; payout: PayoutListed; commissions: CommissionListed[]; clawbacks: ClawbackLine[]; history: History | null; done?: string }) {
  const p = props.payout;
  const badge = payoutBadge(p);
  const partners = new Map([[p.partnerId, p.partnerName]]);
  const campaigns = new Map(props.commissions.map((c) => [c.campaignId, c.campaignName]));
  return (
    <AdminLayout page={props.page} title="Payout" current={LIST}>
      <p class="back">
        <a href={LIST}>Payouts</a>
      </p>
      <div class="page-head">
        <h1 safe>{`${formatMoney(p.amount, p.currency)} to ${p.partnerName}`}</h1>
        {p.status === 'pending' && can(props.page, 'POST', `${LIST}/:id/mark-paid`) && (
          <div class="actions">
            <ConfirmTrigger href={`${payoutHref(p.id)}/mark-failed`} dialog="fail-payout" label="Mark failed…" secondary />
            <ConfirmTrigger href={`${payoutHref(p.id)}/mark-paid`} dialog="paid-payout" label="Mark paid…" />
          </div>
        )}
      </div>
      {!!props.done && !!DONE[props.done] && <Notice kind="ok" text={DONE[props.done]!} />}
      <p class="hint" id="payout-next" safe>
        {badge.title}
      </p>
      <PayoutFacts payout={p} />
      <h2>{p.status === 'failed' ? 'Commissions it held (released when it failed)' : 'Commissions'}</h2>
      {props.commissions.length === 0 ? (
        <p class="empty">No commissions.</p>
      ) : (
        <CommissionsTable commissions={props.commissions} names={{ partners, campaigns }} caption="Commissions in this payout" onePartner />
      )}
      {props.clawbacks.length > 0 && (
        <>
          <h2>Clawbacks netted</h2>
          <div class="table-wrap">
            <table id="clawbacks" class="stack">
              <caption class="vh">Clawbacks netted in this payout</caption>
              <thead>
                <tr>
                  <th scope="col">Reversed commission</th>
                  <th scope="col">Reason</th>
                  <NumHead label="Amount" />
                </tr>
              </thead>
              <tbody>
                {props.clawbacks.map((k) => (
                  <tr>
                    <td class="lead">{k.eventId ? <Trunc text={k.commissionId} href={eventHref(k.eventId)} /> : <Trunc text={k.commissionId} />}</td>
                    <td data-label="Reason">
                      <Trunc text={k.reason} />
                    </td>
                    <MoneyCell amount={-k.amount} currency={p.currency} />
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
      <HistorySection history={props.history} what="payout" />
      {p.status === 'pending' && can(props.page, 'POST', `${LIST}/:id/mark-paid`) && (
        <>
          <ConfirmDialog id="paid-payout" {...settleConfirm(p, 'paid', props.page.csrf)}>
            <SettleBody kind="paid" idPrefix="paid-payout" />
          </ConfirmDialog>
          <ConfirmDialog id="fail-payout" {...settleConfirm(p, 'failed', props.page.csrf)}>
            <SettleBody kind="failed" idPrefix="fail-payout" />
          </ConfirmDialog>
        </>
      )}
    </AdminLayout>
  );
}
