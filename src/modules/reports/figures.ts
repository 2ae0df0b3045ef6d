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
export function partnerSales(sql: Sql, scope: Fragment, span: Span | Span[], byCampaign = false): Fragment {
  return sql`
    select distinct a.partner_id, ${byCampaign ? sql`a.campaign_id,` : sql``} a.event_id, a.user_id, ${firstSale(sql, 'a.user_id', 'a.occurred_at')} as first
    from attributions a
    where ${scope} ${Array.isArray(span) ? withinAny(sql, 'a.occurred_at', span) : within(sql, 'a.occurred_at', span)}`;
}

/**
 * Converted clicks: the distinct clicks of the span (click ids carry their time) that are a
 * referral's touch, with their partner and campaign; `scope` is a fragment on `t`.
 */
export function convertedClicks(sql: Sql, scope: Fragment, span: Span | Span[]): Fragment {
  return sql`
    select distinct t.click_id, t.partner_id, t.campaign_id
    from referral_touches t
    where t.click_id is not null and ${scope} ${Array.isArray(span) ? idWithinAny(sql, 't.click_id', 'click', span) : idWithin(sql, 't.click_id', 'click', span)}`;
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

// ---------------------------------------------------------------------------------------------
// Whole days read the rollups (migrations/0049_rollups.sql); today and part-days read raw rows.

const DAY_MS = 86_400_000;
const floorDay = (d: Date) => new Date(Math.floor(d.getTime() / DAY_MS) * DAY_MS);
const ceilDay = (d: Date) => new Date(Math.ceil(d.getTime() / DAY_MS) * DAY_MS);

/**
 * A range cut in two: the whole UTC days before today (`days`, `from` null: since the beginning),
 * read from the rollups, and what is left (`raw`: today, and a part-day at either end), read from
 * the rows themselves. Together they are the range, each moment once.
 */
export type SpanParts = { days: { from: Date | null; to: Date } | null; raw: Span[] };

export function splitSpan(span: Span, now: Date = new Date()): SpanParts {
  const from = span.start ? ceilDay(span.start) : null;
  const to = new Date(Math.min(floorDay(span.end).getTime(), floorDay(now).getTime()));
  if (from !== null && from.getTime() >= to.getTime()) return { days: null, raw: [span] };
  const raw: Span[] = [];
  if (span.start && span.start.getTime() < from!.getTime()) raw.push({ start: span.start, end: from! });
  if (to.getTime() < span.end.getTime()) raw.push({ start: span.start && span.start > to ? span.start : to, end: span.end });
  return { days: { from, to }, raw };
}

const firstOfMonth = (d: Date, up: boolean) => {
  const m = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));
  return up && m.getTime() < d.getTime() ? new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)) : m;
};
const isoDay = (d: Date) => d.toISOString().slice(0, 10);

const addMonths = (d: Date, n: number) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + n, 1));
const daysBetween = (a: Date, b: Date) => Math.round((b.getTime() - a.getTime()) / DAY_MS);

/** Rows of one unit with `day` in [from, to) (`from` null: since the beginning), counted with `sign`. */
export type RollupPiece = { unit: 'd' | 'm'; from: Date | null; to: Date; sign: 1 | -1 };

/**
 * The rollup rows that cover `days` once, as few as it can: whole months from the month rows; a part
 * of a month from its day rows, or from its month row less the days it lacks when those are fewer (a
 * month row is the sum of its day rows, so the difference is exact). A year to today reads 12 month
 * rows, a few days at its start and today's row, instead of the start's and this month's days.
 */
