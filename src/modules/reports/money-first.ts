// Partners chosen by money before anything else is read (docs/analytics.md, "Where each is read"):
// the partners list sorted by commissions or revenue, the overview's top partners, and a campaign's
// partners (most commissions first). Each partner's sum is the one the page shows, taken from the
// money rows alone: the currency's rollup rows for whole days (the partner's own, or the partner's in
// the campaign), and for the raw spans (today, part-days) the sales found by their time
// (events_occurred_at) with their commissions (by event) or amounts. The page's or the leaders' other
// numbers (counts, clicks) are then read for those partners only.
import type { Sql } from '../../db';
import { earnedCommission, rollupRows, withinAny, type splitSpan } from './figures';

type Fragment = ReturnType<Sql>;
type Parts = ReturnType<typeof splitSpan>;

/**
 * `select partner_id, v`: every partner's `key` money in `currency` over the range, all of it or (with
 * `campaignId`) what it made in that campaign; partners without any are absent.
 */
function moneyOf(sql: Sql, parts: Parts, currency: string, key: 'commissions' | 'revenue', campaignId: string | null = null): Fragment {
  const span = parts.raw;
  const inCampaign = (column: string) => (campaignId === null ? sql`` : sql`and ${sql(column)} = ${campaignId}`);
  const rolled = key === 'commissions' ? sql`r.accrued + r.approved + r.paid` : sql`r.revenue`;
  const raw =
    key === 'commissions'
      ? sql`
        select c.partner_id, c.amount as v
        from events x join commissions c on c.event_id = x.id
        -- the sale's time only (a commission's occurred_at is its sale's): no index leads with the
        -- commissions' occurred_at, so for a day newer than the statistics the planner would take a
        -- condition on it for no rows, and join every partner to every sum (1.6 s, bench/README.md)
        where c.currency = ${currency} and ${earnedCommission(sql, 'c')} ${inCampaign('c.campaign_id')}
          ${withinAny(sql, 'x.occurred_at', span)}`
      : sql`
        select t.partner_id, e.amount as v
        from (
          select distinct a.partner_id, a.event_id
          from events x join attributions a on a.event_id = x.id
          where x.attribution_status = 'attributed' ${inCampaign('a.campaign_id')} ${withinAny(sql, 'x.occurred_at', span)}) t
        join events e on e.id = t.event_id
        where e.currency = ${currency}`;
  return sql`
    select partner_id, sum(v) as v from (
      select r.partner_id, ${rolled} as v
      from ${rollupRows(sql, 'rollup_facts', parts.days)} r
      -- (currency <> '', and campaign_id <> '' for a campaign, say whatever the plan that only these money
      -- rows are read: the partial indexes of 0070-0072)
      where r.partner_id <> '' and r.link_id = '' and r.currency = ${currency} and r.currency <> ''
        and ${campaignId === null ? sql`r.campaign_id = ''` : sql`r.campaign_id = ${campaignId} and r.campaign_id <> ''`}
      union all
      ${raw}
    ) m group by 1`;
}

/**
 * The ids of the partners list's page sorted by `key` money in `input.currency` (ties: newest
 * first), and how many partners match. `match` narrows the partners (`p`), `count` counts them for a
 * page past the end.
 */
export async function moneyPage(
  sql: Sql,
  match: { where: Fragment; count: () => Promise<number> },
  input: { currency: string; limit: number; offset: number },
  parts: Parts,
  key: 'commissions' | 'revenue',
  dir: Fragment,
): Promise<{ ids: string[]; total: number }> {
  const rows = await sql<{ id: string; total: number }[]>`
    with money as (${moneyOf(sql, parts, input.currency, key)})
    select p.id, count(*) over ()::int as total
    from partners p left join money on money.partner_id = p.id
    where true ${match.where}
    order by coalesce(money.v, 0) ${dir}, p.id desc
    limit ${input.limit} offset ${input.offset}`;
  const total = rows[0]?.total ?? (input.offset > 0 ? await match.count() : 0);
  return { ids: rows.map((r) => r.id), total };
}

/**
 * The partners among whom the top `limit` by commissions earned in `currency` are (the overview's
 * leaders, sorted by commissions first): every partner whose commissions reach the `limit`-th
 * largest, ties included. Null when fewer than `limit` partners earned any: the leaders then
 * include partners ranked by their other numbers, which only a read of every partner can order.
 * With `campaignId`: the partners holding that campaign, by what they earned in it.
 */
export async function commissionLeaders(sql: Sql, parts: Parts, currency: string, limit: number, campaignId: string | null = null): Promise<string[] | null> {
  const holding =
    campaignId === null ? sql`` : sql`and exists (select 1 from partner_campaigns pc where pc.partner_id = m.partner_id and pc.campaign_id = ${campaignId})`;
  const rows = await sql<{ partner_id: string; earners: number }[]>`
    with money as (${moneyOf(sql, parts, currency, 'commissions', campaignId)}),
    earners as (select m.partner_id, m.v from money m where m.v > 0 ${holding})
    select partner_id, (select count(*) from earners)::int as earners from earners
    where v >= (select min(v) from (select v from earners order by v desc limit ${limit}) top)`;
  return rows.length === 0 || rows[0]!.earners < limit ? null : rows.map((r) => r.partner_id);
}
