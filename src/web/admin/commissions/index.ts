// Admin commissions: filter by status, partner and campaign, sort by date or amount, page through
// them ("1–50 of N"), export what the filter shows as CSV; approve one from its row's "⋯" menu;
// reverse one (a confirmation asking the reason), and approve or reverse many at once (ticked rows,
// confirmed with counts and totals per currency). Nothing that moves money happens without
// `confirmed=1`: a post without it answers the confirm page. The state machine lives in
// modules/commissions/lifecycle.ts.
import { Elysia } from 'elysia';
import type { AppContext } from '../../../context';
import type { AdminKit } from '../kit';
import { actionRoutes } from './actions';
import { bulkRoutes } from './bulk';
import { detailRoutes } from './detail';
import { listRoutes } from './list';

/** The commissions pages, one file per verb: the list (and its CSV), bulk actions, one commission's actions and page. */
export function commissionRoutes(ctx: AppContext, kit: AdminKit) {
  return new Elysia({ detail: { hide: true } }).use(listRoutes(ctx, kit)).use(bulkRoutes(ctx, kit)).use(actionRoutes(ctx, kit)).use(detailRoutes(ctx, kit));
}
