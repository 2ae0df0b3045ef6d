// The date range of a dashboard: presets and a custom range read from the query (the range lives in
// the URL), the previous period of equal length to compare with, and the picker (a GET form).
import { DAY } from '../lib/time';

export const RANGE_PRESETS = [
  { key: '7d', label: 'Last 7 days' },
  { key: '30d', label: 'Last 30 days' },
  { key: '90d', label: 'Last 90 days' },
  { key: '12m', label: 'Last 12 months' },
  { key: 'mtd', label: 'Month to date' },
  { key: 'ytd', label: 'Year to date' },
  { key: 'all', label: 'All time' },
  { key: 'custom', label: 'Custom' },
] as const;

export type RangeKey = (typeof RANGE_PRESETS)[number]['key'];

export type DateRange = {
  key: RangeKey;
  /** "Last 30 days", "2026-10-01 – 2026-10-31" */
  label: string;
  /** First instant inside the range (a UTC midnight); null for all time. */
  start: Date | null;
  /** First instant after the range (exclusive). */
  end: Date;
  /** The period of equal length just before; null for all time. */
  previous: { start: Date; end: Date } | null;
  /** Words for the comparison: "previous 30 days". */
  previousLabel: string;
  /** The custom range's inputs as typed ("YYYY-MM-DD"), for the picker. */
  from: string;
  to: string;
  /** A problem with a custom range, shown beside the picker (the default range is used instead). */
  problem: string | null;
};

const DEFAULT: RangeKey = '30d';
const utcMidnight = (d: Date) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
const isoDay = (d: Date) => d.toISOString().slice(0, 10);

/** A "YYYY-MM-DD" that names a real day, as a UTC midnight; null otherwise. */
function parseDay(text: string | undefined): Date | null {
  if (!text || !/^\d{4}-\d{2}-\d{2}$/.test(text)) return null;
  const d = new Date(`${text}T00:00:00.000Z`);
  return Number.isNaN(d.getTime()) || isoDay(d) !== text ? null : d;
}

/**
 * The range a query asks for (`range`, and `from` / `to` for a custom one); anything unknown or
 * malformed falls back to the last 30 days, with `problem` saying why for a bad custom range.
 */
export function parseRange(query: Record<string, string | undefined>, now: Date = new Date()): DateRange {
  const asked = RANGE_PRESETS.find((p) => p.key === query.range)?.key ?? DEFAULT;
  const tomorrow = new Date(utcMidnight(now).getTime() + DAY);
  const from = query.from ?? '';
  const to = query.to ?? '';
  const make = (key: RangeKey, start: Date | null, end: Date, label: string, problem: string | null = null): DateRange => {
    const days = start ? Math.round((end.getTime() - start.getTime()) / DAY) : 0;
    return {
      key,
      label,
      start,
      end,
      previous: start ? { start: new Date(start.getTime() - (end.getTime() - start.getTime())), end: start } : null,
      previousLabel: start ? `previous ${days === 1 ? 'day' : `${days} days`}` : '',
      from,
      to,
      problem,
    };
  };
  const lastDays = (key: RangeKey, days: number, label: string) => make(key, new Date(tomorrow.getTime() - days * DAY), tomorrow, label);
  switch (asked) {
    case '7d':
      return lastDays('7d', 7, 'Last 7 days');
    case '90d':
      return lastDays('90d', 90, 'Last 90 days');
    case '12m': {
      const start = new Date(Date.UTC(now.getUTCFullYear() - 1, now.getUTCMonth(), now.getUTCDate() + 1));
      return make('12m', start, tomorrow, 'Last 12 months');
    }
    case 'mtd':
      return make('mtd', new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)), tomorrow, 'Month to date');
    case 'ytd':
      return make('ytd', new Date(Date.UTC(now.getUTCFullYear(), 0, 1)), tomorrow, 'Year to date');
    case 'all':
      return make('all', null, tomorrow, 'All time');
    case 'custom': {
      const start = parseDay(from);
      const last = parseDay(to);
      const fallback = (problem: string) => ({ ...lastDays(DEFAULT, 30, 'Last 30 days'), from, to, problem });
      if (!start || !last) return fallback('Enter both dates of the custom range.');
      if (last < start) return fallback('The range ends before it starts.');
      if (last.getTime() - start.getTime() > 3660 * DAY) return fallback('A custom range spans at most ten years.');
      return make('custom', start, new Date(last.getTime() + DAY), `${from} – ${to}`);
    }
    default:
      return lastDays('30d', 30, 'Last 30 days');
  }
}

