// Numbers for the admin campaign and webhook pages: a campaign's clicks, conversions, revenue and
// commissions in a date range (whole campaigns, per partner, per link), the event types seen, and
// per-endpoint webhook health with the exact bodies that were sent.
import type { Sql } from '../../db';
import { envelopeBody } from '../webhooks/service';
import type { PartnerStatus } from '../partners/model';
import { clickWithinAny, convertedClicks, earnedCommission, filteredClick, firstSale, partnerSales, rollupRows, splitSpan, withinAny } from './figures';
import { commissionLeaders } from './money-first';
import { earnedOf, rollCte, rolledOver } from './rollups';

type Fragment = ReturnType<Sql>;

/** A half-open time range [start, end). */
export type Span = { start: Date; end: Date };

/**
 * What a campaign (or a partner or link in it) did in a range, in the figures of ./figures.ts
 * (docs/analytics.md): credited clicks (filtered ones apart), converted clicks, first conversions,
 * the revenue of the range's sales and the commissions earned on them (not reversed), every sale
 * counted on the day it happened. Money is integer minor units.
 */
export type Numbers = { clicks: number; filteredClicks: number; convertedClicks: number; conversions: number; revenue: bigint; commissions: bigint };

/** Money per currency (percent commissions are in the event's currency, flat ones in the campaign's). */
export type CurrencyMoney = { currency: string; revenue: bigint; commissions: bigint };

export type CampaignNumbers = Numbers & { campaignId: string; partners: number; money: CurrencyMoney[] };

const ZERO: Numbers = { clicks: 0, filteredClicks: 0, convertedClicks: 0, conversions: 0, revenue: 0n, commissions: 0n };

/**
 * Per campaign of `campaignIds`: partners holding it (now), and the range's numbers. `revenue` and
 * `commissions` are in the campaign's own currency; `money` lists every currency (campaign's first).
 */
