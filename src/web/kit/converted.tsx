// Converted totals (REPORTING_CURRENCY, docs/analytics.md): where a figure sums several currencies,
// the total converted at each day's rate, labelled "converted to EUR at <date> rates", beside each
// currency's own figure. For reporting only: money owed and paid (balances, payouts) never converts.
import type { Converted } from '../../modules/fx/service';
import { formatMoney } from '../ui';

/** A range's revenue and commissions earned, converted (null without REPORTING_CURRENCY). */
export type ConvertedPair = { revenue: Converted; commissions: Converted } | null;

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

/**
 * The revenue and commissions earned of a range in several currencies, each as its converted total
 * with the per-currency figures; nothing when all of it is in the reporting currency already.
 */
export function ConvertedMoney(props: {
  converted: ConvertedPair;
  /** The per-currency figures: revenue and commissions earned (not reversed). */
  money: { currency: string; revenue: bigint; commissions: bigint }[];
  /** Who is owed: "the partner is", "partners are". */
  owed: string;
}) {
  const c = props.converted;
  const revenue = props.money.filter((m) => m.revenue !== 0n).map((m) => ({ currency: m.currency, amount: m.revenue }));
  const commissions = props.money.filter((m) => m.commissions !== 0n).map((m) => ({ currency: m.currency, amount: m.commissions }));
  if (!c || !needsConversion(c.revenue.currency, [...revenue, ...commissions])) return <></>;
  return (
    <>
      <ConvertedTotal id="converted-revenue" label="Revenue" converted={c.revenue} perCurrency={revenue} />
      <ConvertedTotal id="converted-commissions" label="Commissions earned" converted={c.commissions} perCurrency={commissions} />
      <p class="caption" safe>{`Converted totals are for reporting only: what ${props.owed} owed and paid stays in each currency.`}</p>
    </>
  );
}