/** The query parameters that reproduce a range (for links that keep it). */
export function rangeQuery(range: DateRange): Record<string, string> {
  if (range.key === DEFAULT) return {};
  return range.key === 'custom' ? { range: 'custom', from: range.from, to: range.to } : { range: range.key };
}

/**
 * Change against the previous period: "+12%", "-3%", "new" when the earlier value was 0 and this
 * one is not, "no change" when both are equal. `good` says whether the change is good news (up is
 * good unless `downIsGood`), null when there is nothing to colour.
 */
export function compare(current: bigint | number, previous: bigint | number, options: { downIsGood?: boolean } = {}): { text: string; good: boolean | null } {
  const c = BigInt(current);
  const p = BigInt(previous);
  if (c === p) return { text: 'no change', good: null };
  if (p === 0n) return { text: 'new', good: options.downIsGood ? false : true };
  // integer percent, rounded half away from zero, from integers only
  const diff = c - p;
  const abs = diff < 0n ? -diff : diff;
  const base = p < 0n ? -p : p;
  const percent = (abs * 200n + base) / (2n * base);
  const up = diff > 0n;
  return { text: `${up ? '+' : '-'}${percent}%`, good: up !== !!options.downIsGood };
}

/** Change of a rate in percentage points: "+1.2 pts". Rates are given in basis points (1/100 %). */
export function comparePoints(currentBp: number, previousBp: number): { text: string; good: boolean | null } {
  const diff = Math.round(currentBp) - Math.round(previousBp);
  if (diff === 0) return { text: 'no change', good: null };
  const abs = Math.abs(diff);
  return { text: `${diff > 0 ? '+' : '-'}${Math.floor(abs / 100)}.${String(Math.floor((abs % 100) / 10))} pts`, good: diff > 0 };
}

/**
 * The range picker: a GET form (the range stays in the URL), presets in a select and two date
 * inputs for a custom range. `keep` carries the page's other query parameters (filters, sort).
 */
export function RangePicker(props: { action: string; range: DateRange; keep?: Record<string, string | undefined> }): JSX.Element {
  const r = props.range;
  return (
    <form method="get" action={props.action} class="range" aria-label="Date range">
      {Object.entries(props.keep ?? {}).map(([name, value]) => (value ? <input type="hidden" name={name} value={value} /> : ''))}
      <div class="field">
        <label for="range-key">Date range</label>
        <select id="range-key" name="range" data-range-select>
          {RANGE_PRESETS.map((p) => (
            <option value={p.key} selected={p.key === r.key}>
              {p.label}
            </option>
          ))}
        </select>
      </div>
      <div class="field range-day">
        <label for="range-from">From</label>
        <input id="range-from" type="date" name="from" value={r.from} aria-invalid={r.problem ? 'true' : undefined} aria-describedby={r.problem ? 'range-problem' : undefined} />
      </div>
      <div class="field range-day">
        <label for="range-to">To</label>
        <input id="range-to" type="date" name="to" value={r.to} aria-invalid={r.problem ? 'true' : undefined} />
      </div>
      <button type="submit" class="secondary">
        Apply
      </button>
      {r.problem ? (
        <p class="error" id="range-problem" role="alert" safe>
          {r.problem}
        </p>
      ) : (
        ''
      )}
    </form>
  );
}

/** The start of a range for SQL: all time starts at the epoch. */
export const rangeStart = (range: { start: Date | null }) => range.start ?? new Date(0);