export async function campaignNumbers(sql: Sql, input: { campaignIds: string[] } & Span): Promise<Map<string, CampaignNumbers>> {
  const out = new Map<string, CampaignNumbers>();
  if (input.campaignIds.length === 0) return out;
  const { start, end } = input;
  const ids = input.campaignIds;
  // whole days from the campaigns' rollup rows, today (and part-days) from the rows themselves
  const parts = splitSpan({ start, end });
  const span = parts.raw;
  const rolledCampaigns = rolledOver(sql, 'campaign_id', sql`r.partner_id = '' and r.campaign_id = any(${ids}) and r.link_id = ''`, parts.days);
  const counts = sql<{ id: string; partners: number; clicks: number; filtered: number; converted: number; conversions: number }[]>`
    with k as (
      select l.campaign_id, count(*)::int as n, (count(*) filter (where ${filteredClick(sql, 'c')}))::int as filtered
      from links l join clicks c on c.link_id = l.id
      where l.campaign_id = any(${ids}) ${clickWithinAny(sql, 'c', span)} group by 1
    ),
    cv as (
      select t.campaign_id, count(distinct t.click_id)::int as n
      from (${convertedClicks(sql, sql`t.campaign_id = any(${ids})`, span)}) t group by 1
    ),
    v as (
      select s.campaign_id, (count(distinct s.user_id) filter (where s.first))::int as n
      from (${partnerSales(sql, sql`a.campaign_id = any(${ids})`, span, true)}) s group by 1
    ),
    p as (select campaign_id, count(*)::int as n from partner_campaigns where campaign_id = any(${ids}) group by 1)
    select c.id, coalesce(p.n, 0) as partners, coalesce(k.n, 0) - coalesce(k.filtered, 0) as clicks, coalesce(k.filtered, 0) as filtered,
           coalesce(cv.n, 0) as converted, coalesce(v.n, 0) as conversions
    from campaigns c
    left join p on p.campaign_id = c.id left join k on k.campaign_id = c.id left join cv on cv.campaign_id = c.id left join v on v.campaign_id = c.id
    where c.id = any(${ids})`;
  const money = sql<{ campaign_id: string; currency: string; revenue: bigint; commissions: bigint }[]>`
    with r as (
      select x.campaign_id, e.currency, sum(e.amount)::bigint as n
      from (select distinct campaign_id, event_id from (${partnerSales(sql, sql`a.campaign_id = any(${ids})`, span, true)}) s) x
      join events e on e.id = x.event_id
      where e.amount is not null
      group by 1, 2
    ),
    m as (
      select x.campaign_id, x.currency, sum(x.amount)::bigint as n from commissions x
      where x.campaign_id = any(${ids}) ${withinAny(sql, 'x.occurred_at', span)} and ${earnedCommission(sql, 'x')}
      group by 1, 2
    )
    select coalesce(r.campaign_id, m.campaign_id) as campaign_id, coalesce(r.currency, m.currency) as currency,
           coalesce(r.n, 0)::bigint as revenue, coalesce(m.n, 0)::bigint as commissions
    from r full join m on m.campaign_id = r.campaign_id and m.currency = r.currency`;
  const [countRows, moneyRows, currencies, rolled] = await Promise.all([
    counts,
    money,
    sql<{ id: string; currency: string }[]>`select id, currency from campaigns where id = any(${ids})`,
    rolledCampaigns,
  ]);
  const currencyOf = new Map(currencies.map((c) => [c.id, c.currency]));
  for (const row of countRows) {
    const r = rolled.get(row.id);
    out.set(row.id, {
      campaignId: row.id,
      partners: row.partners,
      clicks: row.clicks + (r?.clicks ?? 0),
      filteredClicks: row.filtered + (r?.filtered ?? 0),
      convertedClicks: row.converted + (r?.converted ?? 0),
      conversions: row.conversions + (r?.customers ?? 0),
      revenue: 0n,
      commissions: 0n,
      money: [],
    });
  }
  const moneyOf = new Map<string, { campaign_id: string; currency: string; revenue: bigint; commissions: bigint }>();
  const addMoney = (campaignId: string, currency: string, revenue: bigint, commissions: bigint) => {
    const key = `${campaignId} ${currency}`;
    const o = moneyOf.get(key);
    moneyOf.set(key, { campaign_id: campaignId, currency, revenue: (o?.revenue ?? 0n) + revenue, commissions: (o?.commissions ?? 0n) + commissions });
  };
  for (const row of moneyRows) addMoney(row.campaign_id, row.currency, BigInt(row.revenue), BigInt(row.commissions));
  for (const [id, r] of rolled) for (const m of r.money) if (m.revenue !== 0n || earnedOf(m) !== 0n) addMoney(id, m.currency, m.revenue, earnedOf(m));
  for (const row of [...moneyOf.values()].sort((a, b) => (a.currency < b.currency ? -1 : 1))) {
    const entry = out.get(row.campaign_id);
    if (!entry) continue;
    const m = { currency: row.currency, revenue: row.revenue, commissions: row.commissions };
    if (row.currency === currencyOf.get(row.campaign_id)) {
      entry.revenue = m.revenue;
      entry.commissions = m.commissions;
      entry.money.unshift(m);
    } else entry.money.push(m);
  }
  return out;
}

/** The numbers of one campaign (zeros for an unknown id). */
export async function campaignTotals(sql: Sql, input: { campaignId: string } & Span): Promise<CampaignNumbers> {
  const found = (await campaignNumbers(sql, { campaignIds: [input.campaignId], start: input.start, end: input.end })).get(input.campaignId);
  return found ?? { campaignId: input.campaignId, partners: 0, money: [], ...ZERO };
}

/** The numbers of a per-partner or per-link query as it selects them (numberColumns). */
type NumberRow = { clicks: number; filtered: number; converted: number; conversions: number; revenue: bigint; commissions: bigint };

/**
 * The numbers columns of a per-partner or per-link query, from its CTEs k (clicks, filtered apart),
 * cv (converted clicks), v (first conversions, revenue), m (commissions) and roll (rollup days).
 */
const numberColumns = (sql: Sql) => sql`
           coalesce(raw.clicks, 0) - coalesce(raw.filtered, 0) + coalesce(roll.clicks, 0) as clicks, coalesce(raw.filtered, 0) + coalesce(roll.filtered, 0) as filtered,
           coalesce(raw.converted, 0) + coalesce(roll.converted, 0) as converted,
           coalesce(raw.conversions, 0) + coalesce(roll.conversions, 0) as conversions, (coalesce(raw.revenue, 0) + coalesce(roll.revenue, 0))::bigint as revenue,
           (coalesce(raw.commissions, 0) + coalesce(roll.commissions, 0))::bigint as commissions`;

