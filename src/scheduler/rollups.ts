// Folds the rollup deltas (migrations/0049_rollups.sql; 0061 for the traffic breakdowns) into the
// day and month rows every ten seconds. Figures are exact without it (readers add the deltas not
// folded yet); folding keeps what they add small. Each fold function takes its own lock, so
// replicas fold one at a time.
import type { AppContext } from '../context';
import { foldRollups } from '../modules/reports/rollups';

export const ROLLUP_FOLD_CRON = '*/10 * * * * *';

/** One fold; answers how many deltas moved. */
export async function runRollupFoldJob(ctx: AppContext): Promise<number> {
  const moved = await foldRollups(ctx.sql);
  if (moved > 0) ctx.log.debug('rollup deltas folded', { count: moved });
  return moved;
}
