// The campaign page's four queries timed apart and at once (bench/dashboard-queries.ts times them
// only together): on a database bench/dashboard.ts seeded and kept, the busiest campaign, 12 months.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench31 bun run bench/campaign-page.ts
import { openSql } from '../src/db';
import { campaignLinks, campaignNumbers, campaignPartners } from '../src/modules/reports/campaigns';
import { RANGES } from './dashboard-queries';

const RUNS = Number(process.env.RUNS ?? 7);
const sql = openSql(process.env.DATABASE_URL!, { max: 10 });
const [busiest] = await sql<{ campaign_id: string }[]>`select campaign_id from commissions group by 1 order by count(*) desc limit 1`;
const campaignId = busiest!.campaign_id;
const range = RANGES['12 m'];
const previous = { start: new Date(2 * range.start.getTime() - range.end.getTime()), end: range.start };
const parts: Record<string, () => Promise<unknown>> = {
  numbers: () => campaignNumbers(sql, { campaignIds: [campaignId], ...range }),
  'numbers, previous range': () => campaignNumbers(sql, { campaignIds: [campaignId], ...previous }),
  partners: () => campaignPartners(sql, { campaignId, currency: 'USD', limit: 50, ...range }),
  links: () => campaignLinks(sql, { campaignId, currency: 'USD', limit: 50, ...range }),
};

/** Median wall time of RUNS calls after a warm-up, in ms. */
async function median(run: () => Promise<unknown>): Promise<string> {
  await run();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    await run();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(RUNS / 2)]!.toFixed(1);
}

for (const [name, run] of Object.entries(parts)) console.log(`${name}: ${await median(run)} ms`);
console.log(`all four at once: ${await median(() => Promise.all(Object.values(parts).map((run) => run())))} ms`);
await sql.end();
