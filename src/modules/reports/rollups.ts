// The rollups behind the figures (migrations/0049_rollups.sql) and the traffic breakdowns (0061;
// docs/analytics.md): triggers write each change into delta rows in the writer's own transaction;
// foldRollups moves them into the day and month rows. Readers read both (the views rollup_facts and
// click_breakdown_facts), so a figure never waits for a fold.
import type { Sql } from '../../db';
import { rollupRows, type SpanParts } from './figures';

/**
 * Folds every pending delta into the day and month rows, `batch` at a time: the figures' rollups
 * and the traffic breakdowns' (migrations/0061_click_breakdown_rollups.sql); answers how many moved.
 */
export async function foldRollups(sql: Sql, batch = 20_000): Promise<number> {
  let moved = 0;
  for (const fold of ['partnerd_rollup_fold', 'partnerd_breakdown_fold'] as const) {
    for (;;) {
      const [row] = await sql<{ n: number }[]>`select ${sql.unsafe(fold)}(${batch}) as n`;
      moved += row!.n;
      if (row!.n < batch) break;
    }
  }
  return moved;
}

type Fragment = ReturnType<Sql>;

/** What a rollup row counts, summed over a key's rows (docs/analytics.md). */
export type RolledCounts = { clicks: number; filtered: number; converted: number; leads: number; customers: number; sales: number };
export type RolledMoney = { currency: string; revenue: bigint; accrued: bigint; approved: bigint; paid: bigint; reversed: bigint; earned: number };
export type Rolled = RolledCounts & { money: RolledMoney[] };

export const emptyRolled = (): Rolled => ({ clicks: 0, filtered: 0, converted: 0, leads: 0, customers: 0, sales: 0, money: [] });

/** Earned commissions: every status but reversed. */
export const earnedOf = (m: RolledMoney): bigint => m.accrued + m.approved + m.paid;

/**
 * The rollup rows matching `where` (a fragment on `r`, naming the grain) over a range's whole days
 * (splitSpan's `days`), summed per `key` column ('' for one total): counts and money per currency.
 */
export async function rolledOver(sql: Sql, key: 'partner_id' | 'campaign_id' | 'link_id' | null, where: Fragment, days: SpanParts['days']): Promise<Map<string, Rolled>> {
  if (!days) return new Map();
  const k = key ? sql(`r.${key}`) : sql`''`;
  const rows = await sql<{ k: string; currency: string; clicks: number; filtered: number; converted: number; leads: number; customers: number; sales: number;
    revenue: string; accrued: string; approved: string; paid: string; reversed: string; earned: number }[]>`
    select ${k} as k, r.currency,
      sum(r.clicks)::int as clicks, sum(r.filtered)::int as filtered, sum(r.converted)::int as converted, sum(r.leads)::int as leads,
      sum(r.customers)::int as customers, sum(r.sales)::int as sales, sum(r.revenue)::text as revenue, sum(r.accrued)::text as accrued,
      sum(r.approved)::text as approved, sum(r.paid)::text as paid, sum(r.reversed)::text as reversed, sum(r.earned)::int as earned
    from ${rollupRows(sql, 'rollup_facts', days)} r
    where ${where}
    group by 1, 2`;
  const out = new Map<string, Rolled>();
  for (const row of rows) {
    let entry = out.get(row.k);
    if (!entry) out.set(row.k, (entry = emptyRolled()));
    if (row.currency === '') {
      Object.assign(entry, { clicks: row.clicks, filtered: row.filtered, converted: row.converted, leads: row.leads, customers: row.customers, sales: row.sales });
    } else {
      const m = { currency: row.currency, revenue: BigInt(row.revenue), accrued: BigInt(row.accrued), approved: BigInt(row.approved), paid: BigInt(row.paid), reversed: BigInt(row.reversed), earned: row.earned };
      if (m.revenue !== 0n || m.accrued !== 0n || m.approved !== 0n || m.paid !== 0n || m.reversed !== 0n || m.earned !== 0) entry.money.push(m);
    }
  }
  for (const entry of out.values()) entry.money.sort((a, b) => (a.currency < b.currency ? -1 : 1));
  return out;
}

/** One grain's row (`''` meaning all) as a fragment on `r`. */
export function grain(sql: Sql, g: { partnerId?: string; campaignId?: string; linkId?: string }): Fragment {
  return sql`r.partner_id = ${g.partnerId ?? ''} and r.campaign_id = ${g.campaignId ?? ''} and r.link_id = ${g.linkId ?? ''}`;
}

/**
 * `roll as (...)`: the rollup rows matching `where` over `days`, summed per `key` (as `k`): credited
 * and filtered clicks, converted clicks, customers (as conversions), revenue and earned commissions
 * in `currency`. For a list that sorts on its figures in SQL.
 */
export function rollCte(sql: Sql, key: 'partner_id' | 'link_id', where: Fragment, currency: string, days: SpanParts['days']): Fragment {
  return sql`roll as (
    select ${sql(`r.${key}`)} as k, sum(r.clicks)::int as clicks, sum(r.filtered)::int as filtered, sum(r.converted)::int as converted,
      sum(r.customers)::int as conversions, sum(r.leads)::int as leads,
      coalesce(sum(r.revenue) filter (where r.currency = ${currency}), 0)::bigint as revenue,
      coalesce(sum(r.accrued + r.approved + r.paid) filter (where r.currency = ${currency}), 0)::bigint as commissions
    from ${rollupRows(sql, 'rollup_facts', days)} r
    where ${where} and r.currency in ('', ${currency})
    group by 1
  )`;
}
