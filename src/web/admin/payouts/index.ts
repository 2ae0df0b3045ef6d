// Admin payouts: the list (status filter, sort by date or amount, "1–50 of N"), a payout's page with
// its commissions and clawbacks, and the money actions, each confirmed before it acts (a dialog on
// the page, the confirm page without script; a post without `confirmed=1` answers the confirm page):
// run payouts now (previewing what the run pays: the run's own sums, workflows/run-payouts.ts), mark
// paid (one, or the ticked pending ones), mark failed (its commissions become payable again). The CSV
// export is the API's own /v1/payouts.csv, which the admin session cookie opens.
import { Elysia } from 'elysia';
import type { AppContext } from '../../../context';
import type { AdminKit } from '../kit';
import { actionRoutes } from './actions';
import { bulkRoutes } from './bulk';
import { detailRoutes } from './detail';
import { listRoutes } from './list';
import { runRoutes } from './run';

/** The payouts pages, one file per verb: the list, the run, bulk mark-paid, one payout, its actions. */
export function payoutRoutes(ctx: AppContext, kit: AdminKit) {
  return new Elysia({ detail: { hide: true } })
    .use(listRoutes(ctx, kit))
    .use(runRoutes(ctx, kit))
    .use(bulkRoutes(ctx, kit))
    .use(detailRoutes(ctx, kit))
    .use(actionRoutes(ctx, kit));
}
