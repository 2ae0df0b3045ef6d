// The in-process scheduler: croner jobs started by src/index.ts and stopped on SIGTERM. Each job takes
// a Postgres advisory lock, so with N replicas every tick runs once.
import { asActor } from '../lib/audit-context';
import { Cron } from 'croner';
import type { AppContext } from '../context';
import { runApprovalJob } from './approval';
import { runPayoutJob } from './payouts';
import { PAYOUT_RAILS_CRON, runPayoutRailsJob } from './payout-rails';
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
    job('payout-rails', PAYOUT_RAILS_CRON, runPayoutRailsJob),
  ];
  // payouts a crash left pending for a rail are handed over again at once
  jobs.at(-1)!.trigger();
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
