// Traffic breakdowns: a scope's credited clicks and conversions over a range, by sub-ID, country,
// device type, browser and referrer domain (the columns a click records when it is made,
// modules/links/traffic.ts). The figures are those of ./figures.ts (docs/analytics.md): credited
// clicks on the click's time; conversions are customers whose first sale is in the range, counted
// in the bucket of the click their sale was attributed through (a sale split over several touches
// counts once in each of their buckets, so a breakdown's conversions may add up to more than the
// total). Sales through a promotion code have no click and are in no bucket.
//
// The program's and a campaign's clicks and conversions over whole days come from the breakdown
// rollups (migrations/0061_click_breakdown_rollups.sql, kept by triggers on clicks and attributions,
// so they outlive CLICK_RETENTION_DAYS); today and part-days from the rows themselves (splitSpan),
// each moment once. A partner's, a partner's in a campaign and a link's come from their rows.
import type { Sql } from '../../db';
import { clickWithinAny, creditedClick, firstSale, idWithinAny, rollupRows, splitSpan, withinAny, type Span } from './figures';

export const DIMENSIONS = [
  { key: 'sub', column: 'sub_id', label: 'Sub-ID' },
  { key: 'country', column: 'country', label: 'Country' },
  { key: 'device', column: 'device', label: 'Device' },
  { key: 'browser', column: 'browser', label: 'Browser' },
  { key: 'referrer', column: 'referrer_domain', label: 'Referrer' },
] as const;

export type Dimension = (typeof DIMENSIONS)[number]['key'];

/** Whose traffic: a partner's, a link's, a campaign's (any of them together), or the whole program's. */
export type TrafficScope = { partnerId?: string; linkId?: string; campaignId?: string };

/** One bucket: `value` null is "not known" (no sub-ID, an unknown country, no referrer). */
export type BreakdownRow = { value: string | null; clicks: number; conversions: number };

/** One dimension's top buckets (by clicks, then conversions) and the rest summed. */
export type Breakdown = { dimension: Dimension; label: string; rows: BreakdownRow[]; rest: { buckets: number; clicks: number; conversions: number } };

/** Buckets shown per dimension; the rest are summed in one line. */
export const TOP = 15;

type Fragment = ReturnType<Sql>;

const CLICK_COLUMNS = 'c.sub_id, c.country, c.device, c.browser, c.referrer_domain';

/** The scope as conditions on the clicks `c` in any of `spans`. */
function clickScope(sql: Sql, scope: TrafficScope, spans: Span[]): Fragment {
  const parts: Fragment[] = [];
  if (scope.linkId) parts.push(sql`and c.link_id = ${scope.linkId}`);
  if (scope.partnerId) parts.push(sql`and c.partner_id = ${scope.partnerId}`);
  if (scope.campaignId) parts.push(sql`and c.campaign_id = ${scope.campaignId}`);
  // by a link or partner: their (…, created_at) indexes; by a campaign alone or the whole program: the ids' time
  const time = scope.linkId || scope.partnerId ? clickWithinAny(sql, 'c', spans) : idWithinAny(sql, 'c.id', 'click', spans);
  return sql`${time} ${parts.reduce((a, b) => sql`${a} ${b}`, sql``)}`;
}

/** Whether the breakdown rollups cover `scope`: the whole program or a campaign (migration 0061). */
const rolledUp = (scope: TrafficScope) => !scope.partnerId && !scope.linkId;

function saleScope(sql: Sql, scope: TrafficScope): Fragment {
  return sql`${scope.partnerId ? sql`and a.partner_id = ${scope.partnerId}` : sql``}
    ${scope.campaignId ? sql`and a.campaign_id = ${scope.campaignId}` : sql``}
    ${scope.linkId ? sql`and c.link_id = ${scope.linkId}` : sql``}`;
}

type Grouped = { sub_id: string | null; country: string | null; device: string | null; browser: string | null; referrer_domain: string | null; g: number; n: number };

/** Credited clicks and conversions per bucket: a dimension's key, a value (null: not known) and how many. */
type Counted = { dimension: Dimension; value: string | null; n: number; conversions: number };

/** Which dimension a grouping-sets row belongs to: `grouping()` has a 0 bit for each column grouped by (the first column highest). */
const GROUPING = `grouping(${CLICK_COLUMNS})`;

/** The `grouping()` of a dimension's rows: every bit set but its own. */
const maskOf = (i: number) => 0b11111 ^ (1 << (DIMENSIONS.length - 1 - i));

/**
 * A grouping-sets row of the clicks as a bucket, the shape the rollups keep: its dimension's key, and
 * its value (the columns a row is not grouped by are null, so coalesce() is the one it is).
 */
