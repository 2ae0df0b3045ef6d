// GET /r/:slug under wrk, against a Bun.serve hello-world in the same run, then checks that every
// redirect's click is in the database 1 s after the load stops; last, with a second replica on
// the same database, how long identify takes right after a redirect (its clicks may still be
// buffered, on this replica or the other).
//   bun bench/redirect.ts            (DATABASE_URL defaults to postgres://postgres@127.0.0.1:5432/postgres)
//   BENCH_SECONDS=20 BENCH_CONNECTIONS=64 bun bench/redirect.ts
import { join } from 'node:path';
import { cpus, loadavg } from 'node:os';
import postgres from 'postgres';

const serverUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const seconds = Number(process.env.BENCH_SECONDS ?? 15);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 64);
const threads = Number(process.env.BENCH_THREADS ?? 2);
const root = join(import.meta.dir, '..');
const ADMIN_KEY = 'sk_admin_bench000000000000000000000000000000000';

function freePort(): number {
  const s = Bun.serve({ port: 0, fetch: () => new Response() });
  const port = s.port!;
  s.stop(true);
  return port;
}

async function waitFor(url: string) {
  for (let i = 0; i < 600; i++) {
    if (await fetch(url).then((r) => r.ok, () => false)) return;
    await Bun.sleep(50);
  }
  throw new Error(`${url} did not answer`);
}

type WrkResult = { rps: number; p50: string; p99: string; requests: number; errors: string };

async function wrk(url: string, duration: number, conns = connections): Promise<WrkResult> {
  const proc = Bun.spawn(['wrk', `-t${threads}`, `-c${conns}`, `-d${duration}s`, '--latency', url], { stdout: 'pipe', stderr: 'inherit' });
  const out = await new Response(proc.stdout).text();
  await proc.exited;
  const num = (re: RegExp) => re.exec(out)?.[1] ?? '?';
  const errors = [/Socket errors:[^\n]*/.exec(out)?.[0], /Non-2xx or 3xx responses:[^\n]*/.exec(out)?.[0]].filter(Boolean).join('; ');
  return {
    rps: Number(num(/Requests\/sec:\s+([\d.]+)/)),
    p50: num(/\s50%\s+(\S+)/),
    p99: num(/\s99%\s+(\S+)/),
    requests: Number(num(/(\d+) requests in/)),
    errors: errors || 'none',
  };
}

const admin = postgres(serverUrl, { max: 1, onnotice: () => undefined });
const dbName = `partnerd_bench_${process.pid}`;
await admin.unsafe(`create database ${dbName}`);
const dbUrl = new URL(serverUrl);
dbUrl.pathname = `/${dbName}`;
const db = postgres(dbUrl.toString(), { max: 2, onnotice: () => undefined });

const helloPort = freePort();
const hello = Bun.spawn([process.execPath, join(import.meta.dir, 'redirect-hello.ts')], { env: { ...process.env, PORT: String(helloPort) }, stdout: 'ignore' });
const port = freePort();
const base = `http://127.0.0.1:${port}`;
// BENCH_PROFILE=1 writes a CPU profile of the service (markdown) to /tmp/partnerd-profile on exit
const profile = process.env.BENCH_PROFILE ? ['--cpu-prof-md', '--cpu-prof-dir=/tmp/partnerd-profile'] : [];
const startService = (servicePort: number, flags: string[] = []) =>
  Bun.spawn([process.execPath, ...flags, join(root, 'src', 'index.ts')], {
    env: { ...process.env, PORT: String(servicePort), BASE_URL: base, DATABASE_URL: dbUrl.toString(), ADMIN_API_KEY: ADMIN_KEY, LOG_LEVEL: 'warn' },
    stdout: 'inherit',
    stderr: 'inherit',
  });
const service = startService(port, profile);
let replica: ReturnType<typeof startService> | undefined;

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

/**
 * `rounds` times: a redirect on `clickOn`, then at once identify on `identifyOn` naming its click
 * (or no click); answers the identify latencies (ms, sorted) and how many of the clicks were not
 * in the database when identify answered.
 */
