// Partner reports for the admin pages: the partners list with each partner's numbers over a date
// range, one partner's totals, its links' numbers and the customers it brought. One query per table.
//
// What the numbers mean (docs/web.md says the same to readers):
// - clicks: clicks recorded on the partner's links in the range;
// - conversions: events attributed to the partner in the range, each counted once however many of
//   its touches were the partner's (as the overview counts them);
// - revenue: the full amount of those events in the chosen currency (not split across touches);
// - commissions: the partner's commissions created in the range in the chosen currency, reversed
//   ones left out; EPC = those commissions / clicks.
// Times are when a row was recorded (clicks, attributions and commissions carry their id's time).
// Money is never added across currencies: every sum names one currency.
import type { Sql } from '../../db';
import { idFloor } from '../../lib/ids';
import type { PartnerStatus } from '../partners/model';

/** A half-open time range; `start` null is all time. */
export type Span = { start: Date | null; end: Date };

export const PARTNER_SORT_KEYS = ['name', 'status', 'created', 'clicks', 'conversions', 'rate', 'revenue', 'commissions', 'epc'] as const;
export type PartnerSortKey = (typeof PARTNER_SORT_KEYS)[number];

/** The list's status filter, in the words the page shows (an invited partner is `pending` in the API). */
export const PARTNER_STATUS_FILTERS = ['invited', 'active', 'revoked'] as const;
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
  clicks: number;
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
  conversions: number;
  revenue: bigint;
  commissions: bigint;
  total: number;
};

const idRange = (sql: Sql, column: string, kind: 'attribution' | 'commission', span: Span) =>
  sql`${span.start ? sql`and ${sql(column)} >= ${idFloor(kind, span.start)}` : sql``} and ${sql(column)} < ${idFloor(kind, span.end)}`;

/** The list's status filter: "invited" is the status `pending` (never an application waiting or declined). */
const STATUS_OF_FILTER: Record<PartnerStatusFilter, PartnerStatus> = { invited: 'pending', active: 'active', revoked: 'revoked' };
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
  const dir = input.sort.dir === 'asc' ? sql`asc` : sql`desc`;
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
  const span = input.span;
  const rows = await sql<StatsQueryRow[]>`
    with matched as (
      select p.id, p.name, p.email, partner_status(p) as status, p.created_at, p.activated_at, p.revoked_at, p.billing_connect_account_id, p.group_id,
        lower(p.name) as sort_name,
        case partner_status(p) when 'active' then 0 when 'revoked' then 2 else 1 end as status_rank,
        count(*) over () as total
      from partners p
      where true
        ${like !== null ? sql`and (p.email ilike ${like} or p.name ilike ${like})` : sql``}
        ${statusFilter(sql, input.status)}
        ${groupFilter(sql, input.group)}
      ${onPartner ? sql`order by ${inner[input.sort.key]!} ${dir}, p.id desc limit ${input.limit} offset ${input.offset}` : sql``}
    ),
    k as (
      select c.partner_id, count(*)::int as n from clicks c
      where c.partner_id in (select id from matched)
        ${span.start ? sql`and c.created_at >= ${span.start}` : sql``} and c.created_at < ${span.end}
      group by c.partner_id
    ),
    v as (
      select t.partner_id, count(*)::int as n, coalesce(sum(e.amount) filter (where e.currency = ${input.currency}), 0)::bigint as revenue
      from (
        select distinct a.partner_id, a.event_id from attributions a
        where a.partner_id in (select id from matched) ${idRange(sql, 'a.id', 'attribution', span)}
      ) t
      join events e on e.id = t.event_id
      group by t.partner_id
    ),
    m as (
      select x.partner_id, coalesce(sum(x.amount) filter (where x.status <> 'reversed'), 0)::bigint as amount from commissions x
      where x.partner_id in (select id from matched) and x.currency = ${input.currency} ${idRange(sql, 'x.id', 'commission', span)}
      group by x.partner_id
    )
    select * from (
      select s.*, s.conversions::numeric / nullif(s.clicks, 0) as rate, s.commissions::numeric / nullif(s.clicks, 0) as epc
      from (
        select matched.*, coalesce(k.n, 0) as clicks, coalesce(v.n, 0) as conversions,
          coalesce(v.revenue, 0)::bigint as revenue, coalesce(m.amount, 0)::bigint as commissions
        from matched
        left join k on k.partner_id = matched.id
        left join v on v.partner_id = matched.id
        left join m on m.partner_id = matched.id
      ) s
    ) r
    order by ${outer[input.sort.key]} ${dir} nulls last, id desc
    ${onPartner ? sql`` : sql`limit ${input.limit} offset ${input.offset}`}`;
  const total = rows[0] ? Number(rows[0].total) : onPartner && input.offset > 0 ? await countPartners(sql, like, input.status, input.group) : 0;
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
      conversions: r.conversions,
      revenue: r.revenue,
      commissions: r.commissions,
    })),
  };
}