const BUCKET = `case ${GROUPING} ${DIMENSIONS.map((d, i) => `when ${maskOf(i)} then '${d.key}'`).join(' ')} end as dimension, coalesce(${CLICK_COLUMNS}) as value`;

/**
 * The breakdowns of `scope`'s traffic over `span`, every dimension at once: whole days from the
 * breakdown rollups (the program, a campaign), the rest from the clicks and the first sales, one
 * pass each (GROUPING SETS), not one per dimension.
 */
export async function trafficBreakdowns(sql: Sql, input: { scope: TrafficScope; span: Span; now?: Date }): Promise<Breakdown[]> {
  const { scope, span } = input;
  // a partner's or a link's clicks are few enough to read whole, by their (…, created_at) indexes
  const parts = rolledUp(scope) ? splitSpan(span, input.now) : { days: null, raw: [span] };
  const sets = sql.unsafe(`grouping sets (${CLICK_COLUMNS.split(', ').map((c) => `(${c})`).join(', ')})`);
  const [rolled, raw, conversions] = await Promise.all([
    parts.days
      ? sql<Counted[]>`
          select r.dimension, r.value, sum(r.clicks)::int as n, sum(r.conversions)::int as conversions
          from ${rollupRows(sql, 'click_breakdown_facts', parts.days)} r
          where r.campaign_id = ${scope.campaignId ?? ''}
          group by 1, 2`
      : [],
    parts.raw.length > 0
      ? sql<Counted[]>`
          select ${sql.unsafe(BUCKET)}, count(*)::int as n, 0 as conversions
          from clicks c
          where ${creditedClick(sql, 'c')} ${clickScope(sql, scope, parts.raw)}
          group by ${sets}`
      : [],
    parts.raw.length > 0
      ? sql<Grouped[]>`
          select ${sql.unsafe(CLICK_COLUMNS)}, ${sql.unsafe(GROUPING)}::int as g, count(distinct a.user_id)::int as n
          -- the raw spans' sales found by their time (events_occurred_at), then their clicks
          from events x join attributions a on a.event_id = x.id join clicks c on c.id = a.click_id
          where x.attribution_status = 'attributed' ${withinAny(sql, 'x.occurred_at', parts.raw)}
            and a.click_id is not null ${withinAny(sql, 'a.occurred_at', parts.raw)} ${saleScope(sql, scope)}
            and ${firstSale(sql, 'a.user_id', 'a.occurred_at')}
          group by ${sets}`
      : [],
  ]);
  const clicks = [...rolled, ...raw];
  return DIMENSIONS.map((d, i) => {
    const mask = maskOf(i);
    const buckets = new Map<string | null, BreakdownRow>();
    const bucket = (value: string | null) => {
      let row = buckets.get(value);
      if (!row) buckets.set(value, (row = { value, clicks: 0, conversions: 0 }));
      return row;
    };
    // a bucket whose clicks were all filtered has rollup rows of 0 credited clicks: no bucket
    for (const r of clicks) {
      if (r.dimension !== d.key) continue;
      if (r.n !== 0) bucket(r.value).clicks += r.n;
      if (r.conversions !== 0) bucket(r.value).conversions += r.conversions;
    }
    for (const r of conversions) if (r.g === mask) bucket(r[d.column]).conversions += r.n;
    // most clicks first, then most conversions; among equals the unknown bucket last, the rest by name
    const sorted = [...buckets.values()].sort(
      (a, b) => b.clicks - a.clicks || b.conversions - a.conversions || Number(a.value === null) - Number(b.value === null) || (a.value ?? '').localeCompare(b.value ?? ''),
    );
    const rest = sorted.slice(TOP);
    return {
      dimension: d.key,
      label: d.label,
      rows: sorted.slice(0, TOP),
      rest: { buckets: rest.length, clicks: rest.reduce((s, r) => s + r.clicks, 0), conversions: rest.reduce((s, r) => s + r.conversions, 0) },
    };
  });
}

/** A link's owner and campaign, for a traffic page's scope; null when there is no such link. */
export async function linkScope(sql: Sql, linkId: string): Promise<{ id: string; slug: string; partnerId: string; campaignId: string } | null> {
  const [row] = await sql<{ id: string; slug: string; partner_id: string; campaign_id: string }[]>`
    select id, slug, partner_id, campaign_id from links where id = ${linkId}`;
  return row ? { id: row.id, slug: row.slug, partnerId: row.partner_id, campaignId: row.campaign_id } : null;
}

/** A partner's links (newest first, at most `limit`), for the portal's link filter. */
export async function partnerLinkChoices(sql: Sql, partnerId: string, limit: number): Promise<{ id: string; slug: string }[]> {
  return sql<{ id: string; slug: string }[]>`select id, slug from links where partner_id = ${partnerId} order by id desc limit ${limit}`;
}
