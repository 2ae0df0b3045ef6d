// The campaign page's four queries timed apart and at once (bench/dashboard-queries.ts times them
// only together): on a database bench/dashboard.ts seeded and kept, the busiest campaign, 12 months.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench31 bun run bench/campaign-page.ts
import { openSql } from '../src/db';
import { campaignLinks, campaignNumbers, campaignPartners } from '../src/modules/reports/campaigns';
import { median, previousOf, RANGES } from './dashboard-queries';

const RUNS = Number(process.env.RUNS ?? 7);
const sql = openSql(process.env.DATABASE_URL!, { max: 10 });
const [busiest] = await sql<{ campaign_id: string }[]>`select campaign_id from commissions group by 1 order by count(*) desc limit 1`;
const campaignId = busiest!.campaign_id;
const range = RANGES['12 m'];
const previous = previousOf(range);
const parts: Record<string, () => Promise<unknown>> = {
  numbers: () => campaignNumbers(sql, { campaignIds: [campaignId], ...range }),
  'numbers, previous range': () => campaignNumbers(sql, { campaignIds: [campaignId], ...previous }),
  partners: () => campaignPartners(sql, { campaignId, currency: 'USD', limit: 50, ...range }),
  links: () => campaignLinks(sql, { campaignId, currency: 'USD', limit: 50, ...range }),
};

for (const [name, run] of Object.entries(parts)) console.log(`${name}: ${(await median(RUNS, run)).toFixed(1)} ms`);
console.log(`all four at once: ${(await median(RUNS, () => Promise.all(Object.values(parts).map((run) => run())))).toFixed(1)} ms`);
await sql.end();
