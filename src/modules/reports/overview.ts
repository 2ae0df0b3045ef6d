// The admin overview's numbers for a date range: totals (clicks, conversions, revenue, commissions,
// new partners), money per chart bucket, the top partners, the to-do counts and the setup checklist.
//
// The figures are those of ./figures.ts (docs/analytics.md): a click counts when it was made (its
// id's time), a partner when created; a sale, its revenue and its commissions count when the sale
// happened (events.occurred_at, commissions.occurred_at), so revenue, commissions and earnings per
// click of one period belong together even when an event arrived late.
import type { Sql } from '../../db';
import { minorToNumber } from '../../lib/money';
import { clickWithinAny, convertedClicks, creditedClick, earnedCommission, filteredClick, firstSale, idWithin, idWithinAny, rollupRows, splitSpan, withinAny, type Span } from './figures';
import { commissionLeaders } from './money-first';
import { earnedOf, grain, rolledOver } from './rollups';

export { earningsPerClick } from './figures';

export type Period = { start: Date; end: Date };


export type MoneyTotal = { currency: string; revenue: bigint; commissions: bigint };

export type OverviewTotals = {
  /** Credited clicks (docs/analytics.md): filtered ones left out. */
  clicks: number;
  /** Clicks kept but never credited (bots, floods), counted apart. */
  filteredClicks: number;
  /** Credited clicks that became a customer's referral touch: the conversion rate's numerator. */
  convertedClicks: number;
  /** First conversions: customers whose first sale happened in the period. */
  conversions: number;
  /** Attributed sales (each event once, however many partners shared it): renewals too. */
  sales: number;
  newPartners: number;
  /** Attributed revenue and commissions earned (not reversed), per currency, largest first. */
  money: MoneyTotal[];
};

/**
 * Totals of one period: its whole days from the program's rollup rows, today (and part-days) from
 * the rows themselves (docs/analytics.md), new partners from the partners' ids.
 */
export async function overviewTotals(sql: Sql, period: Period): Promise<OverviewTotals> {
  const parts = splitSpan({ start: period.start, end: period.end });
  const [rolled, raw, [partners]] = await Promise.all([
    rolledOver(sql, null, grain(sql, {}), parts.days),
    parts.raw.length > 0 ? rawTotals(sql, parts.raw) : Promise.resolve(null),
    sql<{ n: number }[]>`select count(*)::int as n from partners p where true ${idWithin(sql, 'p.id', 'partner', period)}`,
  ]);
  const r = rolled.get('');
  const money = new Map<string, MoneyTotal>();
  const add = (currency: string, revenue: bigint, commissions: bigint) => {
    const m = money.get(currency) ?? { currency, revenue: 0n, commissions: 0n };
    money.set(currency, { currency, revenue: m.revenue + revenue, commissions: m.commissions + commissions });
  };
  for (const m of r?.money ?? []) add(m.currency, m.revenue, earnedOf(m));
  for (const m of raw?.money ?? []) add(m.currency, m.revenue, m.commissions);
  return {
    clicks: (r?.clicks ?? 0) + (raw?.clicks ?? 0),
    filteredClicks: (r?.filtered ?? 0) + (raw?.filteredClicks ?? 0),
    convertedClicks: (r?.converted ?? 0) + (raw?.convertedClicks ?? 0),
    conversions: (r?.customers ?? 0) + (raw?.conversions ?? 0),
    sales: (r?.sales ?? 0) + (raw?.sales ?? 0),
    newPartners: partners!.n,
    money: [...money.values()]
      .filter((m) => m.revenue !== 0n || m.commissions !== 0n)
      .sort((a, b) => (a.commissions !== b.commissions ? (a.commissions > b.commissions ? -1 : 1) : a.revenue !== b.revenue ? (a.revenue > b.revenue ? -1 : 1) : a.currency < b.currency ? -1 : 1)),
  };
}

