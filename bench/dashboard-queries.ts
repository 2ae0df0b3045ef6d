// The dashboard queries bench/dashboard.ts times: what the admin overview, partners, campaign and
// commission pages and the partner portal run on each view, for the default range (30 days) and a long
// one (12 months). The partner and campaign are the busiest of the seed, so each reads the most rows.
import type { Sql } from '../src/db';
import { campaignLinks, campaignNumbers, campaignPartners, seenEventTypes } from '../src/modules/reports/campaigns';
import { moneySeries, onboardingState, overviewCurrency, overviewTotals, todoCounts, topPartners } from '../src/modules/reports/overview';
import { linkStats, moneyCurrencies, partnerCounts, partnerMoney, partnerStats, referredCustomers } from '../src/modules/reports/partners';
import { partnerBalances, partnerDailyEarnings, partnerPeriodTotals } from '../src/modules/reports/portal';
import { trafficBreakdowns } from '../src/modules/reports/traffic';

/**
 * Indexes added for the dashboards (migrations 0015-0017, 0019, 0033); the bench drops them for its
 * floor (0019's covering indexes are put back as the plain event_id indexes they replaced).
 */
export const REPORTING_INDEXES = [
  'events_occurred_at', 'attributions_campaign', 'commissions_campaign_occurred', 'commissions_partner_occurred', 'commissions_currency',
  'commissions_event', 'attributions_event', 'clicks_filtered', 'referrals_started', 'referral_touches_click',
];
export const FLOOR_INDEXES = ['create index commissions_event on commissions (event_id)', 'create index attributions_event on attributions (event_id)'];

const DAY = 86_400_000;
const now = new Date();
const tomorrow = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) + DAY);
/**
 * `12 m`: the views the goal is about (whole days from the rollups, today from the rows);
 * `today`: the same views over today alone, all of it read from the rows (the part no rollup saves);
 * `30 d`: the default range.
 */
export const RANGES = {
  '30 d': { start: new Date(tomorrow.getTime() - 30 * DAY), end: tomorrow },
  '12 m': { start: new Date(tomorrow.getTime() - 365 * DAY), end: tomorrow },
  today: { start: new Date(tomorrow.getTime() - DAY), end: tomorrow },
};
export type RangeLabel = keyof typeof RANGES;
/** The range of the same length just before `r` (the views' "previous period"). */
export const previousOf = (r: { start: Date; end: Date }) => ({ start: new Date(2 * r.start.getTime() - r.end.getTime()), end: r.start });

let busiest: { partnerId: string; campaignId: string } | undefined;
async function subjects(sql: Sql) {
  if (!busiest) {
    const [row] = await sql<{ partner_id: string; campaign_id: string }[]>`
      select partner_id, campaign_id from commissions group by 1, 2 order by count(*) desc limit 1`;
    busiest = { partnerId: row!.partner_id, campaignId: row!.campaign_id };
  }
  return busiest;
}

/** Median wall time of `runs` calls (after one warm-up), in ms. */
export async function median(runs: number, run: () => Promise<unknown>): Promise<number> {
  await run();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await run();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

export type DashboardQuery = { name: string; range: RangeLabel | null; run: (sql: Sql) => Promise<unknown> };

export const DASHBOARD_QUERIES: DashboardQuery[] = [
  { name: 'overview: main currency', range: null, run: (sql) => overviewCurrency(sql) },
  { name: 'overview: to-do counts', range: null, run: (sql) => todoCounts(sql) },
  { name: 'overview: setup checklist', range: null, run: (sql) => onboardingState(sql) },
  { name: 'partners: currencies', range: null, run: (sql) => moneyCurrencies(sql) },
  { name: 'campaign editor: seen event types', range: null, run: (sql) => seenEventTypes(sql, { exclude: [] }) },
  { name: 'portal: balances', range: null, run: async (sql) => partnerBalances(sql, (await subjects(sql)).partnerId) },
  { name: 'partner page: referred customers', range: null, run: async (sql) => referredCustomers(sql, { partnerId: (await subjects(sql)).partnerId, currency: 'USD', limit: 25, offset: 0 }) },
  ...(Object.entries(RANGES) as [RangeLabel, { start: Date; end: Date }][]).flatMap(([label, range]) => ([
    { name: `overview: totals and previous, ${label}`, run: (sql: Sql) => Promise.all([overviewTotals(sql, range), overviewTotals(sql, previousOf(range))]) },
    { name: `overview: money chart, ${label}`, run: (sql: Sql) => moneySeries(sql, { ...range, currency: 'USD', bucket: label === '12 m' ? 'week' : 'day' }) },
    { name: `overview: top partners, ${label}`, run: (sql: Sql) => topPartners(sql, { ...range, currency: 'USD', limit: 10 }) },
    {
      name: `partners list by commissions, ${label}`,
      run: (sql: Sql) => partnerStats(sql, { span: range, currency: 'USD', sort: { key: 'commissions', dir: 'desc' }, limit: 50, offset: 0 }),
    },
    {
      name: `partners list newest first, ${label}`,
      run: (sql: Sql) => partnerStats(sql, { span: range, currency: 'USD', sort: { key: 'created', dir: 'desc' }, limit: 50, offset: 0 }),
    },
    {
      name: `partner page: counts, money, links, ${label}`,
      run: async (sql: Sql) => {
        const { partnerId } = await subjects(sql);
        return Promise.all([
          partnerCounts(sql, { partnerId, span: range, previous: previousOf(range) }),
          partnerMoney(sql, { partnerId, span: range }),
          linkStats(sql, { partnerId, span: range, currency: 'USD', limit: 100 }),
        ]);
      },
    },
    {
      name: `campaign page: numbers, partners, links, ${label}`,
      run: async (sql: Sql) => {
        const { campaignId } = await subjects(sql);
        return Promise.all([
          campaignNumbers(sql, { campaignIds: [campaignId], ...range }),
          campaignNumbers(sql, { campaignIds: [campaignId], ...previousOf(range) }),
          campaignPartners(sql, { campaignId, currency: 'USD', limit: 50, ...range }),
          campaignLinks(sql, { campaignId, currency: 'USD', limit: 50, ...range }),
        ]);
      },
    },
    {
      name: `portal home: totals and earnings chart, ${label}`,
      run: async (sql: Sql) => {
        const { partnerId } = await subjects(sql);
        return Promise.all([
          partnerPeriodTotals(sql, { partnerId, currency: 'USD', ...range, previous: previousOf(range) }),
          partnerDailyEarnings(sql, { partnerId, currency: 'USD', ...range }),
        ]);
      },
    },
    { name: `traffic: program breakdowns, ${label}`, run: (sql: Sql) => trafficBreakdowns(sql, { scope: {}, span: range }) },
    { name: `portal traffic: partner breakdowns, ${label}`, run: async (sql: Sql) => trafficBreakdowns(sql, { scope: { partnerId: (await subjects(sql)).partnerId }, span: range }) },
  ] as Omit<DashboardQuery, 'range'>[]).map((q) => ({ ...q, range: label }))),
];
