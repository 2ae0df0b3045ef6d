// The in-process scheduler: croner jobs started by src/index.ts and stopped on SIGTERM. Each job takes
// a Postgres advisory lock, so with N replicas every tick runs once.
import { asActor } from '../lib/audit-context';
import { Cron } from 'croner';
import type { AppContext } from '../context';
import { runApprovalJob } from './approval';
import { CLICK_PARTITIONS_CRON, runClickPartitionsJob } from './click-partitions';
import { runFxRatesJob } from './fx-rates';
import { runPayoutJob } from './payouts';
import { PAYOUT_RAILS_CRON, runPayoutRailsJob } from './payout-rails';
import { ROLLUP_FOLD_CRON, runRollupFoldJob } from './rollups';
import { runStatementJob } from './statements';

export type Scheduler = { stop(): Promise<void> };

export function startScheduler(ctx: AppContext): Scheduler {
  const running = new Set<Promise<unknown>>();
  const job = (name: string, pattern: string, body: (ctx: AppContext) => Promise<number>) =>
    new Cron(pattern, { name, timezone: 'UTC', protect: true }, async () => {
      // what a job changes is the job's doing in the audit log
      const run = asActor({ type: 'job', id: name }, () => body(ctx)).catch((error) => ctx.log.error('job failed', { job: name, error }));
      running.add(run);
      try {
        await run;
      } finally {
        running.delete(run);
      }
    });
  const jobs = [
    job('approval', ctx.config.approvalCron, runApprovalJob),
    job('payouts', ctx.config.payoutCron, runPayoutJob),
    job('statements', ctx.config.statementCron, (c) => runStatementJob(c)),
    job('rollups', ROLLUP_FOLD_CRON, runRollupFoldJob),
    job('click-partitions', CLICK_PARTITIONS_CRON, runClickPartitionsJob),
    job('payout-rails', PAYOUT_RAILS_CRON, runPayoutRailsJob),
    ...(ctx.config.fxRatesUrl ? [job('fx-rates', ctx.config.fxRatesCron, runFxRatesJob)] : []),
  ];
  // payouts a crash left pending for a rail are handed over again at once; the clicks' months ahead
  // exist before the redirect needs them, whenever the process last ran
  jobs.find((j) => j.name === 'payout-rails')!.trigger();
  jobs.find((j) => j.name === 'click-partitions')!.trigger();
  ctx.log.info('scheduler started', {
    jobs: jobs.map((j) => ({ name: j.name, next: j.nextRun()?.toISOString() ?? null })),
  });
  return {
    /** Stops scheduling and waits for a job that is under way (its batches commit or roll back whole). */
    async stop() {
      for (const j of jobs) j.stop();
      await Promise.allSettled([...running]);
    },
  };
}