/** The totals of the rows themselves over a few short spans (today, part-days): one statement. */
async function rawTotals(sql: Sql, spans: Span[]): Promise<Omit<OverviewTotals, 'newPartners'>> {
  const [row] = await sql<{ clicks: number; filtered: number; converted: number; conversions: number; sales: number; money: { currency: string; revenue: string; commissions: string }[] | null }[]>`
    with ev as not materialized (
      select e.id, e.user_id, e.occurred_at, e.amount, e.currency from events e
      where e.attribution_status = 'attributed' ${withinAny(sql, 'e.occurred_at', spans)}
    ),
    rev as (
      select currency, sum(amount)::bigint as revenue from ev where currency is not null group by currency
    ),
    com as (
      -- the commissions of the period's sales (their occurred_at is the event's), found by event
      select c.currency, sum(c.amount)::bigint as commissions
      from ev join commissions c on c.event_id = ev.id
      where ${earnedCommission(sql, 'c')}
      group by c.currency
    ),
    money as (
      select coalesce(rev.currency, com.currency) as currency, coalesce(rev.revenue, 0) as revenue, coalesce(com.commissions, 0) as commissions
      from rev full join com on com.currency = rev.currency
    )
    select
      (select count(*) from clicks k where true ${idWithinAny(sql, 'k.id', 'click', spans)})::int as clicks,
      (select count(*) from clicks k where ${filteredClick(sql, 'k')} ${clickWithinAny(sql, 'k', spans)})::int as filtered,
      (select count(*) from (${convertedClicks(sql, sql`true`, spans)}) x)::int as converted,
      (select count(distinct ev.user_id) from ev where ${firstSale(sql, 'ev.user_id', 'ev.occurred_at')})::int as conversions,
      (select count(*) from ev)::int as sales,
      (select json_agg(json_build_object('currency', currency, 'revenue', revenue::text, 'commissions', commissions::text)) from money) as money`;
  return {
    clicks: row!.clicks - row!.filtered,
    filteredClicks: row!.filtered,
    convertedClicks: row!.converted,
    conversions: row!.conversions,
    sales: row!.sales,
    money: (row!.money ?? []).map((m) => ({ currency: m.currency, revenue: BigInt(m.revenue), commissions: BigInt(m.commissions) })),
  };
}

/**
 * The currency of the overview's money: the one most commissions are earned in (all time, not
 * reversed; the program's month rollups, a few rows a month), else the one most attributed sales are
 * in, else the newest campaign's; null for a program without any.
 */
export async function overviewCurrency(sql: Sql): Promise<string | null> {
  const [row] = await sql<{ currency: string | null }[]>`
    select coalesce(
      (select r.currency from rollup_facts r where r.unit = 'm' and ${grain(sql, {})} and r.currency <> ''
        group by r.currency having sum(r.earned) > 0 order by sum(r.earned) desc, r.currency limit 1),
      (select currency from events where attribution_status = 'attributed' and currency is not null
        group by currency order by count(*) desc, currency limit 1),
      (select currency from campaigns order by id desc limit 1)
    ) as currency`;
  return row?.currency ?? null;
}

/** The first moment anything happened (a click or an event): where "all time" starts. Two index reads. */
export async function firstActivity(sql: Sql): Promise<Date | null> {
  const [row] = await sql<{ at: Date | null }[]>`
    select least(
      (select created_at from clicks order by id limit 1),
      (select min(occurred_at) from events)
    ) as at`;
  return row?.at ?? null;
}

export type Bucket = 'day' | 'week' | 'month';

/** Days up to 92 are drawn per day, up to about 13 months per week, longer per month. */
export function bucketFor(period: Period): Bucket {
  const days = (period.end.getTime() - period.start.getTime()) / 86_400_000;
  return days <= 92 ? 'day' : days <= 400 ? 'week' : 'month';
}

export type MoneyPoint = { bucket: string; revenue: number; commissions: number };

/**
 * Attributed revenue and commissions earned per bucket (UTC days, ISO weeks from Monday, or
 * months; empty buckets as zero) in one currency. Major units as numbers: for drawing only.
 */
