// The payout run preview's view of the rails: who is paid by which rail, and who is held and why
// (the run's own routing, routing.ts), so the preview names exactly the partners the run leaves out.
import type { RailName } from '../../../plugins/payouts';
import type { Tx } from '../../db';
import type { PayableGroup } from './due';
import { routesOf, type RailsOn } from './routing';

export type HeldLine = { partnerId: string; partnerName: string; currency: string; amount: bigint; reason: string; heldUntil: Date | null };

/** The rail of each due partner that is paid, and the held ones with their reason. */
export async function splitHeld(sql: Tx, due: PayableGroup[], on: RailsOn): Promise<{ routes: Map<string, RailName>; held: HeldLine[] }> {
  const ids = [...new Set(due.map((g) => g.partnerId))];
  const all = await routesOf(sql, ids, on);
  const names = new Map((await sql<{ id: string; name: string }[]>`select id, name from partners where id = any(${ids}::text[])`).map((r) => [r.id, r.name]));
  const routes = new Map<string, RailName>();
  const held: HeldLine[] = [];
  for (const g of due) {
    const route = all.get(g.partnerId);
    if (route && 'rail' in route) {
      routes.set(g.partnerId, route.rail);
    } else if (route) {
      held.push({ partnerId: g.partnerId, partnerName: names.get(g.partnerId) ?? g.partnerId, currency: g.currency, amount: g.gross - g.claw, reason: route.held, heldUntil: route.heldUntil });
    }
  }
  return { routes, held };
}

/** Net per rail and currency, rails in a fixed order. */
export function byRail(lines: { rail: RailName; currency: string; amount: bigint }[]): { rail: RailName; currency: string; amount: bigint; count: number }[] {
  const order: RailName[] = ['stripe', 'paypal', 'wise', 'manual'];
  const map = new Map<string, { rail: RailName; currency: string; amount: bigint; count: number }>();
  for (const l of lines) {
    const key = `${l.rail}:${l.currency}`;
    const t = map.get(key) ?? { rail: l.rail, currency: l.currency, amount: 0n, count: 0 };
    t.amount += l.amount;
    t.count += 1;
    map.set(key, t);
  }
  return [...map.values()].sort((a, b) => order.indexOf(a.rail) - order.indexOf(b.rail) || a.currency.localeCompare(b.currency));
}
