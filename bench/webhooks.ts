// Webhook benchmark: fan-out throughput (deliveries/s) and commit-to-delivery latency at a steady
// event rate, against the real service process (`bun run src/index.ts`) and a local receiver.
//
//   bun run bench/webhooks.ts                       # embedded PostgreSQL 18
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres bun run bench/webhooks.ts
//   FANOUT_EVENTS=2000 FANOUT_ENDPOINTS=10 RATE=500 SECONDS=10 CONCURRENCY=64 bun run bench/webhooks.ts
import { cpus } from 'node:os';
import { createTestDatabase, startTestServer } from '../test/support/postgres';
import { spawnService } from '../test/support/process';
import { enqueueEvent } from '../src/modules/webhooks/outbox';
import { newId } from '../src/lib/ids';

const FANOUT_EVENTS = Number(process.env.FANOUT_EVENTS ?? 1000);
const FANOUT_ENDPOINTS = Number(process.env.FANOUT_ENDPOINTS ?? 10);
const RATE = Number(process.env.RATE ?? 500);
const SECONDS = Number(process.env.SECONDS ?? 10);
const CONCURRENCY = process.env.CONCURRENCY ?? '64';

const arrivals = new Map<string, number>();
let received = 0;
const receiver = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  async fetch(req) {
    const body = await req.text();
    received++;
    const id = body.slice(7, 37); // {"id":"evt_...", the envelope id
    if (!arrivals.has(id)) arrivals.set(id, performance.now());
    return new Response('ok');
  },
});
const receiverUrl = `http://127.0.0.1:${receiver.port}`;

const server = await startTestServer();
const db = await createTestDatabase(server);
const serviceEnv = {
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOW_PRIVATE: 'true',
  WEBHOOK_CONCURRENCY: CONCURRENCY,
  LOG_LEVEL: 'error',
};
let service = await spawnService(db.url, serviceEnv);
const sql = db.sql;

async function until(check: () => boolean, ms: number) {
  const deadline = performance.now() + ms;
  while (!check()) {
    if (performance.now() > deadline) throw new Error('benchmark timed out');
    await Bun.sleep(1);
  }
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const data = (i: number) => ({
  partnerId: newId('partner'),
  email: `bench-${i}@example.com`,
  name: `Bench ${i}`,
  activatedAt: null,
  invited: false,
  campaignIds: [],
});

try {
  // 1. fan-out: FANOUT_EVENTS envelopes to FANOUT_ENDPOINTS endpoints each, queued while the
  //    service is stopped, then drained by a fresh process: first to last arrival
  const endpoints: string[] = [];
  for (let i = 0; i < FANOUT_ENDPOINTS; i++) {
    const res = await service.api('POST', '/webhooks', { url: `${receiverUrl}/fan/${i}`, events: ['*'] });
    endpoints.push(res.body.endpoint.id);
  }
  service.proc.kill('SIGTERM');
  await service.proc.exited;
  const total = FANOUT_EVENTS * FANOUT_ENDPOINTS;
  const enqueueStarted = performance.now();
  for (let i = 0; i < FANOUT_EVENTS; i += 100) {
    await sql.begin(async (tx) => {
      for (let j = i; j < Math.min(i + 100, FANOUT_EVENTS); j++) await enqueueEvent(tx, 'partner.created', data(j));
    });
  }
  const enqueueSeconds = (performance.now() - enqueueStarted) / 1000;
  let first = 0;
  const firstArrival = () => {
    if (received > 0 && first === 0) first = performance.now();
    return received >= total;
  };
  service = await spawnService(db.url, serviceEnv);
  await until(firstArrival, 300_000);
  const last = performance.now();
  const fanout = {
    deliveries: total,
    enqueueSeconds: Number(enqueueSeconds.toFixed(2)),
    drainSeconds: Number(((last - first) / 1000).toFixed(2)),
    deliveriesPerSecond: Math.round(total / ((last - first) / 1000)),
  };
  console.log('fan-out', fanout);

  // 2. latency at RATE events/s, one endpoint, one transaction per event
  for (const id of endpoints) await service.api('PATCH', `/webhooks/${id}`, { active: false });
  await service.api('POST', '/webhooks', { url: `${receiverUrl}/latency`, events: ['*'] });
  await Bun.sleep(500);
  arrivals.clear();
  const commits = new Map<string, number>();
  const events = RATE * SECONDS;
  const tickMs = 10;
  const perTick = (RATE * tickMs) / 1000;
  const t0 = performance.now();
  const inserts: Promise<void>[] = [];
  for (let tick = 0; tick * perTick < events; tick++) {
    const due = t0 + tick * tickMs;
    const wait = due - performance.now();
    if (wait > 0) await Bun.sleep(wait);
    for (let k = 0; k < perTick; k++) {
      inserts.push(
        sql
          .begin((tx) => enqueueEvent(tx, 'partner.created', data(k)))
          .then((envelope) => {
            commits.set(envelope.id, performance.now());
          }),
      );
    }
  }
  await Promise.all(inserts);
  const offered = events / ((performance.now() - t0) / 1000);
  await until(() => [...commits.keys()].every((id) => arrivals.has(id)), 120_000);
  const latencies = [...commits].map(([id, at]) => arrivals.get(id)! - at).sort((a, b) => a - b);
  const latency = {
    events: latencies.length,
    offeredPerSecond: Math.round(offered),
    p50ms: Math.round(percentile(latencies, 50)),
    p95ms: Math.round(percentile(latencies, 95)),
    p99ms: Math.round(percentile(latencies, 99)),
    maxMs: Math.round(latencies.at(-1)!),
  };
  console.log('commit-to-delivery', latency);
  console.log('machine', { cpus: cpus().length, model: cpus()[0]?.model, bun: Bun.version, concurrency: CONCURRENCY });
} finally {
  service.proc.kill('SIGTERM');
  await service.proc.exited;
  await db.drop();
  await server.stop();
  receiver.stop(true);
}