/**
 * `raw as (...)`: the raw spans' numbers (the CTEs k, cv, v and m, each keyed by `key`) in one row
 * per partner or link, so the list joins one relation of the raw numbers, not four whose small
 * estimates would make PostgreSQL compare every pair of rows.
 */
const rawCte = (sql: Sql, key: 'partner_id' | 'link_id') => sql`raw as (
      select x.key, sum(x.clicks)::int as clicks, sum(x.filtered)::int as filtered, sum(x.converted)::int as converted,
        sum(x.conversions)::int as conversions, sum(x.revenue)::bigint as revenue, sum(x.commissions)::bigint as commissions
      from (
        select ${sql(key)} as key, n as clicks, filtered, 0 as converted, 0 as conversions, 0::bigint as revenue, 0::bigint as commissions from k
        union all select ${sql(key)}, 0, 0, n, 0, 0, 0 from cv
        union all select ${sql(key)}, 0, 0, 0, n, revenue, 0 from v
        union all select ${sql(key)}, 0, 0, 0, 0, 0, n from m
      ) x
      group by x.key
    )`;

const numbersOf = (r: NumberRow): Numbers => ({
  clicks: r.clicks,
  filteredClicks: r.filtered,
  convertedClicks: r.converted,
  conversions: r.conversions,
  revenue: BigInt(r.revenue),
  commissions: BigInt(r.commissions),
});

export type CampaignPartner = Numbers & { id: string; name: string; email: string; status: PartnerStatus };

/**
 * The partners holding a campaign, with their numbers in it for the range (money in the campaign's
 * currency): the `limit` with the most commissions, then clicks; `total` counts them all. The page is
 * chosen among the biggest earners in the campaign first (commissionLeaders), whose numbers alone are
 * then read; when fewer than `limit` earned anything, every partner's are.
 */
export async function campaignPartners(
  sql: Sql,
  input: { campaignId: string; currency: string; limit: number } & Span,
): Promise<{ partners: CampaignPartner[]; total: number }> {
  const { campaignId: id, start, end, currency } = input;
  const parts = splitSpan({ start, end });
  const span = parts.raw;
  const among = await commissionLeaders(sql, parts, currency, input.limit, id);
  const only = (column: string): Fragment => (among === null ? sql`` : sql`and ${sql(column)} = any(${among}::text[])`);
  const rows = await sql<
    (NumberRow & { id: string; name: string; email: string; status: CampaignPartner['status']; total: number })[]
  >`
    with k as (
      select c.partner_id, count(*)::int as n, (count(*) filter (where ${filteredClick(sql, 'c')}))::int as filtered
      from links l join clicks c on c.link_id = l.id
      where l.campaign_id = ${id} ${only('l.partner_id')} ${clickWithinAny(sql, 'c', span)} group by 1
    ),
    cv as (
      select t.partner_id, count(distinct t.click_id)::int as n from (${convertedClicks(sql, sql`t.campaign_id = ${id} ${only('t.partner_id')}`, span)}) t group by 1
    ),
    v as (
      select x.partner_id, (count(distinct x.user_id) filter (where x.first))::int as n,
        coalesce(sum(e.amount) filter (where e.currency = ${currency}), 0)::bigint as revenue
      from (${partnerSales(sql, sql`a.campaign_id = ${id} ${only('a.partner_id')}`, span)}) x join events e on e.id = x.event_id group by 1
    ),
    m as (
      select x.partner_id, sum(x.amount)::bigint as n from commissions x
      where x.campaign_id = ${id} ${only('x.partner_id')} ${withinAny(sql, 'x.occurred_at', span)} and ${earnedCommission(sql, 'x')} and x.currency = ${currency}
      group by 1
    ),
    ${rawCte(sql, 'partner_id')},
    ${rollCte(sql, 'partner_id', sql`r.partner_id <> '' and r.campaign_id = ${id} and r.link_id = '' ${only('r.partner_id')}`, currency, parts.days)}
    select p.id, p.name, p.email,
           partner_status(p) as status,
           ${numberColumns(sql)}, count(*) over ()::int as total
    from partner_campaigns pc
    join partners p on p.id = pc.partner_id
    left join raw on raw.key = p.id
    left join roll on roll.k = p.id
    where pc.campaign_id = ${id} ${only('pc.partner_id')}
    order by coalesce(raw.commissions, 0) + coalesce(roll.commissions, 0) desc, coalesce(raw.clicks, 0) - coalesce(raw.filtered, 0) + coalesce(roll.clicks, 0) desc, p.name, p.id
    limit ${input.limit}`;
  const [held] = among === null ? [{ n: rows[0]?.total ?? 0 }] : await sql<{ n: number }[]>`select count(*)::int as n from partner_campaigns where campaign_id = ${id}`;
  return {
    total: held!.n,
    partners: rows.map((r) => ({
      id: r.id,
      name: r.name,
      email: r.email,
      status: r.status,
      ...numbersOf(r),
    })),
  };
}

