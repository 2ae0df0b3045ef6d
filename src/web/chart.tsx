// A server-drawn SVG line chart of a few daily series; no script, scales with the page width.

export type Series = { label: string; className: string; values: number[] };

const W = 640;
const H = 220;
const PAD = { top: 12, right: 12, bottom: 28, left: 36 };

/** Lines over `days` (labels 'YYYY-MM-DD'), the y axis from 0 to the largest value. */
export function LineChart(props: { title: string; days: string[]; series: Series[] }): JSX.Element {
  const max = Math.max(1, ...props.series.flatMap((s) => s.values));
  const top = niceCeil(max);
  const n = Math.max(1, props.days.length - 1);
  const x = (i: number) => PAD.left + (i * (W - PAD.left - PAD.right)) / n;
  const y = (v: number) => H - PAD.bottom - (v * (H - PAD.top - PAD.bottom)) / top;
  const ticks = [0, top / 2, top];
  const firstDay = props.days[0] ?? '';
  const lastDay = props.days[props.days.length - 1] ?? '';
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`${props.title}, ${firstDay} to ${lastDay}`}>
        {ticks.map((t) => (
          <g class="grid">
            <line x1={PAD.left} x2={W - PAD.right} y1={y(t)} y2={y(t)} />
            <text x={PAD.left - 6} y={y(t) + 4} text-anchor="end" safe>
              {formatTick(t)}
            </text>
          </g>
        ))}
        <text class="axis" x={PAD.left} y={H - 8} safe>
          {firstDay}
        </text>
        <text class="axis" x={W - PAD.right} y={H - 8} text-anchor="end" safe>
          {lastDay}
        </text>
        {props.series.map((s, k) => (
          <g>
            <polyline class={`line ${s.className}`} points={s.values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ')} />
            {/* days with activity get a dot, offset per series so equal values stay visible */}
            {s.values.map((v, i) => (v > 0 ? <circle class={`dot ${s.className}`} cx={x(i) - 4 + 4 * k} cy={y(v)} r={3.5} /> : ''))}
          </g>
        ))}
      </svg>
      <figcaption>
        <ul class="legend">
          {props.series.map((s) => (
            <li>
              <span class={`swatch ${s.className}`} aria-hidden="true"></span>
              <span safe>{`${s.label}: ${s.values.reduce((a, b) => a + b, 0)}`}</span>
            </li>
          ))}
        </ul>
      </figcaption>
    </figure>
  );
}

function niceCeil(value: number): number {
  const magnitude = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (step * magnitude >= value) return step * magnitude;
  return 10 * magnitude;
}

function formatTick(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}
