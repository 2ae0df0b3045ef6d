// Monthly statements, on STATEMENT_CRON (default "0 8 1 * *": the 1st of each month, 08:00 UTC): writes
// last month's statements to the email outbox. Every replica may run it; the outbox's dedupe key keeps
// it to one statement per partner and month.
import type { AppContext } from '../context';
import { enqueueMonthlyStatements, previousMonth } from '../mail/statements';

export async function runStatementJob(ctx: AppContext, now = new Date()): Promise<number> {
  const month = previousMonth(now);
  const written = await enqueueMonthlyStatements(ctx.sql, month);
  if (written > 0) ctx.log.info('monthly statements written', { month, count: written });
  return written;
}
