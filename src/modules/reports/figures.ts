// The figures every report shows, defined once (docs/analytics.md says the same to readers). Every
// admin page, portal page, CSV and the overview read their numbers through these fragments, so the
// same range gives the same figure wherever it is shown.
//
// - credited clicks: clicks recorded on a partner's links in the range (the click's time), less
//   the filtered ones; `clicks` on every page means these.
// - filtered clicks: clicks kept as evidence but never credited (bot_click, click_flood), counted
//   apart ("+25 filtered").
// - converted clicks: credited clicks of the range that became a customer's referral touch; the
//   conversion rate is converted clicks / credited clicks, so it never exceeds 100%.
// - sales: attributed events whose occurredAt is in the range (when the sale happened, however
//   late it was recorded: a backfill or an import counts on its own days).
// - conversions: customers whose first sale (the event that started their referral) is in the
//   range; renewals and later purchases are revenue, never conversions.
// - revenue: the full amount of the range's sales, per currency, never added across currencies.
// - commissions: commissions not reversed whose sale is in the range (commissions.occurred_at).
import type { Sql } from '../../db';
import { idFloor } from '../../lib/ids';

/** A half-open time range [start, end); `start` null is all time. */
export type Span = { start: Date | null; end: Date };

type Fragment = ReturnType<Sql>;

/** `and column in [start, end)`; a null start has no lower bound. */
export function within(sql: Sql, column: string, span: Span): Fragment {
  return sql`${span.start ? sql`and ${sql(column)} >= ${span.start}` : sql``} and ${sql(column)} < ${span.end}`;
}

/** `and id in the span` for a table keyed by time-sortable ids (the primary key serves it). */
export function idWithin(sql: Sql, column: string, kind: 'click' | 'attribution' | 'commission' | 'partner', span: Span): Fragment {
  return sql`${span.start ? sql`and ${sql(column)} >= ${idFloor(kind, span.start)}` : sql``} and ${sql(column)} < ${idFloor(kind, span.end)}`;
}

/** A click that credits (not filtered as a bot or a flood). */
export const creditedClick = (sql: Sql, alias: string): Fragment => sql`${sql(`${alias}.uncredited_reason`)} is null`;

/** A click kept but never credited: `bot_click` or `click_flood` (partial index clicks_filtered). */
export const filteredClick = (sql: Sql, alias: string): Fragment => sql`${sql(`${alias}.uncredited_reason`)} is not null`;

/**
 * Whether a sale (its user and occurredAt columns) is the customer's first: the event that started
 * its referral. Counted per customer (`count(distinct user)`), so two events at the same instant
 * are still one conversion.
 */
export const firstSale = (sql: Sql, userColumn: string, occurredColumn: string): Fragment =>
  sql`exists (select 1 from referrals r where r.user_id = ${sql(userColumn)} and r.started_at = ${sql(occurredColumn)})`;

/** A commission that counts as earned: anything but reversed. */
export const earnedCommission = (sql: Sql, alias: string): Fragment => sql`${sql(`${alias}.status`)} <> 'reversed'`;

/**
 * The sales credited to partners: one row per (partner, event), or per (partner, campaign, event)
 * with `byCampaign`, among the attributions matching `scope` (a fragment on `a`) whose sale is in
 * `span`, with `user_id` and `first` (the customer's first sale).
 */
export function partnerSales(sql: Sql, scope: Fragment, span: Span, byCampaign = false): Fragment {
  return sql`
    select distinct a.partner_id, ${byCampaign ? sql`a.campaign_id,` : sql``} a.event_id, a.user_id, ${firstSale(sql, 'a.user_id', 'a.occurred_at')} as first
    from attributions a
    where ${scope} ${within(sql, 'a.occurred_at', span)}`;
}

/**
 * Converted clicks: the distinct clicks of the span (click ids carry their time) that are a
 * referral's touch, with their partner and campaign; `scope` is a fragment on `t`.
 */
export function convertedClicks(sql: Sql, scope: Fragment, span: Span): Fragment {
  return sql`
    select distinct t.click_id, t.partner_id, t.campaign_id
    from referral_touches t
    where t.click_id is not null and ${scope} ${idWithin(sql, 't.click_id', 'click', span)}`;
}

/** The conversion rate as a fraction in [0, 1]: converted clicks / credited clicks; null without clicks. */
export function conversionRate(converted: number, credited: number): number | null {
  if (credited <= 0) return null;
  return Math.min(1, Math.max(0, converted / credited));
}

/** Earnings per click in minor units, rounded half up; null without credited clicks. Integers only. */
export function earningsPerClick(commissions: bigint, clicks: number): bigint | null {
  if (clicks <= 0) return null;
  const n = BigInt(clicks);
  return (commissions * 2n + n) / (2n * n);
}
