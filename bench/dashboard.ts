// Dashboard aggregation benchmark: seeds a year of traffic (bench/dashboard-seed.sql: 1,000,000
// conversion events, 2,000,000 clicks, 2,000 partners by default) into a fresh database, then times
// every query the admin and portal dashboards run, for the default 30-day range and for 12 months,
// with the reporting indexes (migrations 0015-0017 and 0019) and, in the same run, without them:
// the floor to compare with.
//
//   bun run bench/dashboard.ts                                    # embedded PostgreSQL 18
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres bun run bench/dashboard.ts
//   EVENTS=100000 CLICKS=200000 PARTNERS=500 bun run bench/dashboard.ts
import { spawnSync } from 'node:child_process';
import type { Sql } from '../src/db';
import { createTestDatabase, startTestServer } from '../test/support/postgres';
import { DASHBOARD_QUERIES, FLOOR_INDEXES, REPORTING_INDEXES } from './dashboard-queries';

const events = Number(process.env.EVENTS ?? 1_000_000);
const clicks = Number(process.env.CLICKS ?? 2 * events);
const partners = Number(process.env.PARTNERS ?? 2_000);
const RUNS = Number(process.env.RUNS ?? 5);

const server = await startTestServer();
const db = await createTestDatabase(server);

/** Median wall time of `RUNS` calls (after one warm-up), in ms. */
async function median(run: () => Promise<unknown>): Promise<number> {
  await run();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    await run();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

async function timeAll(sql: Sql): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const q of DASHBOARD_QUERIES) out.set(q.name, await median(() => q.run(sql)));
  return out;
}

try {
  const [version] = await db.sql`select current_setting('server_version') as v`;
  console.log(`PostgreSQL ${version!.v}; seeding ${events} events, ${clicks} clicks, ${partners} partners`);
  let t = performance.now();
  const seeded = spawnSync(
    'psql',
    [db.url, '-q', '-v', 'ON_ERROR_STOP=1', '-v', `partners=${partners}`, '-v', `clicks=${clicks}`, '-v', `events=${events}`, '-f', new URL('dashboard-seed.sql', import.meta.url).pathname],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  if (seeded.status !== 0) throw new Error('seeding failed (is psql installed? Debian: postgresql-client)');
  console.log(`seeded in ${((performance.now() - t) / 1000).toFixed(1)} s`);

  const withIndexes = await timeAll(db.sql);
  for (const index of REPORTING_INDEXES) await db.sql.unsafe(`drop index ${index}`);
  for (const statement of FLOOR_INDEXES) await db.sql.unsafe(statement);
  await db.sql`analyze`;
  const withoutIndexes = await timeAll(db.sql);

  console.log('\n| query | with reporting indexes (ms) | without (ms) |\n|---|---:|---:|');
  for (const [name, ms] of withIndexes) console.log(`| ${name} | ${ms.toFixed(1)} | ${withoutIndexes.get(name)!.toFixed(1)} |`);
} finally {
  await db.drop();
  await server.stop();
}
