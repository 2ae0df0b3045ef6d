// Admin partners: the list with each partner's numbers over a date range (sortable, filtered,
// paged, exported as CSV, bulk invite, move and revoke), create; the partner's page with its
// totals, links, referred customers, edit form, commissions and payouts; invite again, revoke
// (confirmed, with a reason), reinstate. One file per verb; the rules live in
// modules/partners/service.ts and workflows/revoke-partner.ts, the numbers in
// modules/reports/partners.ts.
import { Elysia } from 'elysia';
import type { AppContext } from '../../../context';
import type { AdminKit } from '../kit';
import { editRoutes, statusRoutes } from './actions';
import { bulkRoutes } from './bulk';
import { detailRoutes } from './detail';
import { listRoutes } from './list';

export { epcMinor } from './shared';

export function partnerRoutes(ctx: AppContext, kit: AdminKit) {
  return new Elysia({ detail: { hide: true } })
    .use(listRoutes(ctx, kit))
    .use(bulkRoutes(ctx, kit))
    .use(detailRoutes(ctx, kit))
    .use(editRoutes(ctx, kit))
    .use(statusRoutes(ctx, kit));
}
