// The dashboards' date ranges and comparisons: what each preset covers, the previous period of equal
// length, malformed custom ranges falling back with a reason, and the change texts on KPI cards.
import { describe, expect, test } from 'bun:test';
import { compare, comparePoints, parseRange, rangeQuery } from '../../src/web/range';
import { formatRate, href, parsePage, parseSort } from '../../src/web/ui';

const NOW = new Date('2026-11-23T15:30:00.000Z');
const day = (d: Date | null | undefined) => (d ? d.toISOString().slice(0, 10) : null);

describe('parseRange', () => {
  const cases: [string, Record<string, string>, string | null, string, string | null, string | null][] = [
    // label, query, first day, first day after, previous start, previous end
    ['the default is the last 30 days, today included', {}, '2026-10-25', '2026-11-24', '2026-09-25', '2026-10-25'],
    ['last 7 days', { range: '7d' }, '2026-11-17', '2026-11-24', '2026-11-10', '2026-11-17'],
    ['last 90 days', { range: '90d' }, '2026-08-26', '2026-11-24', '2026-05-28', '2026-08-26'],
    ['last 12 months', { range: '12m' }, '2025-11-24', '2026-11-24', '2024-11-24', '2025-11-24'],
    ['month to date', { range: 'mtd' }, '2026-11-01', '2026-11-24', '2026-10-09', '2026-11-01'],
    ['year to date', { range: 'ytd' }, '2026-01-01', '2026-11-24', '2025-02-08', '2026-01-01'],
    ['all time has no start and nothing to compare with', { range: 'all' }, null, '2026-11-24', null, null],
    ['a custom range includes its last day', { range: 'custom', from: '2026-10-01', to: '2026-10-31' }, '2026-10-01', '2026-11-01', '2026-08-31', '2026-10-01'],
    ['an unknown preset is the default', { range: 'forever' }, '2026-10-25', '2026-11-24', '2026-09-25', '2026-10-25'],
  ];
  for (const [label, query, start, end, prevStart, prevEnd] of cases) {
    test(label, () => {
      const r = parseRange(query, NOW);
      expect(day(r.start)).toBe(start);
      expect(day(r.end)).toBe(end);
      expect(day(r.previous?.start)).toBe(prevStart);
      expect(day(r.previous?.end)).toBe(prevEnd);
      expect(r.problem).toBeNull();
    });
  }

  const bad: [string, Record<string, string>, string][] = [
    ['a missing end', { range: 'custom', from: '2026-10-01' }, 'Enter both dates of the custom range.'],
    ['a day that does not exist', { range: 'custom', from: '2026-02-30', to: '2026-03-02' }, 'Enter both dates of the custom range.'],
    ['an end before the start', { range: 'custom', from: '2026-10-05', to: '2026-10-01' }, 'The range ends before it starts.'],
    ['markup instead of a date', { range: 'custom', from: '<b>x</b>', to: '2026-10-01' }, 'Enter both dates of the custom range.'],
  ];
  for (const [label, query, problem] of bad) {
    test(`a custom range with ${label} falls back to 30 days and says why`, () => {
      const r = parseRange(query, NOW);
      expect(r.key).toBe('30d');
      expect(day(r.start)).toBe('2026-10-25');
      expect(r.problem).toBe(problem);
    });
  }

  test('the comparison is named by its length, and the URL keeps the range', () => {
    expect(parseRange({ range: '7d' }, NOW).previousLabel).toBe('previous 7 days');
    expect(rangeQuery(parseRange({ range: 'custom', from: '2026-10-01', to: '2026-10-31' }, NOW))).toEqual({ range: 'custom', from: '2026-10-01', to: '2026-10-31' });
    expect(rangeQuery(parseRange({}, NOW))).toEqual({});
  });
});

describe('compare', () => {
  const cases: [string, bigint | number, bigint | number, boolean | undefined, string, boolean | null][] = [
    ['up 12%', 112, 100, undefined, '+12%', true],
    ['down 3%', 97, 100, undefined, '-3%', false],
    ['up from nothing is new', 5, 0, undefined, 'new', true],
    ['equal is no change', 7, 7, undefined, 'no change', null],
    ['both nothing is no change', 0, 0, undefined, 'no change', null],
    ['rounds half away from zero', 1005, 1000, undefined, '+1%', true],
    ['money in minor units beyond 2^53', 9007199254740993000n, 4503599627370496500n, undefined, '+100%', true],
    ['down is good for reversals', 50, 100, true, '-50%', true],
  ];
  for (const [label, current, previous, downIsGood, text, good] of cases) {
    test(label, () => expect(compare(current, previous, { downIsGood })).toEqual({ text, good }));
  }
  test('rates change in points', () => {
    expect(comparePoints(1250, 1000)).toEqual({ text: '+2.5 pts', good: true });
    expect(comparePoints(900, 1000)).toEqual({ text: '-1.0 pts', good: false });
    expect(comparePoints(1000, 1000)).toEqual({ text: 'no change', good: null });
  });
});

describe('table helpers', () => {
  test('sort keys outside the allowed list fall back to the default', () => {
    expect(parseSort({ sort: 'amount', dir: 'asc' }, ['amount', 'name'] as const, { key: 'name', dir: 'desc' })).toEqual({ key: 'amount', dir: 'asc' });
    expect(parseSort({ sort: 'password' }, ['amount', 'name'] as const, { key: 'name', dir: 'desc' })).toEqual({ key: 'name', dir: 'desc' });
  });
  test('pages are 1-based; garbage is page 1', () => {
    expect(parsePage({ page: '3' }, 50)).toEqual({ page: 3, offset: 100, limit: 50 });
    expect(parsePage({ page: '-1' }, 50).page).toBe(1);
    expect(parsePage({ page: '1e9' }, 50).page).toBe(1);
  });
  test('links keep the query and drop empty values', () => {
    expect(href('/admin/partners', { q: 'ann', page: '2', sort: '' }, { page: undefined })).toBe('/admin/partners?q=ann');
  });
  test('conversion rates', () => {
    expect(formatRate(1, 8)).toBe('12.5%');
    expect(formatRate(0, 0)).toBe('–');
  });
});
