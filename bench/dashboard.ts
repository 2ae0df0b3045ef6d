// Dashboard benchmark at the scale of issue 31: seeds a program a year old (bench/dashboard-seed.sql:
// by default 20,000,000 clicks, 2,000,000 conversion events, 5,000 partners) into a fresh database,
// the clicks through the partitioned table into their months and the rollups by the product's own
// backfill (migration 0049's recount; SEED_ROLLUPS=triggers: its triggers and foldRollups), then in
// one run:
//
// 1. times every admin and portal view (bench/dashboard-queries.ts) over 12 months, the default 30
//    days and today alone, the median of RUNS runs after a warm-up. `today` is read from the rows
//    only: the part of every view no rollup saves.
// 2. the floor: the same 12-month views with every day read from the rows, as before the rollups
//    (the report code is handed a clock at the range's start, so splitSpan leaves no whole day to
//    the rollups); RAW_RUNS runs each (RAW_RUNS=0 skips it: at full scale each takes seconds).
// 3. CLICK_RETENTION_DAYS: the drop of the oldest month's partition that holds clicks, timed.
// 4. the rollup upkeep's cost on `POST /v1/events` and the redirect: bench/dashboard-writes.ts,
//    against a copy of the database with the rollup triggers disabled, alternating (WRITE_PAIRS
//    pairs of WRITE_SECONDS s; WRITE_PAIRS=0 skips it).
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres bun run bench/dashboard.ts   # full scale
//   SCALE=0.02 bun run bench/dashboard.ts                # 1/50: 400,000 clicks, 40,000 events, 100 partners
//   EVENTS=100000 CLICKS=1000000 PARTNERS=500 bun run bench/dashboard.ts
//   SEED_ROLLUPS=triggers ...                             # rollups by the triggers and folding instead of the backfill
//   KEEP_DB=bench31 RETENTION=0 ...   # seed into database bench31 and keep it; a later run with the same name migrates
//                         # it and skips the seeding (at full scale the seed and backfill take many minutes)
//   KEEP_DB=bench31 SEED_ONLY=1 ...   # only seed it (and fold), to time the views later on a quiet machine
//   FILL_TODAY=1 ...                  # first add a whole day dated today (bench/dashboard-today.sql): the seed's
//                         # year ends when it ran, so after midnight "today" is empty; the views' worst case is a full one
import { spawnSync } from 'node:child_process';
import { openSql, type Sql } from '../src/db';
import { migrate } from '../src/db/migrate';
import { clickPartitions, dropExpiredClickPartitions } from '../src/modules/links/partitions';
import { foldRollups } from '../src/modules/reports/rollups';
import { createTestDatabase, databaseUrl, startTestServer } from '../test/support/postgres';
import { DASHBOARD_QUERIES, median, RANGES, type DashboardQuery } from './dashboard-queries';
import { BACKFILLS, disableRollupUpkeep, enableRollupUpkeep, measureWrites } from './dashboard-writes';

const scale = Number(process.env.SCALE ?? 1);
const events = Number(process.env.EVENTS ?? Math.round(2_000_000 * scale));
const clicks = Number(process.env.CLICKS ?? Math.round(20_000_000 * scale));
const partners = Number(process.env.PARTNERS ?? Math.max(20, Math.round(5_000 * scale)));
const RUNS = Number(process.env.RUNS ?? 5);
const RAW_RUNS = Number(process.env.RAW_RUNS ?? 1);
const WRITE_PAIRS = Number(process.env.WRITE_PAIRS ?? 3);
const WRITE_SECONDS = Number(process.env.WRITE_SECONDS ?? 10);
const DAY = 86_400_000;

const server = await startTestServer();
const keep = process.env.KEEP_DB;
if (keep !== undefined && !/^[a-z_][a-z0-9_]*$/.test(keep)) throw new Error('KEEP_DB: a database name of lower-case letters, digits and _');
const db = keep ? await keptDatabase(keep) : await createTestDatabase(server);
let copy: string | null = null;

/** KEEP_DB: the named database, created empty (to be seeded) when missing, migrated when it exists. */
async function keptDatabase(name: string): Promise<{ url: string; sql: Sql; seeded: boolean; drop(): Promise<void> }> {
  const admin = openSql(server.adminUrl, { max: 1 });
  const [found] = await admin`select 1 from pg_database where datname = ${name}`;
  if (!found) await admin.unsafe(`create database ${name} template ${server.template}`);
  await admin.end();
  const url = databaseUrl(server.adminUrl, name);
  const sql = openSql(url, { max: 10 });
  if (found) await migrate(sql);
  return { url, sql, seeded: Boolean(found), drop: () => sql.end({ timeout: 1 }) };
}

