// Daily exchange rates (migration 0053): checked and stored from PUT /v1/fx-rates or the ECB's daily
// XML (FX_RATES_URL), and the reporting-currency conversion of report totals. Money owed and paid
// (balances, payouts) never goes through here.
import type { Sql } from '../../db';
import { invalidFields, type FieldProblem } from '../../lib/errors';
import { EXPONENTS, isKnownCurrency, roundHalfEven, scaleDecimal } from '../../lib/money';

/** A day's rates against one base: 1 base = rates[quote] quote. */
export type DayRates = { date: string; base: string; rates: Record<string, number> };

const MAX_RATES = 200;
const MAX_RATE = 1e9;
const isoDay = (d: Date) => d.toISOString().slice(0, 10);

/** The body of PUT /v1/fx-rates checked: every problem named by its field, or the rates to store. */
export function checkDayRates(input: DayRates, now: Date = new Date()): DayRates {
  const problems: FieldProblem[] = [];
  const day = /^\d{4}-\d{2}-\d{2}$/.test(input.date) ? new Date(`${input.date}T00:00:00.000Z`) : null;
  if (!day || Number.isNaN(day.getTime()) || isoDay(day) !== input.date) problems.push({ field: 'date', message: 'must be a day, YYYY-MM-DD' });
  else if (input.date > isoDay(now)) problems.push({ field: 'date', message: 'must not be in the future' });
  if (!isKnownCurrency(input.base)) problems.push({ field: 'base', message: `unknown currency code ${JSON.stringify(input.base)} (ISO 4217, upper case)` });
  const entries = Object.entries(input.rates);
  if (entries.length === 0 || entries.length > MAX_RATES) problems.push({ field: 'rates', message: `must hold 1 to ${MAX_RATES} rates` });
  for (const [code, rate] of entries.slice(0, MAX_RATES + 1)) {
    const field = `rates.${code}`;
    if (!isKnownCurrency(code)) problems.push({ field, message: `unknown currency code ${JSON.stringify(code)} (ISO 4217, upper case)` });
    else if (code === input.base) problems.push({ field, message: 'is the base itself' });
    else if (typeof rate !== 'number' || !Number.isFinite(rate) || rate <= 0 || rate > MAX_RATE) problems.push({ field, message: `must be a positive number up to ${MAX_RATE}` });
  }
  if (problems.length > 0) throw invalidFields(problems);
  return input;
}

/** Stores a day's rates (replacing that day's rates for the same base and quotes). */
export async function storeDayRates(sql: Sql, rates: DayRates, source: 'api' | 'url'): Promise<void> {
  const rows = Object.entries(rates.rates).map(([quote, rate]) => ({ day: rates.date, base: rates.base, quote, rate: String(rate), source }));
  if (rows.length === 0) return;
  await sql`
    insert into fx_rates (day, base, quote, rate, source)
    select day::date, base, quote, rate::numeric, source from json_to_recordset(${JSON.stringify(rows)}::text::json) as r(day text, base text, quote text, rate text, source text)
    on conflict (day, base, quote) do update set rate = excluded.rate, source = excluded.source, updated_at = now()`;
}

/**
 * The days of an ECB reference-rates document (eurofxref-daily.xml, or the 90-day and historic
 * files): `<Cube time="YYYY-MM-DD">` holding `<Cube currency="USD" rate="1.0412"/>`, against EUR.
 * Currencies this service does not know are left out; a document without a day is an error.
 */
