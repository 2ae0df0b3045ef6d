// The admin overview's numbers for a date range: totals (clicks, conversions, revenue, commissions,
// new partners), money per chart bucket, the top partners, the to-do counts and the setup checklist.
//
// The figures are those of ./figures.ts (docs/analytics.md): a click counts when it was made (its
// id's time), a partner when created; a sale, its revenue and its commissions count when the sale
// happened (events.occurred_at, commissions.occurred_at), so revenue, commissions and earnings per
// click of one period belong together even when an event arrived late.
import type { Sql } from '../../db';
import { minorToNumber } from '../../lib/money';
import { convertedClicks, earnedCommission, filteredClick, firstSale, idWithin, within } from './figures';

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

/** Totals of one period; one statement, each table read once over its range. */
export async function overviewTotals(sql: Sql, period: Period): Promise<OverviewTotals> {
  const { start, end } = period;
  const span = { start, end };
  const [row] = await sql<{ clicks: number; filtered: number; converted: number; conversions: number; sales: number; partners: number; money: { currency: string; revenue: string; commissions: string }[] | null }[]>`
    with ev as not materialized (
      select e.id, e.user_id, e.occurred_at, e.amount, e.currency from events e
      where e.attribution_status = 'attributed' ${within(sql, 'e.occurred_at', span)}
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
      (select count(*) from clicks k where true ${idWithin(sql, 'k.id', 'click', span)})::int as clicks,
      (select count(*) from clicks k where ${filteredClick(sql, 'k')} ${within(sql, 'k.created_at', span)})::int as filtered,
      (select count(*) from (${convertedClicks(sql, sql`true`, span)}) x)::int as converted,
      (select count(distinct ev.user_id) from ev where ${firstSale(sql, 'ev.user_id', 'ev.occurred_at')})::int as conversions,
      (select count(*) from ev)::int as sales,
      (select count(*) from partners p where true ${idWithin(sql, 'p.id', 'partner', span)})::int as partners,
      (select json_agg(json_build_object('currency', currency, 'revenue', revenue::text, 'commissions', commissions::text)
                       order by commissions desc, revenue desc, currency)
        from money) as money`;
  return {
    clicks: row!.clicks - row!.filtered,
    filteredClicks: row!.filtered,
    convertedClicks: row!.converted,
    conversions: row!.conversions,
    sales: row!.sales,
    newPartners: row!.partners,
    money: (row!.money ?? []).map((m) => ({ currency: m.currency, revenue: BigInt(m.revenue), commissions: BigInt(m.commissions) })),
  };
}

/**
 * The currency of the overview's money: the one most commissions are in (all time), else the one
 * most attributed revenue is in, else the newest campaign's; null for a program without any.
 */
export async function overviewCurrency(sql: Sql): Promise<string | null> {
  const [row] = await sql<{ currency: string | null }[]>`
    select coalesce(
      (select currency from commissions group by currency order by count(*) desc, currency limit 1),
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
  const rows = await sql<{ bucket: string; revenue: bigint; commissions: bigint }[]>`
    with buckets as (
      select generate_series(
        date_trunc(${bucket}, ${start}::timestamptz at time zone 'UTC'),
        (${end}::timestamptz at time zone 'UTC') - interval '1 microsecond',
        ${unit}::interval
      ) as b
    ),
    ev as not materialized (
      select e.id, e.amount, e.currency, date_trunc(${bucket}, e.occurred_at at time zone 'UTC') as b from events e
      where e.occurred_at >= ${start} and e.occurred_at < ${end} and e.attribution_status = 'attributed'
    ),
    rev as (select b, sum(amount)::bigint as n from ev where currency = ${currency} group by b),
    com as (
      select ev.b, sum(c.amount)::bigint as n from ev join commissions c on c.event_id = ev.id
      where c.currency = ${currency} and c.status <> 'reversed' group by ev.b
    )
    select to_char(buckets.b, 'YYYY-MM-DD') as bucket, coalesce(rev.n, 0)::bigint as revenue, coalesce(com.n, 0)::bigint as commissions
    from buckets left join rev using (b) left join com using (b)
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

/** The top partners of a period by commissions earned in `currency` (then revenue, conversions, clicks). */
export async function topPartners(sql: Sql, input: Period & { currency: string; limit: number }): Promise<LeaderRow[]> {
  const { start, end, currency } = input;
  const span = { start, end };
  const rows = await sql<{ id: string; name: string; email: string; clicks: number; filtered: number; conversions: number; revenue: bigint; commissions: bigint }[]>`
    with ev as not materialized (
      select e.id, e.user_id, e.occurred_at, e.amount, e.currency from events e
      where e.attribution_status = 'attributed' ${within(sql, 'e.occurred_at', span)}
    ),
    shared as (
      select distinct a.partner_id, ev.id, ev.user_id, ev.amount, ev.currency, ${firstSale(sql, 'ev.user_id', 'ev.occurred_at')} as first
      from ev join attributions a on a.event_id = ev.id
    ),
    conv as (
      select partner_id, (count(distinct user_id) filter (where first))::int as n,
        coalesce(sum(amount) filter (where currency = ${currency}), 0)::bigint as revenue
      from shared group by partner_id
    ),
    com as (
      select c.partner_id, sum(c.amount)::bigint as n from ev join commissions c on c.event_id = ev.id
      where c.currency = ${currency} and ${earnedCommission(sql, 'c')} group by c.partner_id
    ),
    -- one short index-only range per partner (clicks_partner) rather than a pass over the period's clicks
    clk as (
      select p.id as partner_id, k.n from partners p
      cross join lateral (
        select count(*)::int as n from clicks k where k.partner_id = p.id ${within(sql, 'k.created_at', span)}
      ) k
      where k.n > 0
    ),
    flt as (
      select k.partner_id, count(*)::int as n from clicks k
      where ${filteredClick(sql, 'k')} ${within(sql, 'k.created_at', span)} group by k.partner_id
    ),
    who as (select partner_id from conv union select partner_id from com union select partner_id from clk)
    select p.id, p.name, p.email, coalesce(clk.n, 0) - coalesce(flt.n, 0) as clicks, coalesce(flt.n, 0) as filtered,
           coalesce(conv.n, 0) as conversions, coalesce(conv.revenue, 0)::bigint as revenue, coalesce(com.n, 0)::bigint as commissions
    from who
    join partners p on p.id = who.partner_id
    left join clk on clk.partner_id = who.partner_id
    left join flt on flt.partner_id = who.partner_id
    left join conv on conv.partner_id = who.partner_id
    left join com on com.partner_id = who.partner_id
    order by commissions desc, revenue desc, conversions desc, clicks desc, p.id
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
