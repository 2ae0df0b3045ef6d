// Admin review queue (/admin/review): flagged commissions the holdback job leaves for a person,
// each with the evidence of its flags (clicks, network hashes, emails, amount against the
// threshold, the other partner); approve or reverse one, or many at once after a confirmation
// (web/confirm.tsx: nothing moves without `confirmed=1`). Also the partner page's flag history.
// The queue (list.tsx), the confirmation (confirm.tsx) and the posts that move commissions (actions.ts).
import { Elysia, t } from 'elysia';
import type { AppContext } from '../../../context';
import { render } from '../../render';
import type { AdminKit } from '../kit';
import { reviewActionRoutes } from './actions';
import { confirmView } from './confirm';
import { MAX_BULK, plural, REVIEW, type Bulk } from './labels';
import { queueView } from './list';

export { PartnerFlags } from './flags';
export { FLAG_LABELS, REVIEW } from './labels';

const ReviewQuery = t.Object({
  done: t.Optional(t.String({ maxLength: 20 })),
  n: t.Optional(t.String({ maxLength: 6 })),
  skipped: t.Optional(t.String({ maxLength: 6 })),
});

export function reviewRoutes(ctx: AppContext, kit: AdminKit) {
  return new Elysia({ detail: { hide: true } })
    .get(
      REVIEW,
      ({ request, query }) =>
        kit.page(request, async (page) => {
          const n = Number.parseInt(query.n ?? '0', 10) || 0;
          const skipped = Number.parseInt(query.skipped ?? '0', 10) || 0;
          const tail = skipped > 0 ? ` ${plural(skipped, 'was', 'were')} no longer waiting and left as they were.` : '';
          const ok = query.done === 'approved' ? `Approved ${plural(n, 'commission')}.${tail}` : query.done === 'reversed' ? `Reversed ${plural(n, 'commission')}.${tail}` : undefined;
          return render(await queueView(ctx, page, { ok }));
        }),
      { query: ReviewQuery },
    )
    // the bulk form (a GET: the ticked ids in the URL) and each card's buttons land on the confirmation
    .get(
      `${REVIEW}/confirm`,
      ({ request }) =>
        kit.page(request, async (page) => {
          const url = new URL(request.url);
          const action: Bulk = url.searchParams.get('action') === 'reverse' ? 'reverse' : 'approve';
          const ids = [...new Set(url.searchParams.getAll('ids').filter((v) => v.length > 0 && v.length <= 64))].slice(0, MAX_BULK + 1);
          // nothing ticked is said on the page; nothing happens on a GET anyway
          return render(await confirmView(ctx, page, action, ids));
        }),
      { query: t.Object({ action: t.Optional(t.String({ maxLength: 10 })), ids: t.Optional(t.Unknown()) }) },
    )
    .use(reviewActionRoutes(ctx, kit));
}
