// A server-drawn line chart of a few daily series in one unit: no script, nothing for CSP to block.
// The SVG stretches to the page width at a fixed height; the axis labels are HTML beside it, and a
// hover area per day carries a <title> with that day's values. An empty period says so in words.

export type Series = { label: string; className: string; values: number[] };

const W = 1000;
const H = 200;

/**
 * Lines over `days` (labels 'YYYY-MM-DD'), the y axis from 0 to a round number above the largest
 * value. `format` writes values and totals (money in its currency); plain numbers by default.
 */
export function LineChart(props: { title: string; days: string[]; series: Series[]; format?: (value: number) => string }): JSX.Element {
  const format = props.format ?? formatCount;
  const totals = props.series.map((s) => ({ s, total: s.values.reduce((a, b) => a + b, 0) }));
  const firstDay = props.days[0] ?? '';
  const lastDay = props.days[props.days.length - 1] ?? '';
  const summary = totals.map(({ s, total }) => `${s.label}: ${format(total)}`).join(', ');
  const empty = props.series.every((s) => s.values.every((v) => v === 0));
  if (empty) {
    return (
      <figure class="chart">
        <div class="chart-empty" role="img" aria-label={`${props.title}, ${firstDay} to ${lastDay}: no data in this period`}>
          <strong>No data in this period</strong>
          <span safe>{`${firstDay} to ${lastDay}`}</span>
        </div>
        <Legend totals={totals} format={format} />
      </figure>
    );
  }
  const max = Math.max(...props.series.flatMap((s) => s.values));
  const top = niceCeil(max);
  const n = Math.max(1, props.days.length - 1);
  const x = (i: number) => (i * W) / n;
  const y = (v: number) => H - (v * H) / top;
  const step = W / Math.max(1, props.days.length);
  return (
    <figure class="chart">
      <div class="plot">
        <svg viewBox={`0 0 ${W} ${H}`} preserveAspectRatio="none" role="img" aria-label={`${props.title}, ${firstDay} to ${lastDay}. ${summary}`}>
          {[0.5, 1].map((f) => (
            <line class="grid" x1="0" x2={W} y1={y(top * f)} y2={y(top * f)} />
          ))}
          {props.series.map((s) => (
            <polyline class={`line ${s.className}`} points={s.values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ')} />
          ))}
          {props.days.map((d, i) => (
            <rect class="hit" x={Math.max(0, x(i) - step / 2).toFixed(1)} y="0" width={step.toFixed(1)} height={H}>
              <title safe>{`${d}: ${props.series.map((s) => `${s.label} ${format(s.values[i] ?? 0)}`).join(', ')}`}</title>
            </rect>
          ))}
        </svg>
        <span class="tick t0" aria-hidden="true">
          0
        </span>
        <span class="tick t1" aria-hidden="true" safe>
          {formatTick(top / 2)}
        </span>
        <span class="tick t2" aria-hidden="true" safe>
          {formatTick(top)}
        </span>
      </div>
      <div class="axis" aria-hidden="true">
        <span safe>{firstDay}</span>
        <span safe>{lastDay}</span>
      </div>
      <Legend totals={totals} format={format} />
    </figure>
  );
}

/** The chart's text summary: each series with its total over the period. */
function Legend(props: { totals: { s: Series; total: number }[]; format: (value: number) => string }): JSX.Element {
  return (
    <figcaption>
      <ul class="legend">
        {props.totals.map(({ s, total }) => (
          <li>
            <span class={`swatch ${s.className}`} aria-hidden="true"></span>
            <span safe>{`${s.label}: ${props.format(total)}`}</span>
          </li>
        ))}
      </ul>
    </figcaption>
  );
}

function niceCeil(value: number): number {
  if (value <= 0) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (step * magnitude >= value) return step * magnitude;
  return 10 * magnitude;
}

const formatCount = (value: number) => value.toLocaleString('en-US');

/** Axis labels stay short: 1.5k, 20k, 2.5M. */
function formatTick(value: number): string {
  if (value >= 1_000_000) return `${+(value / 1_000_000).toFixed(1)}M`;
  if (value >= 1_000) return `${+(value / 1_000).toFixed(1)}k`;
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}
