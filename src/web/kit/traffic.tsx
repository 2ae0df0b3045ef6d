// The traffic breakdowns both sides draw (`#breakdowns`): one table per dimension (sub-ID, country,
// device, browser, referrer) with each bucket's credited clicks, its share of them and its conversions.
import type { Breakdown, BreakdownRow, Dimension } from '../../modules/reports/traffic';
import { formatRate, NumHead } from '../ui';

const regions = new Intl.DisplayNames(['en'], { type: 'region' });

/** What a null bucket means in each dimension. */
const UNKNOWN: Record<Dimension, string> = {
  sub: 'No sub-ID',
  country: 'Unknown country',
  device: 'Other or unknown',
  browser: 'Unknown browser',
  referrer: 'Direct or hidden',
};

const DEVICE_WORDS: Record<string, string> = { desktop: 'Desktop', mobile: 'Mobile', tablet: 'Tablet', tv: 'TV' };

/** A bucket's words: a country's name beside its code, a device in words, else the value as stored. */
export function bucketLabel(dimension: Dimension, value: string | null): string {
  if (value === null) return UNKNOWN[dimension];
  if (dimension === 'country') {
    let name: string | undefined;
    try {
      name = regions.of(value);
    } catch {
      name = undefined;
    }
    return name && name !== value ? `${name} (${value})` : value;
  }
  if (dimension === 'device') return DEVICE_WORDS[value] ?? value;
  return value;
}

function BreakdownTable(props: { b: Breakdown }) {
  const b = props.b;
  const total = b.rows.reduce((s, r) => s + r.clicks, 0) + b.rest.clicks;
  const row = (r: BreakdownRow) => (
    <tr data-value={r.value ?? ''}>
      <td class="lead">
        <span class={r.value === null ? 'empty' : undefined} safe>
          {bucketLabel(b.dimension, r.value)}
        </span>
      </td>
      <td class="num" data-label="Clicks" safe>
        {r.clicks.toLocaleString('en-US')}
      </td>
      <td class="num" data-label="Share" safe>
        {formatRate(r.clicks, total)}
      </td>
      <td class="num" data-label="Conversions" safe>
        {r.conversions.toLocaleString('en-US')}
      </td>
    </tr>
  );
  return (
    <section class="breakdown" id={`by-${b.dimension}`} aria-labelledby={`by-${b.dimension}-title`}>
      <h3 id={`by-${b.dimension}-title`} safe>
        {b.label}
      </h3>
      {b.rows.length === 0 ? (
        <p class="empty">No clicks or conversions in this range.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <caption class="vh" safe>
              {`Clicks and conversions by ${b.label.toLowerCase()}`}
            </caption>
            <thead>
              <tr>
                <th scope="col" safe>
                  {b.label}
                </th>
                <NumHead label="Clicks" title="Credited clicks in the range" />
                <NumHead label="Share" title="Share of the range's credited clicks" />
                <NumHead label="Conversions" title="Customers whose first sale in the range came through a click of this bucket" />
              </tr>
            </thead>
            <tbody>
              {b.rows.map(row)}
              {b.rest.buckets > 0 ? (
                <tr class="rest">
                  <td class="lead" safe>{`${b.rest.buckets} more`}</td>
                  <td class="num" safe>{b.rest.clicks.toLocaleString('en-US')}</td>
                  <td class="num" safe>{formatRate(b.rest.clicks, total)}</td>
                  <td class="num" safe>{b.rest.conversions.toLocaleString('en-US')}</td>
                </tr>
              ) : (
                ''
              )}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** Every dimension's table, in a grid (two or three across on a wide screen, one on a phone). */
export function TrafficBreakdowns(props: { breakdowns: Breakdown[] }) {
  return (
    <div class="breakdowns" id="breakdowns">
      {props.breakdowns.map((b) => (
        <BreakdownTable b={b} />
      ))}
    </div>
  );
}
