// What the commissions pages share: the list's address, its filter and view in the URL, the reversal rule.
import { t } from 'elysia';
import type { AppContext } from '../../../context';
import { ReverseBody } from '../../../modules/commissions/model';
import { COMMISSION_STATUSES, type CommissionStatus } from '../../../modules/commissions/service';
import { findPartnerByEmail } from '../../../modules/partners/service';
import { SORTS, type CommissionFilter } from '../../../modules/reports/money';
import { schemaErrors } from '../../forms';
import { href, type Sort } from '../../ui';

export const LIST = '/admin/commissions';
export const PAGE_SIZE = 50;
export const MAX_BULK = 100;
export const DEFAULT_SORT: Sort<'date' | 'amount'> = { key: 'date', dir: 'desc' };

/** `flagged`: yes / no; `from` / `to`: the sale's day (YYYY-MM-DD, both days included), as typed. */
export type Filter = { status?: CommissionStatus; partnerId?: string; partner?: string; campaignId?: string; flagged?: 'yes' | 'no'; from?: string; to?: string };
/** The outcome of an action, shown above the list. */
export type Outcome = { ok?: string; error?: string };
export type Bulk = 'approve' | 'reverse';

export const FilterQuery = t.Object({
  status: t.Optional(t.String({ maxLength: 20 })),
  partnerId: t.Optional(t.String({ maxLength: 64 })),
  partner: t.Optional(t.String({ maxLength: 254 })),
  campaignId: t.Optional(t.String({ maxLength: 64 })),
  flagged: t.Optional(t.String({ maxLength: 3 })),
  from: t.Optional(t.String({ maxLength: 10 })),
  to: t.Optional(t.String({ maxLength: 10 })),
  sort: t.Optional(t.String({ maxLength: 20 })),
  dir: t.Optional(t.String({ maxLength: 4 })),
  page: t.Optional(t.String({ maxLength: 8 })),
  approved: t.Optional(t.String({ maxLength: 6 })),
  reversed: t.Optional(t.String({ maxLength: 6 })),
  skipped: t.Optional(t.String({ maxLength: 6 })),
  done: t.Optional(t.String({ maxLength: 20 })),
});

export const IdParams = t.Object({ id: t.String({ maxLength: 64 }) });

export function readFilter(query: Record<string, string | undefined>): Filter {
  const status = (COMMISSION_STATUSES as readonly string[]).includes(query.status ?? '') ? (query.status as CommissionStatus) : undefined;
  return {
    status,
    partnerId: query.partnerId || undefined,
    partner: query.partner?.trim() || undefined,
    campaignId: query.campaignId || undefined,
    flagged: query.flagged === 'yes' || query.flagged === 'no' ? query.flagged : undefined,
    from: query.from || undefined,
    to: query.to || undefined,
  };
}

/** A "YYYY-MM-DD" naming a real day, as its UTC midnight; null otherwise. */
function dayOf(text: string): Date | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return null;
  const d = new Date(`${text}T00:00:00.000Z`);
  return Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== text ? null : d;
}

/**
 * The list's filter as the read model takes it (the sale's days as a half-open range, `to` day
 * included), and the date fields' errors.
 */
export function scopeOf(filter: Filter, partnerId: string | undefined): { scope: CommissionFilter; errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  const from = filter.from ? dayOf(filter.from) : null;
  const to = filter.to ? dayOf(filter.to) : null;
  if (filter.from && !from) errors.from = 'a date: YYYY-MM-DD';
  if (filter.to && !to) errors.to = 'a date: YYYY-MM-DD';
  if (from && to && to < from) errors.to = 'on or after the first day';
  const scope: CommissionFilter = {
    status: filter.status,
    partnerId,
    campaignId: filter.campaignId,
    flagged: filter.flagged === undefined ? undefined : filter.flagged === 'yes',
    from: from ?? undefined,
    to: to ? new Date(to.getTime() + 86_400_000) : undefined,
  };
  return { scope, errors };
}

/** The view a link keeps: the filter, and the sort and page when given. */
export type View = Record<string, string | undefined>;
export const viewOf = (query: Record<string, string | undefined>): View => ({
  ...readFilter(query),
  sort: (SORTS.commissions as readonly string[]).includes(query.sort ?? '') ? query.sort : undefined,
  dir: query.dir === 'asc' || query.dir === 'desc' ? query.dir : undefined,
  page: /^\d{1,6}$/.test(query.page ?? '') ? query.page : undefined,
});
export const filterOnly = (view: View): View => ({
  status: view.status,
  partnerId: view.partnerId,
  partner: view.partner,
  campaignId: view.campaignId,
  flagged: view.flagged,
  from: view.from,
  to: view.to,
});

/** The partner filter by email: the partner's id, or the field's error. */
export async function partnerOf(ctx: AppContext, filter: Filter): Promise<{ partnerId?: string; error?: string }> {
  if (!filter.partner) return { partnerId: filter.partnerId };
  const found = await findPartnerByEmail(ctx.sql, filter.partner);
  return found ? { partnerId: found.id } : { error: 'no partner has this email' };
}

/** The list's address with the view it keeps, and what an action reports. */
export const back = (view: View, extra: Record<string, string> = {}) => href(LIST, view, extra);

/** The API's own rule for a reversal reason, in the page's words. */
export function reasonProblem(reason: string): string | null {
  const problems = schemaErrors(ReverseBody, { reason });
  if (!problems.reason) return null;
  return problems.reason === 'required' ? 'say why (refund, chargeback, fraud...)' : problems.reason;
}

export const REVERSE_TEXT = 'The partner is not paid this, and sees the reason. A paid commission is clawed back from the next payout. A reversal cannot be undone.';