export async function moneySeries(sql: Sql, input: Period & { currency: string; bucket: Bucket }): Promise<MoneyPoint[]> {
  const { start, end, currency, bucket } = input;
  const unit = `1 ${bucket}`;
  const parts = splitSpan({ start, end });
  const rows = await sql<{ bucket: string; revenue: bigint; commissions: bigint }[]>`
    with buckets as (
      select generate_series(
        date_trunc(${bucket}, ${start}::timestamptz at time zone 'UTC'),
        (${end}::timestamptz at time zone 'UTC') - interval '1 microsecond',
        ${unit}::interval
      ) as b
    ),
    -- whole days from the program's day rows, today (and part-days) from the events themselves
    roll as (
      select date_trunc(${bucket}, r.day::timestamp) as b, sum(r.revenue)::bigint as revenue, sum(r.accrued + r.approved + r.paid)::bigint as commissions
      from rollup_facts r
      where ${grain(sql, {})} and r.currency = ${currency} and r.unit = 'd'
        ${parts.days ? sql`and r.day >= ${parts.days.from ?? start}::date and r.day < ${parts.days.to}::date` : sql`and false`}
      group by 1
    ),
    ev as not materialized (
      select e.id, e.amount, e.currency, date_trunc(${bucket}, e.occurred_at at time zone 'UTC') as b from events e
      where e.attribution_status = 'attributed' ${withinAny(sql, 'e.occurred_at', parts.raw)}
    ),
    rev as (select b, sum(amount)::bigint as n from ev where currency = ${currency} group by b),
    com as (
      select ev.b, sum(c.amount)::bigint as n from ev join commissions c on c.event_id = ev.id
      where c.currency = ${currency} and c.status <> 'reversed' group by ev.b
    )
    select to_char(buckets.b, 'YYYY-MM-DD') as bucket, (coalesce(rev.n, 0) + coalesce(roll.revenue, 0))::bigint as revenue,
      (coalesce(com.n, 0) + coalesce(roll.commissions, 0))::bigint as commissions
    from buckets left join rev using (b) left join com using (b) left join roll using (b)
    order by buckets.b`;
  return rows.map((r) => ({ bucket: r.bucket, revenue: minorToNumber(r.revenue, currency), commissions: minorToNumber(r.commissions, currency) }));
}

export type LeaderRow = {
  partnerId: string;
  name: string;
  email: string;
  /** Credited clicks. */
  clicks: number;
  filteredClicks: number;
  /** First conversions (customers). */
  conversions: number;
  /** Minor units of the overview's currency: the full amount of each sale the partner shared in. */
  revenue: bigint;
  /** Minor units: commissions earned (not reversed). */
  commissions: bigint;
};

/**
 * The top partners of a period by commissions earned in `currency` (then revenue, conversions,
 * clicks): whole days from the partners' rollup rows, today from the rows themselves.
 */
