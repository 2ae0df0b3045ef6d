// How the pages show the figures of docs/analytics.md: clicks are credited clicks, the filtered ones
// (bots, floods) shown apart as "+25 filtered"; the conversion rate is converted clicks / clicks, so
// it never passes 100%.
import { formatRate } from './ui';

/** "+25 filtered"; empty when nothing was filtered. */
export function filteredText(n: number): string {
  return n > 0 ? `+${n.toLocaleString('en-US')} filtered` : '';
}

/** The filtered clicks beside a click count: nothing when there are none. */
export function FilteredNote(props: { n: number }): JSX.Element {
  if (props.n <= 0) return <></>;
  return (
    <span class="note filtered" title="Clicks from bots or floods: kept as evidence, never credited" safe>
      {filteredText(props.n)}
    </span>
  );
}

/** The conversion rate of a row: converted clicks over credited clicks ("–" without clicks). */
export const clickRate = (f: { convertedClicks: number; clicks: number }): string => formatRate(Math.min(f.convertedClicks, f.clicks), f.clicks);
