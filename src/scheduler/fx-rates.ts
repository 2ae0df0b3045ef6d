// Exchange-rates job, on FX_RATES_CRON (default "0 16 * * *", daily, UTC), when FX_RATES_URL is set:
// fetches the ECB-format XML and stores every day it holds (a re-run or an overlap only rewrites the
// same rows). One replica at a time (advisory lock).
import type { AppContext } from '../context';
import { LOCKS, withAdvisoryLock } from '../db/lock';
import { parseEcbXml, storeDayRates } from '../modules/fx/service';

const FETCH_TIMEOUT_MS = 30_000;

/** One run; answers how many days of rates it stored (0 without FX_RATES_URL or when another replica runs it). */
export async function runFxRatesJob(ctx: AppContext): Promise<number> {
  const url = ctx.config.fxRatesUrl;
  if (!url) return 0;
  const outcome = await withAdvisoryLock(ctx.sql, LOCKS.fxRates, async () => {
    const res = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), headers: { accept: 'application/xml, text/xml' } });
    if (!res.ok) throw new Error(`FX_RATES_URL answered ${res.status}`);
    const days = parseEcbXml(await res.text());
    for (const day of days) await storeDayRates(ctx.sql, day, 'url');
    return days.length;
  });
  if (!outcome.ran) return 0;
  ctx.log.info('exchange rates fetched', { days: outcome.result });
  return outcome.result;
}
