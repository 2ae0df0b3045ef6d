// Payout run benchmark: seeds N approved commissions over P partners (set-based SQL) in a fresh
// database, measures the floor (one bare UPDATE of them all, rolled back), then times one payout
// run, prints its ratio to the floor, and samples the process's memory while it runs.
//
//   bun run bench/payouts.ts                      # embedded PostgreSQL 18, 1,000,000 / 10,000
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres bun run bench/payouts.ts
//   COMMISSIONS=100000 PARTNERS=1000 ENDPOINTS=0 bun run bench/payouts.ts
//   BATCH=500 WORKERS=1 ...                       (knobs for comparisons)
import { readFileSync } from 'node:fs';
import { loadConfig } from '../src/config';
import { createLogger } from '../src/lib/log';
import { newId } from '../src/lib/ids';
import { runPayouts } from '../src/workflows/run-payouts';
import { createContext } from '../src/server';
import { createTestDatabase, startTestServer } from '../test/support/postgres';
import { seedApprovedCommissions } from '../test/support/lifecycle-fixtures';

const commissions = Number(process.env.COMMISSIONS ?? 1_000_000);
const partners = Number(process.env.PARTNERS ?? 10_000);
/** Webhook endpoints subscribed to "*": each envelope also gets one delivery row per endpoint. */
const endpoints = Number(process.env.ENDPOINTS ?? 1);
/** Partners per transaction and transactions in flight (the service's defaults when unset). */
const batchSize = process.env.BATCH ? Number(process.env.BATCH) : undefined;
const workers = process.env.WORKERS ? Number(process.env.WORKERS) : undefined;

const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);
/**
 * CPU seconds the server spent in these backends (user + system, from /proc: the server runs on this
 * machine). Wall time on a shared machine moves with everyone's load; the CPU a run costs the
 * database moves much less, so before/after comparisons read it beside the wall time.
 */
const backendCpu = (pids: number[]): number =>
  pids.reduce((sum, pid) => {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return sum + Number(fields[11]) + Number(fields[12]);
  }, 0) / 100;
const server = await startTestServer();
const db = await createTestDatabase(server);
try {
  const [version] = await db.sql`select current_setting('server_version') as v`;
  console.log(`PostgreSQL ${version!.v}; seeding ${commissions} approved commissions for ${partners} partners, ${endpoints} endpoint(s)`);

  let t = performance.now();
  await seedApprovedCommissions(db.sql, { partners, perPartner: Math.ceil(commissions / partners) });
  for (let i = 0; i < endpoints; i++) {
    await db.sql`
      insert into webhook_endpoints (id, url, events, secret)
      values (${newId('endpoint')}, 'https://hooks.example.com/in', ${['*']}, 'whsec_bench')`;
  }
  await db.sql`vacuum analyze`;
  console.log(`seeded in ${((performance.now() - t) / 1000).toFixed(1)} s`);

  // The floor, in the same run: the one write no payout can skip, every approved commission set to
  // paid in a single bare UPDATE (its index entries included; no payout rows, transitions,
  // envelopes or deliveries, no foreign key to check), rolled back, its dead rows vacuumed away.
  let floorCpu = 0;
  t = performance.now();
  await db.sql
    .begin(async (tx) => {
      const [{ pid }] = (await tx`select pg_backend_pid() as pid`) as unknown as [{ pid: number }];
      const cpu = backendCpu([pid]);
      await tx`update commissions set status = 'paid', paid_at = now() where status = 'approved'`;
      floorCpu = backendCpu([pid]) - cpu;
      throw new Error('floor: roll back');
    })
    .catch((error: Error) => {
      if (error.message !== 'floor: roll back') throw error;
    });
  const floorSeconds = (performance.now() - t) / 1000;
  await db.sql`vacuum analyze commissions`;
  console.log(`floor (bare update of every commission, rolled back): ${floorSeconds.toFixed(1)} s`);

  const config = loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'warn', MIN_PAYOUT: '0' });
  const ctx = createContext(config, db.sql, createLogger('warn'));
  // open every connection of the pool first, so the run's backends are known
  const reserved = await Promise.all(Array.from({ length: 10 }, () => db.sql.reserve()));
  const pids = await Promise.all(reserved.map(async (c) => ((await c`select pg_backend_pid() as pid`)[0]!.pid as number)));
  for (const c of reserved) c.release();

  Bun.gc(true);
  const rssBefore = process.memoryUsage().rss;
  let rssPeak = rssBefore;
  let heapPeak = process.memoryUsage().heapUsed;
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    rssPeak = Math.max(rssPeak, m.rss);
    heapPeak = Math.max(heapPeak, m.heapUsed);
  }, 50);

  const cpuBefore = backendCpu(pids);
  t = performance.now();
  const made = await runPayouts(ctx, { actor: 'job:payout', batchSize, workers });
  const seconds = (performance.now() - t) / 1000;
  const runCpu = backendCpu(pids) - cpuBefore;
  clearInterval(sampler);

  const [check] = await db.sql`
    select (select count(*)::int from commissions where status = 'paid') as paid,
           (select count(*)::int from payouts) as payouts,
           (select count(*)::int from webhook_events) as envelopes,
           (select count(*)::int from webhook_deliveries) as deliveries`;
  t = performance.now();
  const again = await runPayouts(ctx, { actor: 'job:payout' });
  const secondSeconds = (performance.now() - t) / 1000;

  console.log(
    JSON.stringify(
      {
        commissions,
        partners,
        endpoints,
        batchSize: batchSize ?? 'default',
        workers: workers ?? 'default',
        runSeconds: Number(seconds.toFixed(2)),
        floorSeconds: Number(floorSeconds.toFixed(2)),
        runOverFloor: Number((seconds / floorSeconds).toFixed(2)),
        runDbCpuSeconds: Number(runCpu.toFixed(2)),
        floorDbCpuSeconds: Number(floorCpu.toFixed(2)),
        dbCpuOverFloor: Number((runCpu / floorCpu).toFixed(2)),
        load: readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' '),
        payoutsCreated: made!.length,
        paid: check!.paid,
        envelopes: check!.envelopes,
        deliveries: check!.deliveries,
        rssBeforeMB: mb(rssBefore),
        rssPeakMB: mb(rssPeak),
        heapPeakMB: mb(heapPeak),
        secondRunSeconds: Number(secondSeconds.toFixed(2)),
        secondRunPayouts: again!.length,
      },
      null,
      2,
    ),
  );
} finally {
  await db.drop();
  await server.stop();
}
