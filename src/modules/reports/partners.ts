// Partner reports for the admin pages: the partners list with each partner's numbers over a date
// range, one partner's totals, its links' numbers and the customers it brought. One query per table.
//
// The numbers are the figures of ./figures.ts (docs/analytics.md): credited clicks (filtered ones
// counted apart), first conversions, converted clicks, revenue of the range's sales and commissions
// earned on them, each counted on the day the sale happened (occurredAt), never on the day its rows
// were written. Money is never added across currencies: every sum names one currency.
import type { Sql } from '../../db';
import type { PartnerStatus } from '../partners/model';
import { clickWithinAny, convertedClicks, earnedCommission, filteredClick, firstSale, rollupRows, splitSpan, withinAny, type Span } from './figures';
import { moneyPage } from './money-first';

export type { Span };
export { referredCustomers, type CustomerState, type ReferredCustomer } from './customers';

export const PARTNER_SORT_KEYS = ['name', 'status', 'created', 'clicks', 'conversions', 'rate', 'revenue', 'commissions', 'epc'] as const;
export type PartnerSortKey = (typeof PARTNER_SORT_KEYS)[number];

/** The list's status filter, in the words the page shows (an invited partner is `pending` in the API): every status it can show. */
export const PARTNER_STATUS_FILTERS = ['applied', 'invited', 'active', 'declined', 'revoked'] as const;
export type PartnerStatusFilter = (typeof PARTNER_STATUS_FILTERS)[number];

export type PartnerStatsRow = {
  id: string;
  name: string;
  email: string;
  status: PartnerStatus;
  createdAt: Date;
  activatedAt: Date | null;
  revokedAt: Date | null;
  billingConnectAccountId: string | null;
  /** the partner's group, null: none */
  groupId: string | null;
  /** credited clicks */
  clicks: number;
  /** clicks filtered as bots or floods, counted apart */
  filteredClicks: number;
  /** credited clicks that became a customer's referral touch (the conversion rate's numerator) */
  convertedClicks: number;
  /** first conversions: customers whose first sale is in the range */
  conversions: number;
  /** minor units of the chosen currency */
  revenue: bigint;
  commissions: bigint;
};

type StatsQueryRow = {
  id: string;
  name: string;
  email: string;
  status: PartnerStatus;
  created_at: Date;
  activated_at: Date | null;
  revoked_at: Date | null;
  billing_connect_account_id: string | null;
  group_id: string | null;
  clicks: number;
  filtered: number;
  converted: number;
  conversions: number;
  revenue: bigint;
  commissions: bigint;
  total: number;
};

/** The list's status filter: "invited" is the status `pending` (never an application waiting or declined). */
const STATUS_OF_FILTER: Record<PartnerStatusFilter, PartnerStatus> = { applied: 'applied', invited: 'pending', active: 'active', declined: 'declined', revoked: 'revoked' };
const statusFilter = (sql: Sql, status: PartnerStatusFilter | undefined) =>
  status === undefined ? sql`` : sql`and partner_status(p) = ${STATUS_OF_FILTER[status]}`;
/** The list's group filter: one group's members, 'none' for partners in no group, undefined for all. */
const groupFilter = (sql: Sql, group: string | undefined) =>
  group === undefined ? sql`` : group === 'none' ? sql`and p.group_id is null` : sql`and p.group_id = ${group}`;

/**
 * A page of partners matching `search` (substring of email or name, any case) and `status`, with
 * their numbers over `span` in `currency`, sorted by `sort` (ties: newest first), and how many match.
 * Sorting by a partner column picks the page first and counts only its partners' rows; sorting by a
 * number counts every matching partner's rows in the range (index scans on partner and time).
 */