export async function topPartners(sql: Sql, input: Period & { currency: string; limit: number }): Promise<LeaderRow[]> {
  const { currency } = input;
  const parts = splitSpan({ start: input.start, end: input.end });
  const spans = parts.raw;
  // the leaders are among the partners with the most commissions (found from the money rows
  // alone): only their numbers are read; every partner's when fewer than `limit` earned any
  const among = await commissionLeaders(sql, parts, currency, input.limit);
  const only = (column: string) => (among === null ? sql`` : sql`and ${sql(column)} = any(${among}::text[])`);
  const rows = await sql<{ id: string; name: string; email: string; clicks: number; filtered: number; conversions: number; revenue: bigint; commissions: bigint }[]>`
    with roll as (
      select r.partner_id, sum(r.clicks)::int as clicks, sum(r.filtered)::int as filtered, sum(r.customers)::int as conversions, sum(r.sales)::int as sales,
        coalesce(sum(r.revenue) filter (where r.currency = ${currency}), 0)::bigint as revenue,
        coalesce(sum(r.accrued + r.approved + r.paid) filter (where r.currency = ${currency}), 0)::bigint as commissions
      from ${rollupRows(sql, 'rollup_facts', parts.days)} r
      where r.partner_id <> '' and r.campaign_id = '' and r.link_id = '' and r.currency in ('', ${currency}) ${only('r.partner_id')}
      group by 1
    ),
    ev as not materialized (
      select e.id, e.user_id, e.occurred_at, e.amount, e.currency from events e
      where e.attribution_status = 'attributed' ${withinAny(sql, 'e.occurred_at', spans)}
    ),
    shared as (
      select distinct a.partner_id, ev.id, ev.user_id, ev.amount, ev.currency, ${firstSale(sql, 'ev.user_id', 'ev.occurred_at')} as first
      from ev join attributions a on a.event_id = ev.id
      where true ${only('a.partner_id')}
    ),
    conv as (
      select partner_id, (count(distinct user_id) filter (where first))::int as n, count(distinct id)::int as sales,
        coalesce(sum(amount) filter (where currency = ${currency}), 0)::bigint as revenue
      from shared group by partner_id
    ),
    com as (
      select c.partner_id, sum(c.amount)::bigint as n from ev join commissions c on c.event_id = ev.id
      where c.currency = ${currency} and ${earnedCommission(sql, 'c')} ${only('c.partner_id')} group by c.partner_id
    ),
    clk as (
      select k.partner_id, count(*) filter (where ${creditedClick(sql, 'k')})::int as n, count(*) filter (where ${filteredClick(sql, 'k')})::int as f
      from clicks k where true ${idWithinAny(sql, 'k.id', 'click', spans)} ${only('k.partner_id')} group by 1
    ),
    raw as (
      select partner_id, sum(clicks)::int as clicks, sum(filtered)::int as filtered, sum(conversions)::int as conversions, sum(sales)::int as sales,
        sum(revenue)::bigint as revenue, sum(commissions)::bigint as commissions
      from (
        select partner_id, 0 as clicks, 0 as filtered, n as conversions, sales, revenue, 0::bigint as commissions from conv
        union all select partner_id, 0, 0, 0, 0, 0, n from com
        union all select partner_id, n, f, 0, 0, 0, 0 from clk
      ) x group by 1
    ),
    total as (
      select partner_id, sum(clicks)::int as clicks, sum(filtered)::int as filtered, sum(conversions)::int as conversions,
        sum(revenue)::bigint as revenue, sum(commissions)::bigint as commissions
      from (select * from roll union all select * from raw) x group by 1
      having sum(clicks) > 0 or sum(filtered) > 0 or sum(sales) > 0 or sum(commissions) <> 0
    )
    select p.id, p.name, p.email, t.clicks, t.filtered, t.conversions, t.revenue, t.commissions
    from total t join partners p on p.id = t.partner_id
    order by t.commissions desc, t.revenue desc, t.conversions desc, t.clicks desc, p.id
    limit ${input.limit}`;
  return rows.map((r) => ({
    partnerId: r.id,
    name: r.name,
    email: r.email,
    clicks: r.clicks,
    filteredClicks: r.filtered,
    conversions: r.conversions,
    revenue: BigInt(r.revenue),
    commissions: BigInt(r.commissions),
  }));
}

export type TodoCounts = Waiting & {
  /** Payouts created and not yet marked paid or failed. */
  payoutsPending: number;
  /** Partners invited who have not signed in yet: partner_status 'pending' (not applicants, not declined, not revoked). */
  invitesPending: number;
  /** Commissions accrued, waiting for approval. */
  commissionsAccrued: number;
  /** Active webhook endpoints whose latest finished delivery failed. */
  webhooksFailing: number;
};

/** What waits for an admin's decision, as the admin navigation's badges show it. */
export type Waiting = {
  /** Applications waiting for review: partner_status 'applied' (the applications page lists them). */
  applicationsWaiting: number;
  /** Flagged commissions still accrued: what the review page lists (modules/fraud/review.ts reviewQueue). */
  reviewWaiting: number;
};