async function identifyAfterRedirect(linkUrl: string, clickOn: string, identifyOn: string, key: string, rounds: number, withClick = true) {
  const times: number[] = [];
  let missing = 0;
  for (let i = 0; i < rounds; i++) {
    const res = await fetch(linkUrl.replace(base, clickOn), { redirect: 'manual' });
    const clickId = new URL(res.headers.get('location')!).searchParams.get('pp_click')!;
    const started = performance.now();
    const answer = await fetch(`${identifyOn}/v1/identify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ userId: `bench-user-${i}`, clickIds: withClick ? [clickId] : [] }),
    });
    times.push(performance.now() - started);
    if (answer.status !== 200) throw new Error(`identify answered ${answer.status}`);
    if (withClick && (await db`select 1 from clicks where id = ${clickId}`).length === 0) missing++;
  }
  return { times: times.sort((a, b) => a - b), missing };
}

try {
  await waitFor(`${base}/readyz`);
  await waitFor(`http://127.0.0.1:${helloPort}/`);
  const call = async (path: string, body: unknown) =>
    (await (await fetch(base + path, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })).json()) as any;
  const cmp = await call('/v1/campaigns', { name: 'Bench', destinationUrl: 'https://shop.example/landing?ref=bench', currency: 'USD' });
  const ptn = await call('/v1/partners', { email: 'bench@example.com', name: 'Bench', sendInvite: false });
  const link = await call('/v1/links', { campaignId: cmp.id, partnerId: ptn.id, slug: 'bench-link' });

  // warm both up (JIT, link cache, connection pool), then measure one after the other
  await wrk(`http://127.0.0.1:${helloPort}/`, 3);
  await wrk(link.url, 3);
  const metric = async (name: string) => {
    const text = await (await fetch(`${base}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith(name));
    return line ? Number(line.split(' ').pop()) : 0;
  };
  const redirectsServed = async () => {
    const text = await (await fetch(`${base}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith('partnerd_http_requests_total{') && l.includes('route="/r/:slug"') && l.includes('status="302"'));
    return line ? Number(line.split(' ').pop()) : 0;
  };

  const helloResult = await wrk(`http://127.0.0.1:${helloPort}/`, seconds);
  // the same service on a route that does nothing: what the HTTP stack itself costs
  const healthResult = await wrk(`${base}/healthz`, seconds);
  const redirectResult = await wrk(link.url, seconds);
  const backlog = await metric('partnerd_click_buffer_size');
  // latency when the machine is not saturated: few connections
  const lightResult = await wrk(link.url, Math.max(3, Math.round(seconds / 3)), 4);
  await Bun.sleep(1000);
  // every 302 the service ever answered (warm-up included) against every click row
  const [served, written] = await Promise.all([redirectsServed(), db`select count(*) as n from clicks`.then((r) => Number(r[0]!.n))]);

  await Bun.sleep(4000);
  const laterWritten = Number((await db`select count(*) as n from clicks`)[0]!.n);
  const flushes = (await (await fetch(`${base}/metrics`)).text()).split('\n').filter((l) => l.startsWith('partnerd_click_flush_seconds_'));

  // identify right after a redirect, on the same replica and on a second one (no load)
  const replicaPort = freePort();
  const other = `http://127.0.0.1:${replicaPort}`;
  replica = startService(replicaPort);
  await waitFor(`${other}/readyz`);
  const pk = (await call('/v1/api-keys', { name: 'bench', kind: 'publishable' })).key as string;
  const rounds = 200;
  await identifyAfterRedirect(link.url, base, other, pk, 20); // warm-up
  const identifyRuns = [
    ['identify, no click ids (the floor)', await identifyAfterRedirect(link.url, base, other, pk, rounds, false)],
    ['redirect on A, identify on A', await identifyAfterRedirect(link.url, base, base, pk, rounds)],
    ['redirect on A, identify on B', await identifyAfterRedirect(link.url, base, other, pk, rounds)],
  ] as const;
  const cpu = cpus();
  console.log(`\nmachine: ${cpu.length} x ${cpu[0]?.model ?? '?'}, load average before/after ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  console.log(`wrk -t${threads} -c${connections} -d${seconds}s; PostgreSQL at ${new URL(serverUrl).host}\n`);
  console.log('| target | requests/s | p50 | p99 | errors |');
  console.log('|---|---|---|---|---|');
  console.log(`| Bun.serve hello-world | ${helloResult.rps.toFixed(0)} | ${helloResult.p50} | ${helloResult.p99} | ${helloResult.errors} |`);
  console.log(`| partnerd GET /healthz (no database) | ${healthResult.rps.toFixed(0)} | ${healthResult.p50} | ${healthResult.p99} | ${healthResult.errors} |`);
  console.log(`| GET /r/:slug (302 + click) | ${redirectResult.rps.toFixed(0)} | ${redirectResult.p50} | ${redirectResult.p99} | ${redirectResult.errors} |`);
  console.log(`| GET /r/:slug, 4 connections | ${lightResult.rps.toFixed(0)} | ${lightResult.p50} | ${lightResult.p99} | ${lightResult.errors} |`);
  console.log(`\nredirects/s as share of hello-world: ${((100 * redirectResult.rps) / helloResult.rps).toFixed(1)}%`);
  console.log(`click buffer when the load stopped: ${backlog} clicks`);
  console.log(`clicks in the database 1 s after the load stopped: ${written} of ${served} redirects answered` +
    (written === served ? ' (all)' : ` (MISSING ${served - written}; 5 s after: ${laterWritten})`));
  console.log(`click flushes: ${flushes.filter((l) => !l.includes('bucket')).join(', ')}`);
  console.log(`\nidentify right after a redirect, ${rounds} sequential rounds, two replicas (A, B) on one database:\n`);
  console.log('| case | p50 | p99 | max | clicks not in the database when identify answered |');
  console.log('|---|---|---|---|---|');
  for (const [label, r] of identifyRuns) {
    const ms = (v: number) => `${v.toFixed(2)} ms`;
    console.log(`| ${label} | ${ms(percentile(r.times, 50))} | ${ms(percentile(r.times, 99))} | ${ms(r.times.at(-1)!)} | ${label.includes('no click') ? '-' : r.missing} |`);
  }
} finally {
  service.kill('SIGTERM');
  replica?.kill('SIGTERM');
  await Promise.all([service.exited, replica?.exited]);
  hello.kill();
  await db.end();
  await admin.unsafe(`drop database if exists ${dbName} with (force)`);
  await admin.end();
}