/**
 * Runs `work` with the report code's clock (`new Date()` without arguments) at `at`: splitSpan then
 * sees no whole day before "today" in a range starting at `at`, and reads the whole range raw.
 */
async function withClock<T>(at: Date, work: () => Promise<T>): Promise<T> {
  const Real = Date;
  class Clock extends Real {
    constructor(...args: unknown[]) {
      if (args.length === 0) super(at.getTime());
      else super(...(args as [number]));
    }
  }
  globalThis.Date = Clock as DateConstructor;
  try {
    return await work();
  } finally {
    globalThis.Date = Real;
  }
}

const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(1)} s`;
const ms = (n: number | undefined) => (n === undefined ? '' : n.toFixed(1));

try {
  const [version] = await db.sql`select current_setting('server_version') as v`;
  const seeded = 'seeded' in db && db.seeded;
  console.log(`PostgreSQL ${version!.v}; ${seeded ? `reusing ${keep} as seeded before` : `seeding ${clicks} clicks, ${events} events, ${partners} partners`}`);
  if (!seeded) {
    // backfill (default): the rows go in with the rollup triggers off, then the rollups are filled by
    // the recount migration 0049 fills an existing install with (one set-based pass); triggers: every
    // insert writes its deltas and foldRollups folds them, as live traffic would (much slower at scale)
    const backfill = (process.env.SEED_ROLLUPS ?? 'backfill') === 'backfill';
    if (backfill) await disableRollupUpkeep(db.sql);
    let t = performance.now();
    const psql = spawnSync(
      'psql',
      [db.url, '-q', '-v', 'ON_ERROR_STOP=1', '-v', `partners=${partners}`, '-v', `clicks=${clicks}`, '-v', `events=${events}`, '-f', new URL('dashboard-seed.sql', import.meta.url).pathname],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    if (psql.status !== 0) throw new Error('seeding failed (is psql installed? Debian: postgresql-client)');
    console.log(`seeded in ${seconds(t)} (${backfill ? 'rollup triggers off' : 'rollup deltas written by the triggers meanwhile'})`);
    t = performance.now();
    if (backfill) {
      await enableRollupUpkeep(db.sql);
      await db.sql.unsafe(BACKFILLS[0]!);
      console.log(`rollups backfilled from partnerd_rollup_recount() in ${seconds(t)}`);
      t = performance.now();
      await db.sql.unsafe(BACKFILLS[1]!);
      console.log(`traffic breakdown rollups backfilled from partnerd_breakdown_recount() in ${seconds(t)}`);
    }
  }
  if (process.env.FILL_TODAY === '1') {
    // a whole day dated today (bench/dashboard-today.sql): the views' worst case, whatever the hour
    const t = performance.now();
    const psql = spawnSync(
      'psql',
      [db.url, '-q', '-v', 'ON_ERROR_STOP=1', '-v', `clicks=${clicks}`, '-v', `events=${events}`, '-f', new URL('dashboard-today.sql', import.meta.url).pathname],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    if (psql.status !== 0) throw new Error('filling today failed');
    console.log(`a day of traffic dated today written in ${seconds(t)} (rollup triggers on)`);
  }
  let t = performance.now();
  const folded = await foldRollups(db.sql, 200_000);
  await db.sql`vacuum analyze rollups`;
  await db.sql`vacuum analyze rollup_deltas`;
  await db.sql`vacuum analyze click_breakdowns`;
  await db.sql`vacuum analyze click_breakdown_deltas`;
  const [sizes] = await db.sql`
    select (select count(*) from rollups)::int as rows, (select count(*) from click_breakdowns)::int as breakdowns,
      pg_size_pretty(pg_total_relation_size('click_breakdowns')) as breakdown_size, pg_size_pretty(pg_database_size(current_database())) as size`;
  console.log(`folded ${folded} deltas into ${sizes!.rows} rollup rows and ${sizes!.breakdowns} breakdown rows (${sizes!.breakdown_size}) in ${seconds(t)}; database ${sizes!.size}`);
  if (process.env.SEED_ONLY === '1') {
    await db.drop();
    await server.stop();
    process.exit(0);
  }

  // 1 and 2: the views, and the 12-month floor
  const timed = new Map<DashboardQuery, number>();
  for (const q of DASHBOARD_QUERIES) timed.set(q, await median(RUNS, () => q.run(db.sql)));
  const raw = new Map<string, number>();
  if (RAW_RUNS > 0) {
    for (const q of DASHBOARD_QUERIES.filter((q) => q.range === '12 m')) {
      raw.set(q.name.replace(/, 12 m$/, ''), await withClock(RANGES['12 m'].start, () => median(RAW_RUNS, () => q.run(db.sql))));
    }
  }
  const base = (q: DashboardQuery) => q.name.replace(/, (12 m|30 d|today)$/, '');
  const views = [...new Set(DASHBOARD_QUERIES.filter((q) => q.range !== null).map(base))];
  const of = (name: string, range: string) => [...timed].find(([q]) => base(q) === name && q.range === range)?.[1];
  console.log(`\n### Views (median of ${RUNS} runs, ms)\n`);
  console.log(`| view | 12 m | 12 m read raw: the floor (${RAW_RUNS} run${RAW_RUNS === 1 ? '' : 's'}) | today alone (raw rows only) | 30 d |\n|---|---:|---:|---:|---:|`);
  for (const name of views) console.log(`| ${name} | ${ms(of(name, '12 m'))} | ${ms(raw.get(name))} | ${ms(of(name, 'today'))} | ${ms(of(name, '30 d'))} |`);
  for (const [q, n] of timed) if (q.range === null) console.log(`| ${q.name} (no range) | ${ms(n)} | | | |`);

  // 3: retention, one month's partition (RETENTION=0 skips it: with KEEP_DB each run drops a month)
  if (process.env.RETENTION !== '0') {
    const counts = async () => (await db.sql`select sum(clicks)::bigint as c from rollups where unit = 'm' and partner_id = '' and campaign_id = '' and link_id = '' and currency = ''`)[0]!.c;
    const before = await counts();
    const withRows: { name: string; endsAt: Date; rows: number }[] = [];
    for (const p of await clickPartitions(db.sql)) {
      const [row] = await db.sql`select count(*)::int as n from ${db.sql(p.name)}`;
      withRows.push({ ...p, rows: row!.n });
    }
    const oldest = withRows.find((p) => p.rows > 0)!;
    // the empty ones before it go first, untimed; then the retention that expires exactly that month
    for (const p of withRows.filter((p) => p.endsAt < oldest.endsAt)) await db.sql`drop table ${db.sql(p.name)}`;
    const retentionDays = Math.floor((Date.now() - oldest.endsAt.getTime()) / DAY);
    t = performance.now();
    const dropped = await dropExpiredClickPartitions(db.sql, retentionDays);
    const dropMs = performance.now() - t;
    const after = await counts();
    console.log(`\n### Retention\n\nCLICK_RETENTION_DAYS=${retentionDays}: dropped ${dropped.join(', ')} (${oldest.rows} clicks) in ${dropMs.toFixed(1)} ms; the program's clicks in the rollups ${before} before, ${after} after`);
  }

  // 4: the write paths, upkeep on vs off
  if (WRITE_PAIRS > 0) {
    const [link] = await db.sql<{ slug: string }[]>`select slug from links order by id limit 1`;
    const admin = openSql(server.adminUrl, { max: 1 });
    const name = new URL(db.url).pathname.slice(1);
    copy = `${name}_off`;
    t = performance.now();
    await admin`select pg_terminate_backend(pid) from pg_stat_activity where datname = ${name} and pid <> pg_backend_pid()`;
    // file_copy: a 25 GB database is copied as files (after a checkpoint), not logged block by block
    await admin.unsafe(`create database ${copy} template ${name} strategy = file_copy`);
    await admin.end();
    const off: Sql = openSql(databaseUrl(server.adminUrl, copy), { max: 1 });
    await disableRollupUpkeep(off);
    await off.end();
    console.log(`\n### Rollup upkeep on the write paths\n\ncopy with the rollup triggers disabled made in ${seconds(t)}; ${WRITE_PAIRS} alternating pairs of ${WRITE_SECONDS} s, wrk -t1 -c8\n`);
    console.log(await measureWrites({ onUrl: db.url, offUrl: databaseUrl(server.adminUrl, copy), users: Math.max(1, Math.floor(events / 3)), slug: link!.slug, seconds: WRITE_SECONDS, pairs: WRITE_PAIRS, connections: 8 }));
  }
} finally {
  if (copy) {
    const admin = openSql(server.adminUrl, { max: 1 });
    await admin.unsafe(`drop database if exists ${copy} with (force)`);
    await admin.end();
  }
  await db.drop();
  await server.stop();
}