const WAITING = (sql: Sql) => sql`
  (select count(*) from partners p where partner_status(p) = 'applied')::int as applications,
  (select count(*) from commissions c where c.flags <> '{}' and c.status = 'accrued')::int as review`;

export async function waitingCounts(sql: Sql): Promise<Waiting> {
  const [row] = await sql<{ applications: number; review: number }[]>`select ${WAITING(sql)}`;
  return { applicationsWaiting: row!.applications, reviewWaiting: row!.review };
}

export async function todoCounts(sql: Sql): Promise<TodoCounts> {
  const [row] = await sql<{ payouts: number; invites: number; accrued: number; failing: number; applications: number; review: number }[]>`
    select
      (select count(*) from payouts where status = 'pending')::int as payouts,
      (select count(*) from partners p where partner_status(p) = 'pending')::int as invites,
      (select count(*) from commissions where status = 'accrued')::int as accrued,
      (select count(*) from webhook_endpoints w
        cross join lateral (
          select d.status from webhook_deliveries d
          where d.endpoint_id = w.id and d.status <> 'pending'
          order by d.id desc limit 1
        ) latest
        where w.active and latest.status = 'failed')::int as failing,
      ${WAITING(sql)}`;
  return {
    payoutsPending: row!.payouts,
    invitesPending: row!.invites,
    commissionsAccrued: row!.accrued,
    webhooksFailing: row!.failing,
    applicationsWaiting: row!.applications,
    reviewWaiting: row!.review,
  };
}

export type LatestEvent = { id: string; type: string; userId: string; amount: bigint | null; currency: string | null; status: string; createdAt: Date };

export type Onboarding = {
  dismissedAt: Date | null;
  campaign: boolean;
  publishableKey: boolean;
  /** A user was identified: the snippet (or an identify call) works. */
  identified: boolean;
  click: boolean;
  /** A billing provider reported something (a customer or a conversion). */
  providerEvent: boolean;
  partner: boolean;
  latestEvent: LatestEvent | null;
};

/** What the setup checklist ticks, from the data itself. */
export async function onboardingState(sql: Sql): Promise<Onboarding> {
  const [row] = await sql<{
    dismissed_at: Date | null;
    campaign: boolean;
    key: boolean;
    identified: boolean;
    click: boolean;
    provider: boolean;
    partner: boolean;
  }[]>`
    select
      (select onboarding_dismissed_at from settings) as dismissed_at,
      exists (select 1 from campaigns) as campaign,
      exists (select 1 from api_keys where kind = 'publishable' and revoked_at is null) as key,
      exists (select 1 from identities) as identified,
      exists (select 1 from clicks) as click,
      (exists (select 1 from billing_customers) or exists (select 1 from billing_conversions)) as provider,
      exists (select 1 from partners) as partner`;
  return {
    dismissedAt: row!.dismissed_at,
    campaign: row!.campaign,
    publishableKey: row!.key,
    identified: row!.identified,
    click: row!.click,
    providerEvent: row!.provider,
    partner: row!.partner,
    latestEvent: await latestEvent(sql),
  };
}

/** The newest event received (by arrival), for "send a test event and watch it arrive". */
export async function latestEvent(sql: Sql): Promise<LatestEvent | null> {
  const [row] = await sql<{ id: string; type: string; user_id: string; amount: bigint | null; currency: string | null; attribution_status: string; created_at: Date }[]>`
    select id, type, user_id, amount, currency, attribution_status, created_at from events order by id desc limit 1`;
  return row
    ? { id: row.id, type: row.type, userId: row.user_id, amount: row.amount === null ? null : BigInt(row.amount), currency: row.currency, status: row.attribution_status, createdAt: row.created_at }
    : null;
}

/** Hides the setup checklist (or shows it again). */
export async function setOnboardingDismissed(sql: Sql, dismissed: boolean): Promise<void> {
  await sql`update settings set onboarding_dismissed_at = case when ${dismissed} then now() end`;
}
