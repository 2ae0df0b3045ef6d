// Commission totals per status and currency: the same table on the admin overview and the partner dashboard.
import type { CommissionTotal } from '../modules/reports/service';

export function CommissionTotals(props: { totals: CommissionTotal[]; empty: string }): JSX.Element {
  if (props.totals.length === 0) {
    return (
      <p class="empty" safe>
        {props.empty}
      </p>
    );
  }
  return (
    <div class="table-wrap">
      <table id="totals">
        <thead>
          <tr>
            <th>Status</th>
            <th>Currency</th>
            <th class="num">Count</th>
            <th class="num">Amount</th>
          </tr>
        </thead>
        <tbody>
          {props.totals.map((t) => (
            <tr>
              <td>
                <span class={`status ${t.status}`} safe>
                  {t.status}
                </span>
              </td>
              <td safe>{t.currency}</td>
              <td class="num">{t.count}</td>
              <td class="num" safe>
                {t.amount}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
