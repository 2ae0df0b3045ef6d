// The rollups behind the figures (migrations/0049_rollups.sql, docs/analytics.md): triggers write each
// change into rollup_deltas in the writer's own transaction; foldRollups moves them into the day and
// month rows. Readers read both (the view rollup_facts), so a figure never waits for a fold.
import type { Sql } from '../../db';

/** Folds every pending delta into the day and month rows, `batch` at a time; answers how many moved. */
export async function foldRollups(sql: Sql, batch = 20_000): Promise<number> {
  let moved = 0;
  for (;;) {
    const [row] = await sql<{ n: number }[]>`select partnerd_rollup_fold(${batch}) as n`;
    moved += row!.n;
    if (row!.n < batch) return moved;
  }
}
