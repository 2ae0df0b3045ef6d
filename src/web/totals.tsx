// Commission totals per status and currency: the same table on the admin overview and the partner dashboard.
import type { CommissionTotal } from '../modules/reports/service';
import { Badge, commissionBadge, MoneyCell } from './ui';

export function CommissionTotals(props: { totals: CommissionTotal[]; empty: string; caption?: string }): JSX.Element {
  if (props.totals.length === 0) {
    return (
      <p class="empty" safe>
        {props.empty}
      </p>
    );
  }
  return (
    <div class="table-wrap">
      <table id="totals" class="stack">
        <caption class="vh" safe>
          {props.caption ?? 'Commission totals per status and currency, all time'}
        </caption>
        <thead>
          <tr>
            <th scope="col">Status</th>
            <th scope="col">Currency</th>
            <th scope="col" class="num">
              Count
            </th>
            <th scope="col" class="num">
              Amount
            </th>
          </tr>
        </thead>
        <tbody>
          {props.totals.map((t) => {
            const badge = commissionBadge({ status: t.status, createdAt: new Date().toISOString() });
            return (
              <tr>
                <td class="lead">
                  <Badge tone={badge.tone} label={badge.label} title={badge.title} />
                </td>
                <td data-label="Currency" safe>
                  {t.currency}
                </td>
                <td class="num" data-label="Count">
                  {t.count}
                </td>
                <MoneyCell amount={t.amount} currency={t.currency} />
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
