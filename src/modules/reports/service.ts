// Activity over time for dashboards: clicks, conversions and commissions per UTC day.
import type { Sql } from '../../db';
import { DAY } from '../../lib/time';
import { formatMinor, minorToNumber } from '../../lib/money';

export type DailyActivity = { day: string; clicks: number; conversions: number; commissions: number };

export type CommissionTotal = { currency: string; status: string; count: number; amount: string };

/**
 * One row per UTC day of the last `days` days (oldest first, days without activity included).
 * A conversion is an event attributed to the partner (counted once however many touches it had);
 * `partnerId` undefined counts everyone.
 */
export async function dailyActivity(sql: Sql, input: { partnerId?: string; days: number; now?: Date }): Promise<DailyActivity[]> {
  const end = input.now ?? new Date();
  const start = new Date(Date.UTC(end.getUTCFullYear(), end.getUTCMonth(), end.getUTCDate()) - (input.days - 1) * DAY);
  const who = (alias: string) => (input.partnerId !== undefined ? sql`and ${sql(alias)}.partner_id = ${input.partnerId}` : sql``);
  const rows = await sql<DailyActivity[]>`
    with days as (
      select generate_series(${start}::timestamptz at time zone 'UTC', ${end}::timestamptz at time zone 'UTC', interval '1 day')::date as day
    ),
    c as (
      select (k.created_at at time zone 'UTC')::date as day, count(*)::int as n
      from clicks k where k.created_at >= ${start} ${who('k')} group by 1
    ),
    v as (
      select (a.created_at at time zone 'UTC')::date as day, count(distinct a.event_id)::int as n
      from attributions a where a.created_at >= ${start} ${who('a')} group by 1
    ),
    m as (
      select (x.created_at at time zone 'UTC')::date as day, count(*)::int as n
      from commissions x where x.created_at >= ${start} ${who('x')} group by 1
    )
    select to_char(days.day, 'YYYY-MM-DD') as day, coalesce(c.n, 0) as clicks, coalesce(v.n, 0) as conversions, coalesce(m.n, 0) as commissions
    from days left join c using (day) left join v using (day) left join m using (day)
    order by days.day`;
  return rows.map((r) => ({ day: r.day, clicks: r.clicks, conversions: r.conversions, commissions: r.commissions }));
}

/** Commission sums per currency and status, all time; `partnerId` undefined sums everyone. */
export async function commissionTotals(sql: Sql, input: { partnerId?: string }): Promise<CommissionTotal[]> {
  const rows = await sql<{ currency: string; status: string; n: number; amount: bigint }[]>`
    select currency, status, count(*)::int as n, sum(amount)::bigint as amount
    from commissions
    where true ${input.partnerId !== undefined ? sql`and partner_id = ${input.partnerId}` : sql``}
    group by currency, status
    order by currency, array_position(array['accrued','approved','paid','reversed'], status)`;
  return rows.map((r) => ({ currency: r.currency, status: r.status, count: r.n, amount: formatMinor(r.amount, r.currency) }));
}

/** All-time click count (the chart covers only its window). */
export async function clickCount(sql: Sql, input: { partnerId?: string }): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from clicks
    where true ${input.partnerId !== undefined ? sql`and partner_id = ${input.partnerId}` : sql``}`;
  return row!.n;
}

export type DailyMoney = { day: string; revenue: number; commissions: number };

/**
 * Attributed revenue and commission amounts per UTC day of the last `days` days, in one currency
 * (major units as numbers: for drawing only, never for arithmetic). Revenue counts each attributed
 * event once.
 */
export async function dailyMoney(sql: Sql, input: { currency: string; days: number; now?: Date }): Promise<DailyMoney[]> {
  const end = input.now ?? new Date();
  const start = new Date(Date.UTC(end.getUTCFullYear(), end.getUTCMonth(), end.getUTCDate()) - (input.days - 1) * DAY);
  const rows = await sql<{ day: string; revenue: bigint; commissions: bigint }[]>`
    with days as (
      select generate_series(${start}::timestamptz at time zone 'UTC', ${end}::timestamptz at time zone 'UTC', interval '1 day')::date as day
    ),
    r as (
      select (e.created_at at time zone 'UTC')::date as day, sum(e.amount)::bigint as n
      from events e
      where e.created_at >= ${start} and e.currency = ${input.currency} and e.attribution_status = 'attributed'
      group by 1
    ),
    m as (
      select (x.created_at at time zone 'UTC')::date as day, sum(x.amount)::bigint as n
      from commissions x where x.created_at >= ${start} and x.currency = ${input.currency} group by 1
    )
    select to_char(days.day, 'YYYY-MM-DD') as day, coalesce(r.n, 0)::bigint as revenue, coalesce(m.n, 0)::bigint as commissions
    from days left join r using (day) left join m using (day)
    order by days.day`;
  return rows.map((r) => ({ day: r.day, revenue: minorToNumber(r.revenue, input.currency), commissions: minorToNumber(r.commissions, input.currency) }));
}

/** The currency most commissions are in (the admin chart's money axis); null before the first one. */
export async function mainCurrency(sql: Sql): Promise<string | null> {
  const [row] = await sql<{ currency: string }[]>`select currency from commissions group by currency order by count(*) desc, currency limit 1`;
  return row?.currency ?? null;
}

export type ProgramCounts = { partnersActive: number; partnersPending: number; partnersRevoked: number; campaigns: number; payoutsPending: number };

/** Head counts for the admin overview. */
export async function programCounts(sql: Sql): Promise<ProgramCounts> {
  const [row] = await sql<{ active: number; pending: number; revoked: number; campaigns: number; payouts: number }[]>`
    select
      (select count(*) from partners where revoked_at is null and activated_at is not null)::int as active,
      (select count(*) from partners where revoked_at is null and activated_at is null)::int as pending,
      (select count(*) from partners where revoked_at is not null)::int as revoked,
      (select count(*) from campaigns where archived_at is null)::int as campaigns,
      (select count(*) from payouts where status = 'pending')::int as payouts`;
  return { partnersActive: row!.active, partnersPending: row!.pending, partnersRevoked: row!.revoked, campaigns: row!.campaigns, payoutsPending: row!.payouts };
}
