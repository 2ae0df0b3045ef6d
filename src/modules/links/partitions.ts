// Clicks are partitioned by month (migrations/0050, 0051): a partition per UTC month of click ids,
// and clicks_legacy below them (the table from before partitioning). These keep months created
// ahead of the redirect and drop whole months older than CLICK_RETENTION_DAYS. Dropping a partition
// deletes no row elsewhere: rollups, referral touches (which keep their click's link), attributions
// and commissions stay, so every figure over those months stays what it was.
import type { Sql } from '../../db';

/**
 * Creates the monthly partitions from this month to `monthsAhead` months ahead that are missing, with
 * the options that keep their statistics fresh (migration 0074); answers how many it created.
 */
export async function ensureClickPartitions(sql: Sql, monthsAhead = 3, now: Date = new Date()): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select partnerd_click_partitions_ahead(${now}::timestamptz,
      date_trunc('month', ${now}::timestamptz at time zone 'UTC') at time zone 'UTC' + ${`${monthsAhead + 1} months`}::interval) as n`;
  await sql`select partnerd_click_partitions_tune()`;
  return row!.n;
}

export type ClickPartition = { name: string; endsAt: Date };

/** Every partition of the clicks, oldest first, with the moment its last click was made before. */
export async function clickPartitions(sql: Sql): Promise<ClickPartition[]> {
  const rows = await sql<{ name: string; ends_at: Date }[]>`select name, ends_at from click_partitions order by ends_at`;
  return rows.map((r) => ({ name: r.name, endsAt: r.ends_at }));
}

/**
 * Drops, whole, each partition whose every click is older than `retentionDays` (its upper bound at
 * or before now minus the retention); answers the names dropped. One statement per partition: a
 * moment's lock on the clicks, no row read.
 */
export async function dropExpiredClickPartitions(sql: Sql, retentionDays: number, now: Date = new Date()): Promise<string[]> {
  const cutoff = new Date(now.getTime() - retentionDays * 86_400_000);
  const expired = (await clickPartitions(sql)).filter((p) => p.endsAt.getTime() <= cutoff.getTime());
  for (const p of expired) await sql`drop table ${sql(p.name)}`;
  return expired.map((p) => p.name);
}
