// The funnel (DESIGN "Analytics that stay fast as data grows"): clicks -> leads -> customers -> revenue
// for the whole program, a partner, a campaign, a link (or a partner within a campaign), over a range.
// Whole UTC days are read from the rollups' day rows, today and part-days from the rows themselves
// (splitSpan), exactly as every other figure (docs/analytics.md):
//
// - clicks: credited clicks, on the click's time;
// - leads: attributed `signup` events, each once, on the event's occurredAt;
// - customers: customers whose first sale happened in the range (the conversions of every page);
// - revenue: the full amount of the range's attributed sales, per currency.
//
// Money comes per day and currency (revenue, and the commissions earned on those sales), so a caller
// can convert it to REPORTING_CURRENCY at each day's rate (modules/fx/service.ts).
import type { Sql } from '../../db';
import { clickWithinAny, creditedClick, earnedCommission, firstSale, idWithinAny, splitSpan, withinAny, type Span } from './figures';

type Fragment = ReturnType<Sql>;

const isoDay = (d: Date) => d.toISOString().slice(0, 10);

/** Whose funnel: the program's (nothing set), a partner's, a campaign's, a link's, or together. */
export type FunnelScope = { partnerId?: string; campaignId?: string; linkId?: string };

/** One day's money in one currency (minor units): revenue and commissions earned (not reversed). */
export type DayMoney = { day: string; currency: string; revenue: bigint; commissions: bigint };

export type FunnelCounts = { clicks: number; leads: number; customers: number };

export type Funnel = FunnelCounts & {
  /** Revenue per currency, biggest first. */
  revenue: { currency: string; amount: bigint }[];
  /** Revenue and earned commissions per day and currency, for conversion. */
  daily: DayMoney[];
};

/** The rollup rows of a scope's grain (`r`: a row of rollup_facts). */
function grainOf(sql: Sql, scope: FunnelScope): Fragment {
  if (scope.linkId) {
    return sql`r.link_id = ${scope.linkId} ${scope.partnerId ? sql`and r.partner_id = ${scope.partnerId}` : sql``} ${scope.campaignId ? sql`and r.campaign_id = ${scope.campaignId}` : sql``}`;
  }
  return sql`r.partner_id = ${scope.partnerId ?? ''} and r.campaign_id = ${scope.campaignId ?? ''} and r.link_id = ''`;
}

const program = (scope: FunnelScope) => !scope.partnerId && !scope.campaignId && !scope.linkId;

/** The scope as conditions on attributions `a` (a link: the link of the click its touch came through). */
function attributionScope(sql: Sql, scope: FunnelScope): Fragment {
  return sql`${scope.partnerId ? sql`and a.partner_id = ${scope.partnerId}` : sql``}
    ${scope.campaignId ? sql`and a.campaign_id = ${scope.campaignId}` : sql``}
    ${scope.linkId ? sql`and a.partner_id = (select l.partner_id from links l where l.id = ${scope.linkId}) and a.click_id is not null and exists (select 1 from partnerd_attribution_links(a.user_id, a.click_id) l where l.link_id = ${scope.linkId})` : sql``}`;
}

/** The funnel of `scope` over `span`. */
export async function funnel(sql: Sql, scope: FunnelScope, span: Span, now: Date = new Date()): Promise<Funnel> {
  const parts = splitSpan(span, now);
  const [rolled, raw] = await Promise.all([rolledFunnel(sql, scope, parts.days), parts.raw.length > 0 ? rawFunnel(sql, scope, parts.raw) : Promise.resolve(null)]);
  const daily = new Map<string, DayMoney>();
  for (const m of [...rolled.daily, ...(raw?.daily ?? [])]) {
    const key = `${m.day} ${m.currency}`;
    const o = daily.get(key);
    daily.set(key, o ? { ...o, revenue: o.revenue + m.revenue, commissions: o.commissions + m.commissions } : m);
  }
  const days = [...daily.values()].filter((m) => m.revenue !== 0n || m.commissions !== 0n).sort((a, b) => (a.day !== b.day ? (a.day < b.day ? -1 : 1) : a.currency < b.currency ? -1 : 1));
  const revenue = new Map<string, bigint>();
  for (const m of days) revenue.set(m.currency, (revenue.get(m.currency) ?? 0n) + m.revenue);
  return {
    clicks: rolled.clicks + (raw?.clicks ?? 0),
    leads: rolled.leads + (raw?.leads ?? 0),
    customers: rolled.customers + (raw?.customers ?? 0),
    revenue: [...revenue]
      .filter(([, amount]) => amount !== 0n)
      .map(([currency, amount]) => ({ currency, amount }))
      .sort((a, b) => (a.amount !== b.amount ? (a.amount > b.amount ? -1 : 1) : a.currency < b.currency ? -1 : 1)),
    daily: days,
  };
}

type Part = FunnelCounts & { daily: DayMoney[] };