export async function partnerStats(
  sql: Sql,
  input: { search?: string; status?: PartnerStatusFilter; group?: string; span: Span; currency: string; sort: { key: PartnerSortKey; dir: 'asc' | 'desc' }; limit: number; offset: number },
): Promise<{ rows: PartnerStatsRow[]; total: number }> {
  const like = input.search ? `%${input.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null;
  const dir: ReturnType<Sql> = input.sort.dir === 'asc' ? sql`asc` : sql`desc`;
  const onPartner = input.sort.key === 'name' || input.sort.key === 'status' || input.sort.key === 'created';
  // the same order inside `matched` (partner columns) and outside (output names)
  const inner = { name: sql`lower(p.name)`, status: sql`status_rank`, created: sql`p.id` } as Record<string, ReturnType<Sql>>;
  const outer = {
    name: sql`sort_name`,
    status: sql`status_rank`,
    created: sql`id`,
    clicks: sql`clicks`,
    conversions: sql`conversions`,
    rate: sql`rate`,
    revenue: sql`revenue`,
    commissions: sql`commissions`,
    epc: sql`epc`,
  } satisfies Record<PartnerSortKey, unknown>;
  // whole days from the partners' rollup rows, today (and part-days) from the rows themselves
  const parts = splitSpan(input.span);
  const span = parts.raw;
  // sorted by a partner column or by money, the page is chosen first and its ids name every read
  // below: a few index lookups per partner, not every partner's counts and clicks of the range
  const byMoney = input.sort.key === 'commissions' || input.sort.key === 'revenue' ? input.sort.key : null;
  const page = onPartner
    ? await partnerPage(sql, like, input, inner[input.sort.key]!, dir)
    : byMoney !== null
      ? await moneyPage(sql, { where: matching(sql, like, input), count: () => countPartners(sql, like, input.status, input.group) }, input, parts, byMoney, dir)
      : null;
  const scope = page === null ? sql`in (select id from matched)` : sql`= any(${page.ids}::text[])`;
  const rows = await sql<StatsQueryRow[]>`
    with matched as (
      select p.id, p.name, p.email, partner_status(p) as status, p.created_at, p.activated_at, p.revoked_at, p.billing_connect_account_id, p.group_id,
        lower(p.name) as sort_name,
        case partner_status(p) when 'active' then 0 when 'revoked' then 2 else 1 end as status_rank,
        count(*) over () as total
      from partners p
      where true ${matching(sql, like, input)} ${page === null ? sql`` : sql`and p.id = any(${page.ids}::text[])`}
    ),
    k as (
      select c.partner_id, count(*)::int as n from clicks c
      where c.partner_id ${scope} ${clickWithinAny(sql, 'c', span)}
      group by c.partner_id
    ),
    f as (
      select c.partner_id, count(*)::int as n from clicks c
      where ${filteredClick(sql, 'c')} and c.partner_id ${scope} ${clickWithinAny(sql, 'c', span)}
      group by c.partner_id
    ),
    cv as (
      select t.partner_id, count(*)::int as n
      from (${convertedClicks(sql, sql`t.partner_id ${scope}`, span)}) t
      group by t.partner_id
    ),
    v as (
      select t.partner_id, (count(distinct t.user_id) filter (where t.first))::int as n,
        coalesce(sum(e.amount) filter (where e.currency = ${input.currency}), 0)::bigint as revenue
      -- every partner's sales of the raw spans (today and part-days: a few thousand at most), found by
      -- their time (not a lookup per partner); the join with matched keeps the listed ones
      from (
        select distinct a.partner_id, a.event_id, a.user_id, ${firstSale(sql, 'a.user_id', 'a.occurred_at')} as first
        from events x join attributions a on a.event_id = x.id
        where x.attribution_status = 'attributed' ${withinAny(sql, 'x.occurred_at', span)}) t
      join events e on e.id = t.event_id
      group by t.partner_id
    ),
    roll as (
      select r.partner_id, sum(r.clicks)::int as clicks, sum(r.filtered)::int as filtered, sum(r.converted)::int as converted, sum(r.customers)::int as conversions,
        coalesce(sum(r.revenue) filter (where r.currency = ${input.currency}), 0)::bigint as revenue,
        coalesce(sum(r.accrued + r.approved + r.paid) filter (where r.currency = ${input.currency}), 0)::bigint as commissions
      from ${rollupRows(sql, 'rollup_facts', parts.days)} r
      where r.partner_id ${scope} and r.campaign_id = '' and r.link_id = '' and r.currency in ('', ${input.currency})
      group by 1
    ),
    m as (
      select x.partner_id, coalesce(sum(x.amount) filter (where ${earnedCommission(sql, 'x')}), 0)::bigint as amount from commissions x
      where x.partner_id ${scope} and x.currency = ${input.currency} ${withinAny(sql, 'x.occurred_at', span)}
      group by x.partner_id
    )
    select * from (
      select s.*, s.converted::numeric / nullif(s.clicks, 0) as rate, s.commissions::numeric / nullif(s.clicks, 0) as epc
      from (
        select matched.*, coalesce(k.n, 0) - coalesce(f.n, 0) + coalesce(roll.clicks, 0) as clicks, coalesce(f.n, 0) + coalesce(roll.filtered, 0) as filtered,
          coalesce(cv.n, 0) + coalesce(roll.converted, 0) as converted, coalesce(v.n, 0) + coalesce(roll.conversions, 0) as conversions,
          (coalesce(v.revenue, 0) + coalesce(roll.revenue, 0))::bigint as revenue, (coalesce(m.amount, 0) + coalesce(roll.commissions, 0))::bigint as commissions
        from matched
        left join roll on roll.partner_id = matched.id
        left join k on k.partner_id = matched.id
        left join f on f.partner_id = matched.id
        left join cv on cv.partner_id = matched.id
        left join v on v.partner_id = matched.id
        left join m on m.partner_id = matched.id
      ) s
    ) r
    order by ${outer[input.sort.key]} ${dir} nulls last, id desc
    ${page !== null ? sql`` : sql`limit ${input.limit} offset ${input.offset}`}`;
  const total = page !== null ? page.total : rows[0] ? Number(rows[0].total) : 0;
  return {
    total,
    rows: rows.map((r) => ({
      id: r.id,
      name: r.name,
      email: r.email,
      status: r.status,
      createdAt: r.created_at,
      activatedAt: r.activated_at,
      revokedAt: r.revoked_at,
      billingConnectAccountId: r.billing_connect_account_id,
      groupId: r.group_id,
      clicks: r.clicks,
      filteredClicks: r.filtered,
      convertedClicks: r.converted,
      conversions: r.conversions,
      revenue: r.revenue,
      commissions: r.commissions,
    })),
  };
}

/** `and …`: the partners (`p`) matching the search, status and group. */
const matching = (sql: Sql, like: string | null, input: { status?: PartnerStatusFilter; group?: string }): ReturnType<Sql> =>
  sql`${like !== null ? sql`and (p.email ilike ${like} or p.name ilike ${like})` : sql``} ${statusFilter(sql, input.status)} ${groupFilter(sql, input.group)}`;

/** The ids of the page's partners in `order`, and how many partners match. */
async function partnerPage(
  sql: Sql,
  like: string | null,
  input: { status?: PartnerStatusFilter; group?: string; limit: number; offset: number },
  order: ReturnType<Sql>,
  dir: ReturnType<Sql>,
): Promise<{ ids: string[]; total: number }> {
  const rows = await sql<{ id: string; total: number }[]>`
    select p.id, count(*) over ()::int as total,
      case partner_status(p) when 'active' then 0 when 'revoked' then 2 else 1 end as status_rank
    from partners p
    where true ${matching(sql, like, input)}
    order by ${order} ${dir}, p.id desc
    limit ${input.limit} offset ${input.offset}`;
  // a page past the end has no row to say how many match
  const total = rows[0]?.total ?? (input.offset > 0 ? await countPartners(sql, like, input.status, input.group) : 0);
  return { ids: rows.map((r) => r.id), total };
}

/** How many partners match, for a page past the end (where the page query has no row to say it). */
async function countPartners(sql: Sql, like: string | null, status: PartnerStatusFilter | undefined, group: string | undefined): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from partners p
    where true ${matching(sql, like, { status, group })}`;
  return row!.n;
}

