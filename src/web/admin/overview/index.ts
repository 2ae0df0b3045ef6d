// Admin overview (GET /admin): the setup checklist until the program is set up, KPI cards for a date
// range against the previous period, one chart of revenue and commissions, the to-do counts and the
// top partners. Numbers come from src/modules/reports/overview.ts; docs/web.md says how they count.
// The page and its latest-event poll here, the setup checklist's buttons in actions.ts.
import { Elysia } from 'elysia';
import type { AppContext } from '../../../context';
import { latestEvent } from '../../../modules/reports/overview';
import { PAGE_CSP, render } from '../../render';
import { guardAdmin } from '../../session';
import type { AdminKit } from '../kit';
import { onboardingRoutes } from './actions';
import { LATEST, loadOverview, one, PATH } from './data';
import { latestEventView, overviewView } from './page';

export function overviewRoutes(ctx: AppContext, kit: AdminKit) {
  return new Elysia({ detail: { hide: true } })
    .get(PATH, ({ request, query }) =>
      kit.page(request, async (page) => render(overviewView(page, await loadOverview(ctx, query), ctx.config.baseUrl, { done: one(query.done) }))),
    )
    .get(LATEST, async ({ request }) => {
      // a poll from a page whose session ended stops polling (htmx: 286) instead of swapping in the sign-in page
      if (request.headers.get('hx-request') === 'true' && (await guardAdmin(ctx, request)).kind !== 'admin') return new Response(null, { status: 286 });
      return kit.page(request, async () => fragment(latestEventView(await latestEvent(ctx.sql))));
    })
    .use(onboardingRoutes(ctx, kit));
}

/** A piece of a page for htmx to swap in: the page headers, no doctype. */
function fragment(html: string): Response {
  return new Response(html, {
    headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'content-security-policy': PAGE_CSP, 'x-content-type-options': 'nosniff' },
  });
}
