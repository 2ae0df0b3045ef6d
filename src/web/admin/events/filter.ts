// The events list's address: its path, page size and default sort, and the filters read from the
// query (type, attribution status, user id, date range) that the list, its links and the CSV share.
import { t } from 'elysia';
import { ATTRIBUTION_STATUSES, type AttributionStatusName, type EventFilter } from '../../../modules/reports/money';
import { parseRange, rangeQuery, type DateRange } from '../../range';
import type { Sort } from '../../ui';

export const LIST = '/admin/events';
export const PAGE_SIZE = 50;
export const DEFAULT_SORT: Sort<'time' | 'amount'> = { key: 'time', dir: 'desc' };

export type View = Record<string, string | undefined>;

export const ListQuery = t.Object({
  type: t.Optional(t.String({ maxLength: 200 })),
  status: t.Optional(t.String({ maxLength: 20 })),
  userId: t.Optional(t.String({ maxLength: 255 })),
  range: t.Optional(t.String({ maxLength: 10 })),
  from: t.Optional(t.String({ maxLength: 10 })),
  to: t.Optional(t.String({ maxLength: 10 })),
  sort: t.Optional(t.String({ maxLength: 20 })),
  dir: t.Optional(t.String({ maxLength: 4 })),
  page: t.Optional(t.String({ maxLength: 8 })),
});

/** "2026-11-23 14:05" in UTC. */
export const minute = (d: Date) => d.toISOString().slice(0, 16).replace('T', ' ');

export function readFilter(query: Record<string, string | undefined>): { filter: Omit<EventFilter, 'from' | 'to'>; range: DateRange } {
  const status = (ATTRIBUTION_STATUSES as readonly string[]).includes(query.status ?? '') ? (query.status as AttributionStatusName) : undefined;
  return { filter: { type: query.type?.trim() || undefined, status, userId: query.userId?.trim() || undefined }, range: parseRange(query) };
}

/** The filters a link keeps (range included), without sort or page. */
export function filtersOf(query: Record<string, string | undefined>): View {
  const { filter, range } = readFilter(query);
  return { type: filter.type, status: filter.status, userId: filter.userId, ...rangeQuery(range) };
}

export const rangeBounds = (range: DateRange) => ({ from: range.start ?? new Date(0), to: range.end });
