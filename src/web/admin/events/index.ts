// Admin events: the conversion events received, newest first, with what attribution made of each
// (status, partners credited, commission), filtered by type, attribution status, user id and date
// range, sortable by time or amount, exported as CSV with the same filters (list.tsx); an event's
// page shows its attributions, the user's referral touches and its commissions (detail.tsx).
import { Elysia, t } from 'elysia';
import type { AppContext } from '../../../context';
import { csvResponse } from '../../../lib/csv';
import { anyEvent, eventDetail, eventPage, eventsCsv, eventTypes, SORTS } from '../../../modules/reports/money';
import { render } from '../../render';
import { parsePage, parseSort } from '../../ui';
import type { AdminKit } from '../kit';
import { eventNotFound, eventView } from './detail';
import { DEFAULT_SORT, filtersOf, LIST, ListQuery, PAGE_SIZE, rangeBounds, readFilter, type View } from './filter';
import { eventsView } from './list';

export { attributionBadge } from './badge';

export function eventRoutes(ctx: AppContext, kit: AdminKit) {
  return new Elysia({ detail: { hide: true } })
    .get(
      LIST,
      ({ request, query }) =>
        kit.page(request, async (page) => {
          const { filter, range } = readFilter(query);
          const sort = parseSort(query, SORTS.events, DEFAULT_SORT);
          const paging = parsePage(query, PAGE_SIZE);
          const [{ rows, total }, any, types] = await Promise.all([
            eventPage(ctx.sql, { filter: { ...filter, ...rangeBounds(range) }, sort, offset: paging.offset, limit: paging.limit }),
            anyEvent(ctx.sql),
            eventTypes(ctx.sql),
          ]);
          const filters = filtersOf(query);
          const view: View = { ...filters, sort: query.sort === sort.key ? sort.key : undefined, dir: query.dir === 'asc' ? 'asc' : undefined, page: paging.page > 1 ? String(paging.page) : undefined };
          return render(eventsView({ page, rows, total, any, types, range, filters, view, sort, pageNumber: paging.page }));
        }),
      { query: ListQuery },
    )
    .get(
      `${LIST}.csv`,
      ({ request, query }) =>
        kit.page(request, async () => {
          const { filter, range } = readFilter(query);
          // an export is a report read: the replica's when it is current
          return csvResponse(eventsCsv(await ctx.reads.sql(), { ...filter, ...rangeBounds(range) }), 'events.csv');
        }),
      { query: ListQuery },
    )
    .get(
      `${LIST}/:id`,
      ({ request, params }) =>
        kit.page(request, async (page) => {
          const detail = await eventDetail(ctx.sql, params.id);
          return detail ? render(eventView(page, detail)) : render(eventNotFound(page), { status: 404 });
        }),
      { params: t.Object({ id: t.String({ maxLength: 64 }) }) },
    );
}