/** Whole days from the rollups' day rows (day rows, not month rows: money converts per day). */
async function rolledFunnel(sql: Sql, scope: FunnelScope, days: ReturnType<typeof splitSpan>['days']): Promise<Part> {
  if (!days) return { clicks: 0, leads: 0, customers: 0, daily: [] };
  const rows = await sql<{ day: string; currency: string; clicks: number; leads: number; customers: number; revenue: string; commissions: string }[]>`
    select to_char(r.day, 'YYYY-MM-DD') as day, r.currency, sum(r.clicks)::int as clicks, sum(r.leads)::int as leads, sum(r.customers)::int as customers,
      sum(r.revenue)::text as revenue, sum(r.accrued + r.approved + r.paid)::text as commissions
    from rollup_facts r
    where ${grainOf(sql, scope)} and r.unit = 'd' ${days.from ? sql`and r.day >= ${isoDay(days.from)}::date` : sql``} and r.day < ${isoDay(days.to)}::date
    group by 1, 2`;
  const out: Part = { clicks: 0, leads: 0, customers: 0, daily: [] };
  for (const r of rows) {
    if (r.currency === '') {
      out.clicks += r.clicks;
      out.leads += r.leads;
      out.customers += r.customers;
    } else out.daily.push({ day: r.day, currency: r.currency, revenue: BigInt(r.revenue), commissions: BigInt(r.commissions) });
  }
  return out;
}

/** Today and part-days from the rows themselves: one statement. */
async function rawFunnel(sql: Sql, scope: FunnelScope, spans: Span[]): Promise<Part> {
  const whole = program(scope);
  const clickScope = sql`${scope.partnerId ? sql`and c.partner_id = ${scope.partnerId}` : sql``}
    ${scope.campaignId ? sql`and c.campaign_id = ${scope.campaignId}` : sql``}
    ${scope.linkId ? sql`and c.link_id = ${scope.linkId}` : sql``}`;
  // by a link or a partner: their (…, created_at) indexes; otherwise the ids' time
  const clickTime = scope.linkId || scope.partnerId ? clickWithinAny(sql, 'c', spans) : idWithinAny(sql, 'c.id', 'click', spans);
  const sales = whole
    ? sql`select e.id as event_id, e.user_id, e.type, e.amount, e.currency, to_char(e.occurred_at at time zone 'UTC', 'YYYY-MM-DD') as day,
          ${firstSale(sql, 'e.user_id', 'e.occurred_at')} as first
        from events e where e.attribution_status = 'attributed' ${withinAny(sql, 'e.occurred_at', spans)}`
    : sql`select distinct a.event_id, e.user_id, e.type, e.amount, e.currency, to_char(e.occurred_at at time zone 'UTC', 'YYYY-MM-DD') as day,
          ${firstSale(sql, 'a.user_id', 'a.occurred_at')} as first
        from attributions a join events e on e.id = a.event_id
        where true ${attributionScope(sql, scope)} ${withinAny(sql, 'a.occurred_at', spans)}`;
  const commissions = whole
    ? sql`select to_char(x.occurred_at at time zone 'UTC', 'YYYY-MM-DD') as day, x.currency, sum(x.amount)::bigint as amount
        from commissions x where ${earnedCommission(sql, 'x')} ${withinAny(sql, 'x.occurred_at', spans)} group by 1, 2`
    : sql`select to_char(x.occurred_at at time zone 'UTC', 'YYYY-MM-DD') as day, x.currency, sum(x.amount)::bigint as amount
        from commissions x ${scope.linkId ? sql`join attributions a on a.id = x.attribution_id` : sql``}
        where ${earnedCommission(sql, 'x')}
          ${scope.partnerId ? sql`and x.partner_id = ${scope.partnerId}` : sql``}
          ${scope.campaignId ? sql`and x.campaign_id = ${scope.campaignId}` : sql``}
          ${scope.linkId ? sql`and x.partner_id = (select l.partner_id from links l where l.id = ${scope.linkId}) and a.click_id is not null and exists (select 1 from partnerd_attribution_links(a.user_id, a.click_id) l where l.link_id = ${scope.linkId})` : sql``}
          ${withinAny(sql, 'x.occurred_at', spans)}
        group by 1, 2`;
  const [row] = await sql<{ clicks: number; leads: number; customers: number; money: { day: string; currency: string; revenue: string; commissions: string }[] | null }[]>`
    with s as materialized (${sales}),
    rev as (select day, currency, sum(amount)::bigint as amount from s where currency is not null group by 1, 2),
    com as (${commissions}),
    money as (
      select coalesce(rev.day, com.day) as day, coalesce(rev.currency, com.currency) as currency,
        coalesce(rev.amount, 0) as revenue, coalesce(com.amount, 0) as commissions
      from rev full join com on com.day = rev.day and com.currency = rev.currency
    )
    select
      (select count(*) from clicks c where ${creditedClick(sql, 'c')} ${clickScope} ${clickTime})::int as clicks,
      (select count(distinct event_id) filter (where type = 'signup') from s)::int as leads,
      (select count(distinct user_id) filter (where first) from s)::int as customers,
      (select json_agg(json_build_object('day', day, 'currency', currency, 'revenue', revenue::text, 'commissions', commissions::text)) from money) as money`;
  return {
    clicks: row!.clicks,
    leads: row!.leads,
    customers: row!.customers,
    daily: (row!.money ?? []).map((m) => ({ day: m.day, currency: m.currency, revenue: BigInt(m.revenue), commissions: BigInt(m.commissions) })),
  };
}

/** The commissions earned per currency in a funnel's range (from its daily money). */
export function commissionsOf(f: Funnel): { currency: string; amount: bigint }[] {
  const by = new Map<string, bigint>();
  for (const m of f.daily) by.set(m.currency, (by.get(m.currency) ?? 0n) + m.commissions);
  return [...by].filter(([, a]) => a !== 0n).map(([currency, amount]) => ({ currency, amount })).sort((a, b) => (a.currency < b.currency ? -1 : 1));
}
