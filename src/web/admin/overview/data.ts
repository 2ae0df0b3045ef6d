// What the overview shows (GET /admin): the date range, the totals against the previous period, the
// money series, the top partners, the to-do counts and the setup state, read in one go.
import type { AppContext } from '../../../context';
import type { Sql } from '../../../db';
import {
  bucketFor,
  firstActivity,
  moneySeries,
  onboardingState,
  overviewCurrency,
  overviewTotals,
  todoCounts,
  topPartners,
  type Bucket,
  type LeaderRow,
  type MoneyPoint,
  type Onboarding,
  type OverviewTotals,
  type Period,
  type TodoCounts,
} from '../../../modules/reports/overview';
import { DAY } from '../../../lib/time';
import { convertDayMoney, type Converted } from '../../../modules/fx/service';
import { funnel, type Funnel } from '../../../modules/reports/funnel';
import { parseRange, rangeStart, type DateRange } from '../../range';

export const PATH = '/admin';
export const LATEST = '/admin/overview/latest-event';
export const TOP = 10;

/** A query value as one string (a repeated parameter gives its first value). */
export function one(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && typeof value[0] === 'string') return value[0];
  return undefined;
}

export type Data = {
  range: DateRange;
  currency: string | null;
  current: OverviewTotals;
  previous: OverviewTotals | null;
  series: MoneyPoint[];
  bucket: Bucket;
  leaders: LeaderRow[];
  todo: TodoCounts;
  setup: Onboarding;
  /** Whether anything ever happened: no click and no event yet is an empty program. */
  active: boolean;
  billingConfigured: boolean;
  /** With REPORTING_CURRENCY: the range's revenue and commissions in it, converted at each day's rate. */
  converted: { revenue: Converted; commissions: Converted } | null;
  /** The program's funnel over the range: clicks, leads, customers, revenue. */
  funnel: Funnel;
};

export function loadOverview(ctx: AppContext, query: Record<string, unknown>): Promise<Data> {
  // figures only: a report read, on the replica when DATABASE_REPLICA_URL has a current one
  return ctx.reads.run((sql) => overviewFrom(ctx, sql, query));
}

async function overviewFrom(ctx: AppContext, sql: Sql, query: Record<string, unknown>): Promise<Data> {
  const range = parseRange({ range: one(query.range), from: one(query.from), to: one(query.to) });
  const period: Period = { start: rangeStart(range), end: range.end };
  const to = ctx.config.reportingCurrency;
  const [currency, first, current, previous, todo, setup, programFunnel] = await Promise.all([
    overviewCurrency(sql),
    firstActivity(sql),
    overviewTotals(sql, period),
    range.previous ? overviewTotals(sql, range.previous) : Promise.resolve(null),
    // what is waiting and the setup checklist change with the admin's own actions: from the primary
    todoCounts(ctx.sql),
    onboardingState(ctx.sql),
    funnel(sql, {}, period),
  ]);
  // converted from the funnel's money per day (rollups for whole days, rows for today)
  const converted = to ? await convertDayMoney(ctx.sql, to, programFunnel.daily) : null;
  // "all time" is drawn from the first day anything happened (or just today, before anything did)
  const firstDay = first ? new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth(), first.getUTCDate())) : new Date(range.end.getTime() - DAY);
  const drawn: Period = range.start ? period : { start: firstDay, end: range.end };
  const bucket = bucketFor(drawn);
  const [series, leaders] = currency
    ? await Promise.all([moneySeries(sql, { ...drawn, currency, bucket }), topPartners(sql, { ...period, currency, limit: TOP })])
    : [[], []];
  return {
    range,
    currency,
    current,
    previous,
    series,
    bucket,
    leaders,
    todo,
    setup,
    active: first !== null,
    billingConfigured: ctx.billingPlugins.some((p) => p.receivesWebhooks),
    converted,
    funnel: programFunnel,
  };
}