/**
 * The currencies money exists in: the campaigns' and the commissions' (a percent rule pays in the
 * event's currency). The program's main currency first (the one most campaigns use, ties: the
 * first campaign's), then by campaigns using them, then alphabetically: the pages' "Money in" choice. Commission currencies
 * come from loose index scans (one probe per currency): of commissions_currency, which leaves paid
 * commissions out, and of payouts_currency, since a paid commission is in its payout's currency
 * (migration 0030).
 */
export async function moneyCurrencies(sql: Sql): Promise<string[]> {
  const rows = await sql<{ currency: string; campaigns: number }[]>`
    with recursive unpaid as (
      (select currency from commissions where status <> 'paid' order by currency limit 1)
      union all
      select (select c.currency from commissions c where c.status <> 'paid' and c.currency > u.currency order by c.currency limit 1)
      from unpaid u where u.currency is not null
    ),
    paid as (
      (select currency from payouts order by currency limit 1)
      union all
      select (select p.currency from payouts p where p.currency > q.currency order by p.currency limit 1)
      from paid q where q.currency is not null
    ),
    seen as (
      select currency from unpaid union select currency from paid
    ),
    used as (
      select currency, count(*)::int as campaigns, min(id) as oldest from campaigns group by currency
    )
    select coalesce(u.currency, s.currency) as currency, coalesce(u.campaigns, 0) as campaigns
    from used u full join (select currency from seen where currency is not null) s on s.currency = u.currency
    order by coalesce(u.campaigns, 0) desc, u.oldest nulls last, 1`;
  return rows.map((r) => r.currency);
}

/** The currency most of one partner's commissions are in; null before its first. */
export async function partnerMainCurrency(sql: Sql, partnerId: string): Promise<string | null> {
  const [row] = await sql<{ currency: string }[]>`
    select currency from commissions where partner_id = ${partnerId} group by currency order by count(*) desc, currency limit 1`;
  return row?.currency ?? null;
}

export { linkStats, partnerCounts, partnerMoney, type LinkStatsRow, type PartnerCounts, type PartnerMoney } from './partner';

/** The named partners (unknown ids left out), by name: what a bulk confirmation lists. */
export async function partnersByIds(sql: Sql, ids: string[]): Promise<{ id: string; name: string; email: string; status: PartnerStatsRow['status'] }[]> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return [];
  return sql<{ id: string; name: string; email: string; status: PartnerStatus }[]>`
    select id, name, email, partner_status(p) as status from partners p where id = any(${unique}) order by lower(name), id`;
}
