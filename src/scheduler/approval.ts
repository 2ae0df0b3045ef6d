// Holdback approval job, on APPROVAL_CRON (default "0 * * * *", hourly, UTC): approves accrued
// commissions whose holdback has passed. One replica at a time (advisory lock); the others skip.
import type { AppContext } from '../context';
import { approveDueCommissions } from '../modules/commissions/lifecycle';
import { LOCKS, withAdvisoryLock } from '../db/lock';

/** One run of the job; answers how many commissions it approved (0 when another replica holds the lock). */
export async function runApprovalJob(ctx: AppContext): Promise<number> {
  const outcome = await withAdvisoryLock(ctx.sql, LOCKS.approval, () => approveDueCommissions(ctx.sql, { actor: 'job:approval' }));
  if (!outcome.ran) {
    ctx.log.debug('approval job skipped: running elsewhere');
    return 0;
  }
  if (outcome.result > 0) ctx.log.info('commissions approved after holdback', { count: outcome.result });
  return outcome.result;
}
