// Daily at 00:15 UTC (and at start): creates the clicks' monthly partitions three months ahead, and
// under CLICK_RETENTION_DAYS drops the months whose clicks are all older (src/modules/links/partitions.ts).
import type { AppContext } from '../context';
import { dropExpiredClickPartitions, ensureClickPartitions } from '../modules/links/partitions';

export const CLICK_PARTITIONS_CRON = '15 0 * * *';

/** One run; answers how many partitions it created and dropped. */
export async function runClickPartitionsJob(ctx: AppContext): Promise<number> {
  const made = await ensureClickPartitions(ctx.sql);
  const dropped = ctx.config.clickRetentionDays === null ? [] : await dropExpiredClickPartitions(ctx.sql, ctx.config.clickRetentionDays);
  if (made > 0 || dropped.length > 0) ctx.log.info('click partitions', { created: made, dropped });
  return made + dropped.length;
}