export function rollupPieces(days: { from: Date | null; to: Date }): RollupPiece[] {
  const { from, to } = days;
  const m0 = from ? firstOfMonth(from, true) : null;
  const m1 = firstOfMonth(to, false);
  // a part [a, b) of the month starting `ms`: its days, or its month less the days outside
  const part = (ms: Date, a: Date, b: Date): RollupPiece[] => {
    const me = addMonths(ms, 1);
    if (daysBetween(ms, a) + daysBetween(b, me) >= daysBetween(a, b)) return [{ unit: 'd', from: a, to: b, sign: 1 }];
    const out: RollupPiece[] = [{ unit: 'm', from: ms, to: me, sign: 1 }];
    if (a > ms) out.push({ unit: 'd', from: ms, to: a, sign: -1 });
    if (b < me) out.push({ unit: 'd', from: b, to: me, sign: -1 });
    return out;
  };
  if (from && m0!.getTime() > m1.getTime()) return part(m1, from, to); // within one month
  const pieces: RollupPiece[] = [];
  if (from && from < m0!) pieces.push(...part(addMonths(m0!, -1), from, m0!));
  if (!m0 || m0 < m1) pieces.push({ unit: 'm', from: m0, to: m1, sign: 1 });
  if (m1 < to) pieces.push(...part(m1, m1, to));
  return pieces;
}

/** What each rollup view is keyed by and sums (migrations 0049 and 0061). */
const ROLLUP_SOURCES = {
  rollup_facts: {
    keys: ['partner_id', 'campaign_id', 'link_id', 'currency'],
    sums: ['clicks', 'filtered', 'converted', 'leads', 'customers', 'sales', 'revenue', 'accrued', 'approved', 'paid', 'reversed', 'earned'],
  },
  click_breakdown_facts: { keys: ['campaign_id', 'dimension', 'value'], sums: ['clicks', 'filtered', 'conversions'] },
} as const;

/**
 * The rows of a rollup view (`rollup_facts`, `click_breakdown_facts`) covering `days` once
 * (rollupPieces), as a derived table to alias: its keys and its sums, negated where a piece is
 * subtracted, so every sum over it is exact. No rows without days.
 */
export function rollupRows(sql: Sql, source: keyof typeof ROLLUP_SOURCES, days: SpanParts['days']): Fragment {
  const { keys, sums } = ROLLUP_SOURCES[source];
  const select = (sign: 1 | -1) => sql.unsafe([...keys, ...sums.map((c) => (sign === 1 ? c : `-${c} as ${c}`))].join(', '));
  if (!days) return sql`(select ${select(1)} from ${sql(source)} where false)`;
  const pieces = rollupPieces(days).map(
    (p) => sql`select ${select(p.sign)} from ${sql(source)} where unit = ${p.unit} ${p.from ? sql`and day >= ${isoDay(p.from)}::date` : sql``} and day < ${isoDay(p.to)}::date`,
  );
  return sql`(${pieces.reduce((all, piece) => sql`${all} union all ${piece}`)})`;
}

/** `and column in one of the spans`; `and false` for none. */
export function withinAny(sql: Sql, column: string, spans: Span[]): Fragment {
  if (spans.length === 0) return sql`and false`;
  const one = (s: Span) => sql`(${s.start ? sql`${sql(column)} >= ${s.start} and` : sql``} ${sql(column)} < ${s.end})`;
  return spans.length === 1 ? sql`and ${one(spans[0]!)}` : sql`and (${one(spans[0]!)} or ${one(spans[1]!)})`;
}

/**
 * `and` a click (`alias`: a row of clicks) in one of the spans: by its time, for the
 * (…, created_at) indexes, and by its id, so only the spans' monthly partitions are read (clicks
 * are partitioned by id; the time alone prunes none, and a lookup per partner then probes every
 * month's partition).
 */
export function clickWithinAny(sql: Sql, alias: string, spans: Span[]): Fragment {
  if (spans.length === 0) return sql`and false`;
  return sql`${withinAny(sql, `${alias}.created_at`, spans)} ${idWithinAny(sql, `${alias}.id`, 'click', spans)}`;
}

/** `and id in one of the spans` for a table keyed by time-sortable ids. */
export function idWithinAny(sql: Sql, column: string, kind: 'click' | 'attribution' | 'commission' | 'partner', spans: Span[]): Fragment {
  if (spans.length === 0) return sql`and false`;
  const one = (s: Span) => sql`(${s.start ? sql`${sql(column)} >= ${idFloor(kind, s.start)} and` : sql``} ${sql(column)} < ${idFloor(kind, s.end)})`;
  return spans.length === 1 ? sql`and ${one(spans[0]!)}` : sql`and (${one(spans[0]!)} or ${one(spans[1]!)})`;
}