/** How many partners match, for a page past the end (where the page query has no row to say it). */
async function countPartners(sql: Sql, like: string | null, status: PartnerStatusFilter | undefined, group: string | undefined): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from partners p
    where true
      ${like !== null ? sql`and (p.email ilike ${like} or p.name ilike ${like})` : sql``}
      ${statusFilter(sql, status)}
      ${groupFilter(sql, group)}`;
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

export type PartnerCounts = { clicks: number; conversions: number; previous: { clicks: number; conversions: number } | null };

/** One partner's clicks and conversions over `span`, and over the period of equal length before it. */
export async function partnerCounts(sql: Sql, input: { partnerId: string; span: Span; previous: { start: Date; end: Date } | null }): Promise<PartnerCounts> {
  const from = input.previous?.start ?? input.span.start;
  const start = input.span.start ?? new Date(0);
  const [row] = await sql<{ clicks: number; conversions: number; prev_clicks: number; prev_conversions: number }[]>`
    select
      (select count(*) filter (where c.created_at >= ${start}) from clicks c
        where c.partner_id = ${input.partnerId} ${from ? sql`and c.created_at >= ${from}` : sql``} and c.created_at < ${input.span.end})::int as clicks,
      (select count(*) filter (where c.created_at < ${start}) from clicks c
        where c.partner_id = ${input.partnerId} ${from ? sql`and c.created_at >= ${from}` : sql``} and c.created_at < ${input.span.end})::int as prev_clicks,
      (select count(distinct a.event_id) filter (where a.id >= ${idFloor('attribution', start)}) from attributions a
        where a.partner_id = ${input.partnerId} ${idRange(sql, 'a.id', 'attribution', { start: from, end: input.span.end })})::int as conversions,
      (select count(distinct a.event_id) filter (where a.id < ${idFloor('attribution', start)}) from attributions a
        where a.partner_id = ${input.partnerId} ${idRange(sql, 'a.id', 'attribution', { start: from, end: input.span.end })})::int as prev_conversions`;
  return {
    clicks: row!.clicks,
    conversions: row!.conversions,
    previous: input.previous ? { clicks: row!.prev_clicks, conversions: row!.prev_conversions } : null,
  };
}

export type PartnerMoney = { currency: string; revenue: bigint; accrued: bigint; approved: bigint; paid: bigint; reversed: bigint };

/** One partner's money over `span`, one row per currency: attributed revenue and commissions by status. */
export async function partnerMoney(sql: Sql, input: { partnerId: string; span: Span }): Promise<PartnerMoney[]> {
  const rows = await sql<{ currency: string; revenue: bigint; accrued: bigint; approved: bigint; paid: bigint; reversed: bigint }[]>`
    with r as (
      select e.currency, sum(e.amount)::bigint as revenue
      from (select distinct a.event_id from attributions a where a.partner_id = ${input.partnerId} ${idRange(sql, 'a.id', 'attribution', input.span)}) t
      join events e on e.id = t.event_id
      where e.currency is not null
      group by e.currency
    ),
    m as (
      select x.currency,
        coalesce(sum(x.amount) filter (where x.status = 'accrued'), 0)::bigint as accrued,
        coalesce(sum(x.amount) filter (where x.status = 'approved'), 0)::bigint as approved,
        coalesce(sum(x.amount) filter (where x.status = 'paid'), 0)::bigint as paid,
        coalesce(sum(x.amount) filter (where x.status = 'reversed'), 0)::bigint as reversed
      from commissions x
      where x.partner_id = ${input.partnerId} ${idRange(sql, 'x.id', 'commission', input.span)}
      group by x.currency
    )
    select coalesce(r.currency, m.currency) as currency, coalesce(r.revenue, 0)::bigint as revenue,
      coalesce(m.accrued, 0)::bigint as accrued, coalesce(m.approved, 0)::bigint as approved,
      coalesce(m.paid, 0)::bigint as paid, coalesce(m.reversed, 0)::bigint as reversed
    from r full join m on m.currency = r.currency
    order by 1`;
  return rows.map((r) => ({ currency: r.currency, revenue: r.revenue, accrued: r.accrued, approved: r.approved, paid: r.paid, reversed: r.reversed }));
}

export type LinkStatsRow = { id: string; slug: string; campaignId: string; createdAt: Date; clicks: number; conversions: number; revenue: bigint; commissions: bigint };

/**
 * Each of the partner's links (newest first, at most `limit`) with its numbers over `span` in
 * `currency`: a conversion or commission belongs to the link of the click its touch came through.
 */
export async function linkStats(sql: Sql, input: { partnerId: string; span: Span; currency: string; limit: number }): Promise<LinkStatsRow[]> {
  const span = input.span;
  const rows = await sql<{ id: string; slug: string; campaign_id: string; created_at: Date; clicks: number; conversions: number; revenue: bigint; commissions: bigint }[]>`
    with l as (
      select id, slug, campaign_id, created_at from links where partner_id = ${input.partnerId} order by id desc limit ${input.limit}
    ),
    k as (
      select c.link_id, count(*)::int as n from clicks c
      where c.partner_id = ${input.partnerId} ${span.start ? sql`and c.created_at >= ${span.start}` : sql``} and c.created_at < ${span.end}
      group by c.link_id
    ),
    t as (
      select distinct c.link_id, a.event_id
      from attributions a join clicks c on c.id = a.click_id
      where a.partner_id = ${input.partnerId} ${idRange(sql, 'a.id', 'attribution', span)}
    ),
    v as (
      select t.link_id, count(*)::int as n, coalesce(sum(e.amount) filter (where e.currency = ${input.currency}), 0)::bigint as revenue
      from t join events e on e.id = t.event_id group by t.link_id
    ),
    m as (
      select c.link_id, sum(x.amount)::bigint as amount
      from commissions x join attributions a on a.id = x.attribution_id join clicks c on c.id = a.click_id
      where x.partner_id = ${input.partnerId} and x.currency = ${input.currency} and x.status <> 'reversed' ${idRange(sql, 'x.id', 'commission', span)}
      group by c.link_id
    )
    select l.id, l.slug, l.campaign_id, l.created_at, coalesce(k.n, 0) as clicks, coalesce(v.n, 0) as conversions,
      coalesce(v.revenue, 0)::bigint as revenue, coalesce(m.amount, 0)::bigint as commissions
    from l left join k on k.link_id = l.id left join v on v.link_id = l.id left join m on m.link_id = l.id
    order by l.id desc`;
  return rows.map((r) => ({
    id: r.id,
    slug: r.slug,
    campaignId: r.campaign_id,
    createdAt: r.created_at,
    clicks: r.clicks,
    conversions: r.conversions,
    revenue: r.revenue,
    commissions: r.commissions,
  }));
}

export type CustomerState = 'active' | 'refunded' | 'reversed' | 'no_commission';

export type ReferredCustomer = {
  userId: string;
  conversions: number;
  firstAt: Date;
  lastAt: Date;
  /** lifetime, minor units of the chosen currency */
  revenue: bigint;
  commissions: bigint;
  state: CustomerState;
};

/**
 * The customers a partner brought (users with an event attributed to it), all time, latest
 * conversion first: first and last conversion (the events' occurredAt), lifetime revenue and the
 * partner's commissions (reversed left out) in `currency`, and a state: every commission reversed,
 * some refunded or charged back, active, or no commission at all (no rule paid for their events).
 */
export async function referredCustomers(sql: Sql, input: { partnerId: string; currency: string; limit: number; offset: number }): Promise<{ rows: ReferredCustomer[]; total: number }> {
  const rows = await sql<{ user_id: string; conversions: number; first_at: Date; last_at: Date; revenue: bigint; commissions: bigint; n: number; reversed: number; refunded: number; total: number }[]>`
    with t as (
      select distinct a.user_id, a.event_id from attributions a where a.partner_id = ${input.partnerId}
    ),
    ev as (
      select t.user_id, count(*)::int as conversions, min(e.occurred_at) as first_at, max(e.occurred_at) as last_at,
        coalesce(sum(e.amount) filter (where e.currency = ${input.currency}), 0)::bigint as revenue
      from t join events e on e.id = t.event_id
      group by t.user_id
    ),
    cm as (
      select x.user_id,
        coalesce(sum(x.amount) filter (where x.status <> 'reversed' and x.currency = ${input.currency}), 0)::bigint as commissions,
        count(*)::int as n,
        (count(*) filter (where x.status = 'reversed'))::int as reversed,
        (count(*) filter (where x.status = 'reversed' and x.reversal_reason in ('refund', 'chargeback', 'partial_refund')))::int as refunded
      from commissions x where x.partner_id = ${input.partnerId}
      group by x.user_id
    )
    select ev.user_id, ev.conversions, ev.first_at, ev.last_at, ev.revenue,
      coalesce(cm.commissions, 0)::bigint as commissions, coalesce(cm.n, 0) as n, coalesce(cm.reversed, 0) as reversed,
      coalesce(cm.refunded, 0) as refunded, (count(*) over ())::int as total
    from ev left join cm on cm.user_id = ev.user_id
    order by ev.last_at desc, ev.user_id
    limit ${input.limit} offset ${input.offset}`;
  const total = rows[0]?.total ?? (input.offset > 0 ? await customerCount(sql, input.partnerId) : 0);
  return {
    total,
    rows: rows.map((r) => ({
      userId: r.user_id,
      conversions: r.conversions,
      firstAt: r.first_at,
      lastAt: r.last_at,
      revenue: r.revenue,
      commissions: r.commissions,
      state: r.n === 0 ? 'no_commission' : r.reversed === r.n ? 'reversed' : r.refunded > 0 ? 'refunded' : 'active',
    })),
  };
}

async function customerCount(sql: Sql, partnerId: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`select count(distinct user_id)::int as n from attributions where partner_id = ${partnerId}`;
  return row!.n;
}

/** The named partners (unknown ids left out), by name: what a bulk confirmation lists. */
export async function partnersByIds(sql: Sql, ids: string[]): Promise<{ id: string; name: string; email: string; status: PartnerStatsRow['status'] }[]> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return [];
  return sql<{ id: string; name: string; email: string; status: PartnerStatus }[]>`
    select id, name, email, partner_status(p) as status from partners p where id = any(${unique}) order by lower(name), id`;
}
