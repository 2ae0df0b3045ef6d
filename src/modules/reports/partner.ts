// One partner's numbers for its admin page: its figures over a range and the period before it, its
// money by status, and its links' numbers. The figures are those of ./figures.ts (docs/analytics.md).
import type { Sql } from '../../db';
import { clickWithinAny, convertedClicks, earnedCommission, filteredClick, firstSale, partnerSales, splitSpan, withinAny, type Span } from './figures';
import { earnedOf, grain, rolledOver } from './rollups';

/** Credited clicks, filtered clicks, converted clicks and first conversions of a range. */
export type PartnerFigures = { clicks: number; filteredClicks: number; convertedClicks: number; conversions: number };

export type PartnerCounts = PartnerFigures & { previous: PartnerFigures | null };

async function partnerFigures(sql: Sql, partnerId: string, span: Span): Promise<PartnerFigures> {
  const parts = splitSpan(span);
  const [rolled, raw] = await Promise.all([
    rolledOver(sql, null, grain(sql, { partnerId }), parts.days),
    parts.raw.length > 0 ? rawPartnerFigures(sql, partnerId, parts.raw) : Promise.resolve({ clicks: 0, filteredClicks: 0, convertedClicks: 0, conversions: 0 }),
  ]);
  const r = rolled.get('');
  return {
    clicks: raw.clicks + (r?.clicks ?? 0),
    filteredClicks: raw.filteredClicks + (r?.filtered ?? 0),
    convertedClicks: raw.convertedClicks + (r?.converted ?? 0),
    conversions: raw.conversions + (r?.customers ?? 0),
  };
}

/** The figures of the rows themselves over a few short spans (today, part-days). */
async function rawPartnerFigures(sql: Sql, partnerId: string, spans: Span[]): Promise<PartnerFigures> {
  const [row] = await sql<{ clicks: number; filtered: number; converted: number; conversions: number }[]>`
    select
      (select count(*) from clicks c where c.partner_id = ${partnerId} ${clickWithinAny(sql, 'c', spans)})::int as clicks,
      (select count(*) from clicks c where ${filteredClick(sql, 'c')} and c.partner_id = ${partnerId} ${clickWithinAny(sql, 'c', spans)})::int as filtered,
      (select count(*) from (${convertedClicks(sql, sql`t.partner_id = ${partnerId}`, spans)}) x)::int as converted,
      (select count(distinct s.user_id) filter (where s.first) from (${partnerSales(sql, sql`a.partner_id = ${partnerId}`, spans)}) s)::int as conversions`;
  return { clicks: row!.clicks - row!.filtered, filteredClicks: row!.filtered, convertedClicks: row!.converted, conversions: row!.conversions };
}

/** One partner's figures over `span`, and over the period of equal length before it. */
export async function partnerCounts(sql: Sql, input: { partnerId: string; span: Span; previous: { start: Date; end: Date } | null }): Promise<PartnerCounts> {
  const [current, previous] = await Promise.all([
    partnerFigures(sql, input.partnerId, input.span),
    input.previous ? partnerFigures(sql, input.partnerId, input.previous) : Promise.resolve(null),
  ]);
  return { ...current, previous };
}

export type PartnerMoney = { currency: string; revenue: bigint; accrued: bigint; approved: bigint; paid: bigint; reversed: bigint };

/**
 * One partner's money over `span`, one row per currency: the revenue of its sales in the range and
 * the commissions on them by status (each counted on the day its sale happened).
 */
export async function partnerMoney(sql: Sql, input: { partnerId: string; span: Span }): Promise<PartnerMoney[]> {
  const parts = splitSpan(input.span);
  const [rolled, raw] = await Promise.all([
    rolledOver(sql, null, grain(sql, { partnerId: input.partnerId }), parts.days),
    parts.raw.length > 0 ? rawPartnerMoney(sql, { partnerId: input.partnerId, spans: parts.raw }) : Promise.resolve([]),
  ]);
  const out = new Map<string, PartnerMoney>();
  const add = (m: PartnerMoney) => {
    const o = out.get(m.currency) ?? { currency: m.currency, revenue: 0n, accrued: 0n, approved: 0n, paid: 0n, reversed: 0n };
    out.set(m.currency, { currency: m.currency, revenue: o.revenue + m.revenue, accrued: o.accrued + m.accrued, approved: o.approved + m.approved, paid: o.paid + m.paid, reversed: o.reversed + m.reversed });
  };
  for (const m of rolled.get('')?.money ?? []) add(m);
  for (const m of raw) add(m);
  return [...out.values()].sort((a, b) => (a.currency < b.currency ? -1 : 1));
}

async function rawPartnerMoney(sql: Sql, input: { partnerId: string; spans: Span[] }): Promise<PartnerMoney[]> {
  const rows = await sql<{ currency: string; revenue: bigint; accrued: bigint; approved: bigint; paid: bigint; reversed: bigint }[]>`
    with r as (
      select e.currency, sum(e.amount)::bigint as revenue
      from (${partnerSales(sql, sql`a.partner_id = ${input.partnerId}`, input.spans)}) t
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
      where x.partner_id = ${input.partnerId} ${withinAny(sql, 'x.occurred_at', input.spans)}
      group by x.currency
    )
    select coalesce(r.currency, m.currency) as currency, coalesce(r.revenue, 0)::bigint as revenue,
      coalesce(m.accrued, 0)::bigint as accrued, coalesce(m.approved, 0)::bigint as approved,
      coalesce(m.paid, 0)::bigint as paid, coalesce(m.reversed, 0)::bigint as reversed
    from r full join m on m.currency = r.currency
    order by 1`;
  return rows.map((r) => ({ currency: r.currency, revenue: r.revenue, accrued: r.accrued, approved: r.approved, paid: r.paid, reversed: r.reversed }));
}

