// The payout rails job, at start and every 10 minutes: hands over payouts still pending for a rail
// that is called (Stripe, PayPal's API: after a crash, or when the rail could not be reached), and
// reads PayPal batches still processing an hour after PayPal took them. Under the payout run's
// advisory lock, so it never runs beside a run or on two replicas at once.
import type { AppContext } from '../context';
import { LOCKS, withAdvisoryLock } from '../db/lock';
import { handOverPending } from '../workflows/hand-over-payouts';
import { reconcilePayPal } from '../workflows/paypal-items';

export const PAYOUT_RAILS_CRON = '*/10 * * * *';

/** One pass; answers how many payouts it handed over or settled (0 when another process holds the lock). */
export async function runPayoutRailsJob(ctx: AppContext): Promise<number> {
  const outcome = await withAdvisoryLock(ctx.sql, LOCKS.payouts, async () => {
    const handed = await handOverPending(ctx, ctx.payoutProvider);
    const reconciled = await reconcilePayPal(ctx);
    return handed + reconciled;
  });
  if (!outcome.ran) {
    ctx.log.debug('payout rails job skipped: a payout run holds the lock');
    return 0;
  }
  if (outcome.result > 0) ctx.log.info('payout rails job', { payouts: outcome.result });
  return outcome.result;
}