export type CampaignLink = Numbers & { id: string; slug: string; partnerId: string; partnerName: string };

/**
 * A campaign's share links with their numbers for the range (money in the campaign's currency): the
 * `limit` with the most clicks, then the newest; `total` counts them all. A conversion belongs to the
 * link of the click its attribution credits.
 */
export async function campaignLinks(
  sql: Sql,
  input: { campaignId: string; currency: string; limit: number } & Span,
): Promise<{ links: CampaignLink[]; total: number }> {
  const { campaignId: id, start, end, currency } = input;
  const parts = splitSpan({ start, end });
  const span = parts.raw;
  // the page (most clicks first) is chosen from the clicks alone, then only its links' numbers are
  // read. The choice reads today from the rollups too (exact at every moment: their views add the
  // deltas not folded yet), so it reads no clicks of today; the numbers shown read today's rows.
  const page = await linkPage(sql, id, splitSpan({ start, end }, end), input.limit);
  const rows = await sql<
    (NumberRow & { id: string; slug: string; partner_id: string; partner_name: string; total: number })[]
  >`
    with k as (
      select c.link_id, count(*)::int as n, (count(*) filter (where ${filteredClick(sql, 'c')}))::int as filtered
      from links l join clicks c on c.link_id = l.id
      where l.campaign_id = ${id} and l.id = any(${page.ids}::text[]) ${clickWithinAny(sql, 'c', span)} group by 1
    ),
    cv as (
      select c.link_id, count(*)::int as n
      from (${convertedClicks(sql, sql`t.campaign_id = ${id}`, span)}) t join clicks c on c.id = t.click_id group by 1
    ),
    a as (
      select a.id, a.event_id, a.user_id, a.occurred_at, l.link_id from attributions a
      cross join lateral partnerd_attribution_links(a.user_id, a.click_id) l
      where a.click_id is not null and a.campaign_id = ${id} ${withinAny(sql, 'a.occurred_at', span)}
    ),
    v as (
      select x.link_id, (count(distinct x.user_id) filter (where x.first))::int as n,
        coalesce(sum(e.amount) filter (where e.currency = ${currency}), 0)::bigint as revenue
      from (select distinct link_id, event_id, user_id, ${firstSale(sql, 'a.user_id', 'a.occurred_at')} as first from a) x
      join events e on e.id = x.event_id group by 1
    ),
    m as (
      select a.link_id, sum(m.amount)::bigint as n from commissions m join a on a.id = m.attribution_id
      where m.campaign_id = ${id} ${withinAny(sql, 'm.occurred_at', span)} and ${earnedCommission(sql, 'm')} and m.currency = ${currency} group by 1
    ),
    ${rawCte(sql, 'link_id')},
    ${rollCte(sql, 'link_id', sql`r.campaign_id = ${id} and r.link_id = any(${page.ids}::text[])`, currency, parts.days)}
    select l.id, l.slug, l.partner_id, p.name as partner_name,
           ${numberColumns(sql)}
    from links l
    join partners p on p.id = l.partner_id
    left join raw on raw.key = l.id
    left join roll on roll.k = l.id
    where l.campaign_id = ${id} and l.id = any(${page.ids}::text[])
    order by coalesce(raw.clicks, 0) - coalesce(raw.filtered, 0) + coalesce(roll.clicks, 0) desc, l.id desc`;
  return {
    total: page.total,
    links: rows.map((r) => ({
      id: r.id,
      slug: r.slug,
      partnerId: r.partner_id,
      partnerName: r.partner_name,
      ...numbersOf(r),
    })),
  };
}

/**
 * The ids of a campaign's `limit` links with the most credited clicks in the range (then the
 * newest), and how many links it has: the rollups' count rows for `parts`' whole days, the clicks
 * themselves for its raw spans.
 */
