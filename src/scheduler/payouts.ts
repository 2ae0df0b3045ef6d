// Payout job, on PAYOUT_CRON (default "0 6 1 * *", 06:00 UTC on the 1st of each month): one payout run.
// One replica at a time (advisory lock); the others skip.
import type { AppContext } from '../context';
import { runPayouts } from '../workflows/run-payouts';

/** One run of the job; answers how many payouts it created (0 when another replica holds the lock). */
export async function runPayoutJob(ctx: AppContext): Promise<number> {
  const created = await runPayouts(ctx, { actor: 'job:payout' });
  if (created === null) {
    ctx.log.debug('payout job skipped: running elsewhere');
    return 0;
  }
  return created.length;
}
