// Converted totals (REPORTING_CURRENCY, docs/analytics.md): where a figure sums several currencies,
// the total converted at each day's rate, labelled "converted to EUR at <date> rates", beside each
// currency's own figure. For reporting only: money owed and paid (balances, payouts) never converts.
import type { Converted } from '../../modules/fx/service';
import { formatMoney } from '../ui';

/** Whether money in these currencies needs a converted total to `to`: any currency but `to` itself. */
export function needsConversion(to: string, money: { currency: string }[]): boolean {
  return money.some((m) => m.currency !== to);
}

/** "converted to EUR at 2026-11-20 rates", or with a span of days "… at 2026-11-01 to 2026-11-27 rates (each sale at its day's)". */
export function convertedLabel(c: Converted): string {
  if (!c.rateDays) return `converted to ${c.currency}`;
  const { first, last } = c.rateDays;
  return first === last ? `converted to ${c.currency} at ${first} rates` : `converted to ${c.currency} at ${first} to ${last} rates (each sale at its day's)`;
}

/**
 * One converted total with its label, then the per-currency figures it sums, and any currency
 * without a rate (left out of the total, named).
 */
export function ConvertedTotal(props: { id: string; label: string; converted: Converted; perCurrency: { currency: string; amount: bigint }[] }) {
  const c = props.converted;
  return (
    <div class="converted-total" id={props.id} data-converted={c.currency}>
      <p class="converted-line">
        <span class="converted-label" safe>
          {`${props.label}: `}
        </span>
        <strong class="converted-value" safe>
          {formatMoney(c.amount, c.currency)}
        </strong>{' '}
        <span class="caption converted-note" safe>
          {convertedLabel(c)}
        </span>
      </p>
      <ul class="converted-parts" aria-label={`${props.label} per currency`}>
        {props.perCurrency.map((m) => (
          <li data-currency={m.currency} safe>
            {formatMoney(m.amount, m.currency)}
          </li>
        ))}
      </ul>
      {c.unconverted.length > 0 ? (
        <p class="caption" safe>
          {`No rate was found for ${c.unconverted.map((u) => formatMoney(u.amount, u.currency)).join(', ')}: left out of the converted total.`}
        </p>
      ) : (
        ''
      )}
    </div>
  );
}
