// Pieces of a bulk action's confirmation, shared by the commissions and payouts pages: the ticked ids
// of a GET bulk form, counts in words and the totals per currency.
import { formatMoney, NumHead } from '../../ui';

/** A repeated query parameter (ticked ids of a GET bulk form), capped in count and length. */
export function queryList(request: Request, name: string, max = 100): string[] {
  const values = new URL(request.url).searchParams.getAll(name).filter((v) => v.length > 0 && v.length <= 64);
  return [...new Set(values)].slice(0, max + 1);
}

/** A count in words: "1 partner", "2,000 partners". */
export const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** Counts and amounts per currency of what a bulk action moves. */
export function BulkTotals(props: { totals: { currency: string; amount: bigint; count: number }[]; caption?: string }) {
  return (
    <table id="bulk-totals" class="totals">
      <caption class="vh" safe>
        {props.caption ?? 'Totals per currency'}
      </caption>
      <thead>
        <tr>
          <th scope="col">Currency</th>
          <NumHead label="Count" />
          <NumHead label="Amount" />
        </tr>
      </thead>
      <tbody>
        {props.totals.map((t) => (
          <tr>
            <td safe>{t.currency}</td>
            <td class="num">{t.count}</td>
            <td class="num money" safe>
              {formatMoney(t.amount, t.currency)}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