async function linkPage(sql: Sql, id: string, parts: ReturnType<typeof splitSpan>, limit: number): Promise<{ ids: string[]; total: number }> {
  const rows = await sql<{ id: string; total: number }[]>`
    with roll as (
      select r.link_id, sum(r.clicks) as n from ${rollupRows(sql, 'rollup_facts', parts.days)} r
      where r.campaign_id = ${id} and r.link_id <> '' and r.currency = '' group by 1
    ),
    raw as (
      select c.link_id, count(*) filter (where not ${filteredClick(sql, 'c')}) as n
      from links l join clicks c on c.link_id = l.id
      where l.campaign_id = ${id} ${clickWithinAny(sql, 'c', parts.raw)} group by 1
    )
    select l.id, count(*) over ()::int as total
    from links l left join roll on roll.link_id = l.id left join raw on raw.link_id = l.id
    where l.campaign_id = ${id}
    order by coalesce(raw.n, 0) + coalesce(roll.n, 0) desc, l.id desc
    limit ${limit}`;
  return { ids: rows.map((r) => r.id), total: rows[0]?.total ?? 0 };
}

/**
 * Event types the rule editor offers besides the standard ones: the types of the newest 10,000
 * events (bounded, by primary key: the events table is the largest) and those campaign rules name.
 */
export async function seenEventTypes(sql: Sql, input: { exclude: string[] }): Promise<string[]> {
  const rows = await sql<{ type: string }[]>`
    select type from (select type from events order by id desc limit 10000) recent
    union
    select r ->> 'eventType' from campaigns c, jsonb_array_elements(c.rules) r
    order by 1
    limit 200`;
  return rows.map((r) => r.type).filter((t) => t && !input.exclude.includes(t));
}

// ---------------------------------------------------------------------------------------------
// Webhooks

export type EndpointHealth = {
  endpointId: string;
  /** The newest attempt (pending ones too). */
  last: { status: 'pending' | 'succeeded' | 'failed'; at: string } | null;
  /** Finished attempts among the newest 50, and how many of them succeeded. */
  finished: number;
  succeeded: number;
  /** Failed finished attempts since the last success (within the newest 50). */
  failingStreak: number;
};

/** Health per endpoint from its newest 50 delivery attempts (one query, the endpoint index). */
export async function endpointHealth(sql: Sql, endpointIds: string[]): Promise<Map<string, EndpointHealth>> {
  const out = new Map<string, EndpointHealth>();
  if (endpointIds.length === 0) return out;
  const rows = await sql<{ endpoint_id: string; status: 'pending' | 'succeeded' | 'failed'; created_at: Date; rn: number }[]>`
    select e.id as endpoint_id, d.status, d.created_at, d.rn
    from unnest(${endpointIds}::text[]) as e(id)
    cross join lateral (
      select status, created_at, row_number() over (order by id desc)::int as rn
      from webhook_deliveries where endpoint_id = e.id order by id desc limit 50
    ) d
    order by e.id, d.rn`;
  for (const id of endpointIds) out.set(id, { endpointId: id, last: null, finished: 0, succeeded: 0, failingStreak: 0 });
  // a streak counts failures from the newest attempt back to the first success
  const streakOpen = new Set(endpointIds);
  for (const row of rows) {
    const h = out.get(row.endpoint_id)!;
    if (row.rn === 1) h.last = { status: row.status, at: row.created_at.toISOString() };
    if (row.status === 'pending') continue;
    h.finished++;
    if (row.status === 'succeeded') {
      h.succeeded++;
      streakOpen.delete(row.endpoint_id);
    } else if (streakOpen.has(row.endpoint_id)) h.failingStreak++;
  }
  return out;
}

/** The exact request bodies sent for these deliveries (the envelope is the same for every attempt). */
export async function deliveryBodies(sql: Sql, deliveryIds: string[]): Promise<Map<string, string>> {
  if (deliveryIds.length === 0) return new Map();
  const rows = await sql<{ id: string; event_id: string; type: string; created_at: Date; data: string }[]>`
    select d.id, ev.id as event_id, ev.type, ev.created_at, ev.data::text as data
    from webhook_deliveries d join webhook_events ev on ev.id = d.event_id
    where d.id = any(${deliveryIds})`;
  return new Map(rows.map((r) => [r.id, envelopeBody({ id: r.event_id, type: r.type, created_at: r.created_at, data: r.data })]));
}