export function parseEcbXml(xml: string): DayRates[] {
  const days: DayRates[] = [];
  // the rates inside a day are empty elements, so a day ends at the first </Cube> after it
  const dayPattern = /<Cube\s+time=["'](\d{4}-\d{2}-\d{2})["']\s*>([\s\S]*?)<\/Cube>/g;
  for (const match of xml.matchAll(dayPattern)) {
    const rates: Record<string, number> = {};
    for (const r of match[2]!.matchAll(/<Cube\s+currency=["']([A-Z]{3})["']\s+rate=["']([0-9.]+)["']\s*\/>/g)) {
      const rate = Number(r[2]);
      if (isKnownCurrency(r[1]!) && r[1] !== 'EUR' && Number.isFinite(rate) && rate > 0) rates[r[1]!] = rate;
    }
    if (Object.keys(rates).length > 0) days.push({ date: match[1]!, base: 'EUR', rates });
  }
  if (days.length === 0) throw new Error('no <Cube time="..."> day with rates in the document');
  return days;
}

// ---- conversion

/** A total in the reporting currency: the sum of what could be converted, and what could not. */
export type Converted = {
  currency: string;
  amount: bigint;
  unconverted: { currency: string; amount: bigint }[];
  /** The first and last day whose rates were used (null when nothing needed a rate). */
  rateDays: { first: string; last: string } | null;
};

type Rate = { base: string; quote: string; rate: bigint };
/** Rates are read as integers scaled by 10^12. */
const RATE_SCALE = 12;

/** Converts per-day per-currency sums to `to` at each day's rate (or the latest earlier day's, up to 10 days back). */
export async function convertDaily(sql: Sql, to: string, sums: { day: string; currency: string; amount: bigint }[]): Promise<Converted> {
  const result: Converted = { currency: to, amount: 0n, unconverted: [], rateDays: null };
  const needed = sums.filter((s) => s.amount !== 0n);
  if (needed.length === 0) return result;
  const days = needed.map((s) => s.day).sort();
  const rows = await sql<{ day: string; base: string; quote: string; rate: string }[]>`
    select to_char(day, 'YYYY-MM-DD') as day, base, quote, rate::text as rate from fx_rates
    where day >= ${days[0]!}::date - 10 and day <= ${days.at(-1)!}::date
    order by day desc`;
  const byDay = new Map<string, Rate[]>();
  for (const r of rows) {
    const list = byDay.get(r.day) ?? [];
    list.push({ base: r.base, quote: r.quote, rate: scaleDecimal(r.rate, RATE_SCALE, 'round')! });
    byDay.set(r.day, list);
  }
  const knownDays = [...byDay.keys()].sort().reverse();
  const left = new Map<string, bigint>();
  for (const s of needed) {
    const converted = s.currency === to ? { amount: s.amount, day: null } : convertOne(s, to, knownDays, byDay);
    if (converted === null) left.set(s.currency, (left.get(s.currency) ?? 0n) + s.amount);
    else {
      result.amount += converted.amount;
      const d = converted.day;
      if (d) result.rateDays = result.rateDays ? { first: d < result.rateDays.first ? d : result.rateDays.first, last: d > result.rateDays.last ? d : result.rateDays.last } : { first: d, last: d };
    }
  }
  result.unconverted = [...left].map(([currency, amount]) => ({ currency, amount }));
  return result;
}

function convertOne(s: { day: string; currency: string; amount: bigint }, to: string, knownDays: string[], byDay: Map<string, Rate[]>): { amount: bigint; day: string } | null {
  const floor = new Date(new Date(`${s.day}T00:00:00Z`).getTime() - 10 * 86_400_000).toISOString().slice(0, 10);
  for (const day of knownDays) {
    if (day > s.day) continue;
    if (day < floor) break;
    const rates = byDay.get(day)!;
    for (const base of new Set(rates.map((r) => r.base))) {
      // 1 base = x from, 1 base = y to: amount from * y / x
      const of = (code: string) => (code === base ? 10n ** BigInt(RATE_SCALE) : rates.find((r) => r.base === base && r.quote === code)?.rate);
      const x = of(s.currency);
      const y = of(to);
      if (!x || !y) continue;
      const shift = EXPONENTS[to]! - EXPONENTS[s.currency]!;
      const num = s.amount * y * (shift > 0 ? 10n ** BigInt(shift) : 1n);
      const den = x * (shift < 0 ? 10n ** BigInt(-shift) : 1n);
      return { amount: roundHalfEven(num, den), day };
    }
  }
  return null;
}

/**
 * Revenue and earned commissions given per day and currency (reports/funnel.ts `daily`, rollups for
 * whole days and rows for today) converted to `to` at each day's rate. For reporting only: money
 * owed and paid (balances, payouts) never comes through here.
 */
export async function convertDayMoney(sql: Sql, to: string, daily: { day: string; currency: string; revenue: bigint; commissions: bigint }[]): Promise<{ revenue: Converted; commissions: Converted }> {
  const [revenue, commissions] = await Promise.all([
    convertDaily(sql, to, daily.map((d) => ({ day: d.day, currency: d.currency, amount: d.revenue }))),
    convertDaily(sql, to, daily.map((d) => ({ day: d.day, currency: d.currency, amount: d.commissions }))),
  ]);
  return { revenue, commissions };
}
