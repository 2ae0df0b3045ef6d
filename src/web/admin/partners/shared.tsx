// Admin partners: what the list, the partner's page, its actions and the bulk actions share (paths,
// queries, the list's state from its query, the revoke confirmation).
import { t } from 'elysia';
import type { AppContext } from '../../../context';
import { type Partner } from '../../../modules/partners/service';
import { listGroups, type Group } from '../../../modules/groups/service';
import { PARTNER_SORT_KEYS, PARTNER_STATUS_FILTERS, type PartnerSortKey, type PartnerStatusFilter } from '../../../modules/reports/partners';
import { Field } from '../../forms';
import { parseRange, rangeQuery, type DateRange } from '../../range';
import type { AdminPage } from '../../session';
import { formatMoney, href, parsePage, parseSort, type Sort } from '../../ui';

export const LIST = '/admin/partners';
export const PAGE_SIZE = 50;
export const CUSTOMERS_PAGE = 25;
export const LINKS_SHOWN = 100;
export const RECRUITS_SHOWN = 100;
export const MAX_BULK = 100;
export const DEFAULT_SORT: Sort<PartnerSortKey> = { key: 'created', dir: 'desc' };
export const DONE = {
  created: 'Partner created.',
  invited: 'Invite sent.',
  revoked: 'Partner revoked: their sessions ended and their links stopped recording clicks.',
  reinstated: 'Partner reinstated.',
  saved: 'Changes saved.',
};
export const Params = t.Object({ id: t.String({ maxLength: 64 }) });
/** The account id as PATCH /partners/:id takes it, without its null (the form sends an empty field). */
export const BillingAccountId = t.String({ minLength: 1, maxLength: 255 });
export const text = (max: number) => t.Optional(t.String({ maxLength: max }));
/** The list's query: filters, range, currency, sort, page, and the outcome of an action. */
export const ListQuery = t.Object({
  q: text(254),
  status: text(20),
  currency: text(10),
  range: text(20),
  from: text(20),
  to: text(20),
  sort: text(20),
  dir: text(10),
  page: text(10),
  done: text(20),
  invited: text(6),
  skipped: text(6),
  revoked: text(6),
  moved: text(6),
  group: text(64),
});
export const DetailQuery = t.Object({ range: text(20), from: text(20), to: text(20), currency: text(10), page: text(10), done: text(20) });
/** Query keys a bulk action's `back` field may carry back to the list (nothing else is echoed). */
export const LIST_KEYS = ['q', 'status', 'group', 'currency', 'range', 'from', 'to', 'sort', 'dir', 'page'] as const;
/** The create form as typed; `campaignIds` undefined: the form showed no campaign to choose. */
export type CreateValues = { name: string; email: string; sendInvite: string; campaignIds?: string[] };
/** The edit form as typed. */
export type EditValues = { name: string; billingConnectAccountId: string; campaignIds: string[]; groupId: string; recruiter: string };
export const detailPath = (id: string) => `${LIST}/${encodeURIComponent(id)}`;
export const isoDay = (d: Date | null) => (d ? d.toISOString().slice(0, 10) : '');
export const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** Earnings per click in minor units, rounded half up; null without clicks. */
export function epcMinor(commissions: bigint, clicks: number): bigint | null {
  if (clicks <= 0) return null;
  const k = BigInt(clicks);
  return (2n * commissions + k) / (2n * k);
}

export const epcText = (commissions: bigint, clicks: number, currency: string) => {
  const epc = epcMinor(commissions, clicks);
  return epc === null ? '–' : formatMoney(epc, currency);
};

export type ListState = {
  q: string;
  status?: PartnerStatusFilter;
  /** a group's id, 'none' (in no group), or undefined (any) */
  group?: string;
  groups: Group[];
  range: DateRange;
  currency: string;
  currencies: string[];
  sort: Sort<PartnerSortKey>;
  page: number;
  /** The query that reproduces this view (without the page). */
  query: Record<string, string | undefined>;
};

/** The list's view from its query; anything unknown falls back (no error page for a bad sort). */
export function readList(query: Record<string, string | undefined>, currencies: string[], groups: Group[]): ListState {
  const q = (query.q ?? '').trim().slice(0, 254);
  const status = PARTNER_STATUS_FILTERS.find((s) => s === query.status);
  const group = query.group === 'none' ? 'none' : groups.find((g) => g.id === query.group)?.id;
  const range = parseRange(query);
  const currency = currencies.find((c) => c === query.currency) ?? currencies[0] ?? 'USD';
  const sort = parseSort(query, PARTNER_SORT_KEYS, DEFAULT_SORT);
  const { page } = parsePage(query, PAGE_SIZE);
  const sorted = sort.key === DEFAULT_SORT.key && sort.dir === DEFAULT_SORT.dir ? {} : { sort: sort.key, dir: sort.dir };
  return {
    q,
    status,
    group,
    groups,
    range,
    currency,
    currencies,
    sort,
    page,
    query: { q: q || undefined, status, group, currency: currency === currencies[0] ? undefined : currency, ...rangeQuery(range), ...sorted },
  };
}

/** The list's query string kept by a bulk form, read back through the allowed keys only. */
export function listBack(back: string | undefined, extra: Record<string, string> = {}): string {
  const given = new URLSearchParams((back ?? '').slice(0, 2000));
  const kept: Record<string, string | undefined> = {};
  for (const key of LIST_KEYS) kept[key] = given.get(key)?.slice(0, 254) || undefined;
  return href(LIST, kept, extra);
}

/** Every group, for the filter, the column and the move choices (a program has a handful). */
export const allGroups = async (ctx: AppContext) => (await listGroups(ctx.sql, { limit: 200 })).slice(0, 200);

/** The outcome of a bulk action, from counts in the query (numbers only, nothing echoed). */
export function bulkOutcome(query: Record<string, string | undefined>): { ok?: string } {
  const n = (v: string | undefined) => (/^\d{1,6}$/.test(v ?? '') ? Number(v) : null);
  const invited = n(query.invited);
  const skipped = n(query.skipped) ?? 0;
  const revoked = n(query.revoked);
  const moved = n(query.moved);
  if (moved !== null) return { ok: `Moved ${plural(moved, 'partner')}.` };
  if (invited !== null) {
    return { ok: `Invite sent to ${plural(invited, 'partner')}.${skipped > 0 ? ` ${plural(skipped, 'partner')} skipped: only invited partners who have not signed in get one.` : ''}` };
  }
  if (revoked !== null) return { ok: `Revoked ${plural(revoked, 'partner')}: their sessions ended and their links stopped recording clicks.` };
  return {};
}

export const revokePhrase = (n: number) => `REVOKE ${n}`;

export function revokeConfirm(page: AdminPage, partner: Partner, input: { reason?: string; error?: string }) {
  return {
    title: `Revoke ${partner.name}`,
    action: `${detailPath(partner.id)}/revoke`,
    button: `Revoke ${partner.name}`,
    csrf: page.csrf,
    danger: true,
    children: (
      <>
        <p>Their sessions end at once and their links stop recording clicks. Commissions already earned stay. You can reinstate them later.</p>
        <Field name="reason" label="Reason" hint="The partner is shown this reason." value={input.reason} error={input.error} required />
      </>
    ),
  };
}
