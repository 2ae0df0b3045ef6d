// One commission's page (GET /admin/commissions/:id): its amount, status, partner, campaign, event
// and payout, and its history from the audit log (approved, reduced, reversed, paid, by whom).
import { Elysia } from 'elysia';
import type { AppContext } from '../../../context';
import { commissionsByIds, type CommissionListed } from '../../../modules/reports/money';
import { render } from '../../render';
import type { AdminPage } from '../../session';
import { Badge, commissionBadge, formatMoney, Trunc } from '../../ui';
import { AdminLayout, day, NotFoundPage, type AdminKit } from '../kit';
import { HistorySection, loadHistory, type History } from '../kit/audit';
import { eventHref, payoutHref } from '../tables';
import { IdParams, LIST } from './view';

export function detailRoutes(ctx: AppContext, kit: AdminKit) {
  return new Elysia({ detail: { hide: true } }).get(
    `${LIST}/:id`,
    ({ request, params }) =>
      kit.page(request, async (page) => {
        const [commission] = await commissionsByIds(ctx.sql, [params.id]);
        if (!commission) return render(<NotFoundPage page={page} what="commission" back={LIST} />, { status: 404 });
        return render(<CommissionPage page={page} commission={commission} history={await loadHistory(ctx, page, commission.id)} />);
      }),
    { params: IdParams },
  );
}

function CommissionPage(props: { page: AdminPage; commission: CommissionListed; history: History | null }) {
  const c = props.commission;
  return (
    <AdminLayout page={props.page} title="Commission" current={LIST}>
      <p class="back">
        <a href={LIST}>All commissions</a>
      </p>
      <div class="page-head">
        <h1 safe>{`${formatMoney(c.amountMinor, c.currency)} for ${c.partnerName}`}</h1>
      </div>
      <dl class="facts">
        <dt>Status</dt>
        <dd>
          <Badge {...commissionBadge(c)} id="commission-status" />
        </dd>
        <dt>Partner</dt>
        <dd>
          <Trunc text={c.partnerName} href={`/admin/partners/${encodeURIComponent(c.partnerId)}`} />
        </dd>
        <dt>Campaign</dt>
        <dd>
          <Trunc text={c.campaignName} href={`/admin/campaigns/${encodeURIComponent(c.campaignId)}`} />
        </dd>
        <dt>Event</dt>
        <dd>
          <Trunc text={`${c.eventType} on ${day(c.occurredAt)}`} href={eventHref(c.eventId)} />
        </dd>
        <dt>Payout</dt>
        <dd>{c.payoutId ? <Trunc text={c.payoutId} href={payoutHref(c.payoutId)} /> : 'Not paid yet'}</dd>
        {!!c.reason && (
          <>
            <dt>Reversed because</dt>
            <dd safe>{c.reason}</dd>
          </>
        )}
        <dt>Id</dt>
        <dd>
          <code safe>{c.id}</code>
        </dd>
      </dl>
      <HistorySection history={props.history} what="commission" />
    </AdminLayout>
  );
}
