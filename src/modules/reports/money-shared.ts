// What the admin money lists share: the sort allow-lists, the direction and the totals per currency.
import type { Tx } from '../../db';

export type Dir = 'asc' | 'desc';

/** The columns each list may sort by; the URL picks a key, never a column. */
export const SORTS = {
  commissions: ['date', 'amount'],
  payouts: ['date', 'amount'],
  events: ['time', 'amount'],
} as const;

export const direction = (sql: Tx, dir: Dir) => (dir === 'asc' ? sql`asc` : sql`desc`);

/** An amount per currency, minor units. */
export type CurrencyTotal = { currency: string; amount: bigint; count: number };

/** Sums per currency (count = how many items), by currency code. */
export function totalsOf(items: { currency: string; amount: bigint }[]): CurrencyTotal[] {
  const map = new Map<string, CurrencyTotal>();
  for (const i of items) {
    const t = map.get(i.currency) ?? { currency: i.currency, amount: 0n, count: 0 };
    t.amount += i.amount;
    t.count += 1;
    map.set(i.currency, t);
  }
  return [...map.values()].sort((a, b) => a.currency.localeCompare(b.currency));
}