export type LinkStatsRow = {
  id: string;
  slug: string;
  campaignId: string;
  createdAt: Date;
  /** credited clicks */
  clicks: number;
  filteredClicks: number;
  convertedClicks: number;
  /** first conversions through this link */
  conversions: number;
  revenue: bigint;
  commissions: bigint;
};

/**
 * Each of the partner's links (newest first, at most `limit`) with its figures over `span` in
 * `currency`: a sale or commission belongs to the link of the click its touch came through.
 */
export async function linkStats(sql: Sql, input: { partnerId: string; span: Span; currency: string; limit: number }): Promise<LinkStatsRow[]> {
  const parts = splitSpan(input.span);
  const [rows, rolled] = await Promise.all([
    rawLinkStats(sql, { partnerId: input.partnerId, spans: parts.raw, currency: input.currency, limit: input.limit }),
    rolledOver(sql, 'link_id', sql`r.partner_id = ${input.partnerId} and r.link_id <> ''`, parts.days),
  ]);
  return rows.map((row) => {
    const r = rolled.get(row.id);
    if (!r) return row;
    const m = r.money.find((x) => x.currency === input.currency);
    return {
      ...row,
      clicks: row.clicks + r.clicks,
      filteredClicks: row.filteredClicks + r.filtered,
      convertedClicks: row.convertedClicks + r.converted,
      conversions: row.conversions + r.customers,
      revenue: row.revenue + (m?.revenue ?? 0n),
      commissions: row.commissions + (m ? earnedOf(m) : 0n),
    };
  });
}

async function rawLinkStats(sql: Sql, input: { partnerId: string; spans: Span[]; currency: string; limit: number }): Promise<LinkStatsRow[]> {
  const span = input.spans;
  const rows = await sql<{ id: string; slug: string; campaign_id: string; created_at: Date; clicks: number; filtered: number; converted: number; conversions: number; revenue: bigint; commissions: bigint }[]>`
    with l as (
      select id, slug, campaign_id, created_at from links where partner_id = ${input.partnerId} order by id desc limit ${input.limit}
    ),
    k as (
      select c.link_id, count(*)::int as n, (count(*) filter (where ${filteredClick(sql, 'c')}))::int as filtered from clicks c
      where c.partner_id = ${input.partnerId} ${clickWithinAny(sql, 'c', span)}
      group by c.link_id
    ),
    cv as (
      select c.link_id, count(*)::int as n
      from (${convertedClicks(sql, sql`t.partner_id = ${input.partnerId}`, span)}) t join clicks c on c.id = t.click_id
      group by c.link_id
    ),
    t as (
      -- the link through the customer's touch, which outlives its click (CLICK_RETENTION_DAYS)
      select distinct l.link_id, a.event_id, a.user_id, ${firstSale(sql, 'a.user_id', 'a.occurred_at')} as first
      from attributions a cross join lateral partnerd_attribution_links(a.user_id, a.click_id) l
      where a.click_id is not null and a.partner_id = ${input.partnerId} ${withinAny(sql, 'a.occurred_at', span)}
    ),
    v as (
      select t.link_id, (count(distinct t.user_id) filter (where t.first))::int as n,
        coalesce(sum(e.amount) filter (where e.currency = ${input.currency}), 0)::bigint as revenue
      from t join events e on e.id = t.event_id group by t.link_id
    ),
    m as (
      select l.link_id, sum(x.amount)::bigint as amount
      from commissions x join attributions a on a.id = x.attribution_id
      cross join lateral partnerd_attribution_links(a.user_id, a.click_id) l
      where a.click_id is not null and x.partner_id = ${input.partnerId} and x.currency = ${input.currency} and ${earnedCommission(sql, 'x')} ${withinAny(sql, 'x.occurred_at', span)}
      group by 1
    )
    select l.id, l.slug, l.campaign_id, l.created_at, coalesce(k.n, 0) - coalesce(k.filtered, 0) as clicks, coalesce(k.filtered, 0) as filtered,
      coalesce(cv.n, 0) as converted, coalesce(v.n, 0) as conversions,
      coalesce(v.revenue, 0)::bigint as revenue, coalesce(m.amount, 0)::bigint as commissions
    from l left join k on k.link_id = l.id left join cv on cv.link_id = l.id left join v on v.link_id = l.id left join m on m.link_id = l.id
    order by l.id desc`;
  return rows.map((r) => ({
    id: r.id,
    slug: r.slug,
    campaignId: r.campaign_id,
    createdAt: r.created_at,
    clicks: r.clicks,
    filteredClicks: r.filtered,
    convertedClicks: r.converted,
    conversions: r.conversions,
    revenue: r.revenue,
    commissions: r.commissions,
  }));
}
