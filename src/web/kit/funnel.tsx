// The funnel both sides draw (`#funnel`): clicks -> leads -> customers -> revenue over the chosen
// range, each step's number as text with the rate from the step before, a bar for the three counts
// (revenue is money: no bar on the same scale), and the whole range's clicks-to-customers rate.
// Server-drawn, no script. With REPORTING_CURRENCY, revenue in several currencies shows its
// converted total, labelled, beside each currency's figure (./converted.tsx).
import type { Converted } from '../../modules/fx/service';
import type { Funnel } from '../../modules/reports/funnel';
import { formatMoney, formatRate } from '../ui';
import { convertedLabel, needsConversion } from './converted';

export type { Funnel };

const count = (n: number) => n.toLocaleString('en-US');

/** A bar as wide as `part` of `whole` (SVG attributes: no inline style for CSP). */
function Bar(props: { part: number; whole: number }) {
  const width = props.whole > 0 ? Math.max(0.5, Math.min(100, (props.part * 100) / props.whole)) : 0;
  return (
    <svg class="funnel-bar" viewBox="0 0 100 8" preserveAspectRatio="none" aria-hidden="true" focusable="false">
      <rect class="funnel-track" x="0" y="0" width="100" height="8" />
      <rect class="funnel-fill" x="0" y="0" width={width.toFixed(2)} height="8" />
    </svg>
  );
}

/** Revenue per customer in one currency, rounded half up; null without customers. */
function perCustomer(amount: bigint, customers: number): bigint | null {
  if (customers <= 0) return null;
  const n = BigInt(customers);
  return (amount * 2n + n) / (2n * n);
}

export function FunnelView(props: {
  funnel: Funnel;
  /** The range in words ("Last 30 days"). */
  rangeLabel: string;
  /** With REPORTING_CURRENCY: the range's revenue converted to it. */
  converted?: Converted | null;
  /** Heading level: h2 on a page of its own sections, h3 inside one. */
  level?: 2 | 3;
}) {
  const f = props.funnel;
  const conv = props.converted && needsConversion(props.converted.currency, f.revenue) ? props.converted : null;
  const main = conv ? { amount: conv.amount, currency: conv.currency } : (f.revenue[0] ?? null);
  const heading = `Funnel, ${props.rangeLabel.toLowerCase()}`;
  const title =
    props.level === 3 ? (
      <h3 id="funnel-title" class="sub" safe>
        {heading}
      </h3>
    ) : (
      <h2 id="funnel-title" safe>
        {heading}
      </h2>
    );
  const perCust = main ? perCustomer(main.amount, f.customers) : null;
  const revenueText: string = main ? formatMoney(main.amount, main.currency) : '–';
  return (
    <section class="funnel" id="funnel" aria-labelledby="funnel-title">
      {title}
      <ol class="funnel-steps">
        <li class="funnel-step" data-step="clicks">
          <span class="funnel-label">Clicks</span>
          <span class="funnel-value" safe>
            {count(f.clicks)}
          </span>
          <Bar part={f.clicks} whole={f.clicks} />
          <span class="funnel-rate">bot clicks left out</span>
        </li>
        <li class="funnel-step" data-step="leads">
          <span class="funnel-label">Leads</span>
          <span class="funnel-value" safe>
            {count(f.leads)}
          </span>
          <Bar part={f.leads} whole={f.clicks} />
          <span class="funnel-rate" data-rate="click-to-lead" safe>
            {`${formatRate(f.leads, f.clicks)} of clicks`}
          </span>
        </li>
        <li class="funnel-step" data-step="customers">
          <span class="funnel-label">Customers</span>
          <span class="funnel-value" safe>
            {count(f.customers)}
          </span>
          <Bar part={f.customers} whole={f.clicks} />
          <span class="funnel-rate" data-rate="lead-to-customer" safe>
            {`${formatRate(f.customers, f.leads)} of leads`}
          </span>
        </li>
        <li class="funnel-step" data-step="revenue">
          <span class="funnel-label">Revenue</span>
          <span class="funnel-value" safe>
            {revenueText}
          </span>
          {conv ? (
            <span class="funnel-converted caption" safe>
              {convertedLabel(conv)}
            </span>
          ) : (
            ''
          )}
          <span class="funnel-rate" data-rate="per-customer" safe>
            {perCust === null || !main ? '– per customer' : `${formatMoney(perCust, main.currency)} per customer`}
          </span>
          {f.revenue.length > 1 || conv ? (
            <ul class="funnel-currencies" aria-label="Revenue per currency">
              {f.revenue.map((r) => (
                <li data-currency={r.currency} safe>
                  {formatMoney(r.amount, r.currency)}
                </li>
              ))}
            </ul>
          ) : (
            ''
          )}
        </li>
      </ol>
      <p class="funnel-overall" id="funnel-overall" safe>
        {`Over the range: ${formatRate(f.customers, f.clicks)} of clicks became customers (${count(f.customers)} of ${count(f.clicks)}).`}
      </p>
      {conv && conv.unconverted.length > 0 ? (
        <p class="caption" safe>
          {`No rate was found for ${conv.unconverted.map((u) => formatMoney(u.amount, u.currency)).join(', ')}: left out of the converted total.`}
        </p>
      ) : (
        ''
      )}
    </section>
  );
}
