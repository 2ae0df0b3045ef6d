// The rollups' cost on the write paths, for bench/dashboard.ts: `POST /v1/events` and the redirect
// (`GET /r/:slug`) under wrk against two services on the same seeded data, one on the database as
// seeded (rollup upkeep on: the triggers write deltas, the scheduler folds them) and one on a copy
// with the rollup triggers disabled (upkeep off; there is no switch in the product), measured
// alternating on, off, on, off ... so the machine's drift falls on both.
import { join } from 'node:path';
import type { Sql } from '../src/db';
import { freePort } from '../test/support/service';

const ADMIN_KEY = 'sk_admin_bench000000000000000000000000000000000';
const BROWSER_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

/** The triggers that keep the rollups (migrations 0049, 0051, 0061); the touch's link trigger stays: it writes data, not counts. */
export const ROLLUP_TRIGGERS: [table: string, trigger: string][] = [
  ['clicks', 'clicks_rollup'],
  ['clicks', 'clicks_rollup_update'],
  ['clicks', 'clicks_breakdown'],
  ['clicks', 'clicks_breakdown_update'],
  ['events', 'events_rollup'],
  ['referrals', 'referrals_rollup'],
  ['referral_touches', 'referral_touches_rollup'],
  ['attributions', 'attributions_rollup'],
  ['attributions', 'attributions_breakdown'],
  ['commissions', 'commissions_rollup_insert'],
  ['commissions', 'commissions_rollup_update'],
];

export async function disableRollupUpkeep(sql: Sql): Promise<void> {
  for (const [table, trigger] of ROLLUP_TRIGGERS) await sql.unsafe(`alter table ${table} disable trigger ${trigger}`);
}

export async function enableRollupUpkeep(sql: Sql): Promise<void> {
  for (const [table, trigger] of ROLLUP_TRIGGERS) await sql.unsafe(`alter table ${table} enable trigger ${trigger}`);
}

const migration = (name: string) => Bun.file(join(import.meta.dir, '..', 'migrations', name)).text();

/**
 * The fills of an existing install (each migration's last statement): migration 0049's rollups from
 * a recount of the rows, and 0061's traffic breakdown rollups from a recount of the clicks.
 */
export const BACKFILLS = [
  (await migration('0049_rollups.sql')).match(/insert into rollups \(unit[^;]*from partnerd_rollup_recount\(\)[^;]*;/)![0],
  (await migration('0061_click_breakdown_rollups.sql')).match(/insert into click_breakdowns \(unit[^;]*from partnerd_breakdown_recount\(\)[^;]*;/)![0],
];

type Wrk = { rps: number; p99: string; errors: string };

async function wrk(args: string[], env: Record<string, string> = {}): Promise<Wrk> {
  const proc = Bun.spawn(['wrk', ...args], { stdout: 'pipe', stderr: 'inherit', env: { ...process.env, ...env } });
  const out = await new Response(proc.stdout).text();
  await proc.exited;
  const errors = [/Socket errors:[^\n]*/.exec(out)?.[0], /Non-2xx or 3xx responses:[^\n]*/.exec(out)?.[0]].filter(Boolean).join('; ');
  return { rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0), p99: /\s99%\s+(\S+)/.exec(out)?.[1] ?? '?', errors: errors || 'none' };
}

type Service = { base: string; stop(): Promise<void> };

async function startService(dbUrl: string): Promise<Service> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, '..', 'src', 'index.ts')], {
    env: { ...process.env, PORT: String(port), BASE_URL: base, DATABASE_URL: dbUrl, ADMIN_API_KEY: ADMIN_KEY, LOG_LEVEL: 'warn' },
    stdout: 'inherit',
    stderr: 'inherit',
  });
  for (let i = 0; i < 600; i++) {
    const ok = await fetch(`${base}/readyz`).then((r) => r.ok, () => false);
    if (ok) return { base, stop: async () => void (proc.kill('SIGTERM'), await proc.exited) };
    await Bun.sleep(100);
  }
  proc.kill('SIGKILL');
  throw new Error(`the service on ${dbUrl} did not become ready`);
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/**
 * `pairs` alternating rounds of each write path on both services, `seconds` each. `users`: how many
 * seeded customers (`u0` ... ) the events go to; `slug`: a seeded share link.
 */
export async function measureWrites(input: { onUrl: string; offUrl: string; users: number; slug: string; seconds: number; pairs: number; connections: number }) {
  const on = await startService(input.onUrl);
  const off = await startService(input.offUrl);
  const lua = join(import.meta.dir, 'dashboard-events.lua');
  const runs = { events: { on: [] as number[], off: [] as number[] }, redirect: { on: [] as number[], off: [] as number[] } };
  const notes: string[] = [];
  try {
    const common = ['-t1', `-c${input.connections}`, `-d${input.seconds}s`, '--latency'];
    const events = (svc: Service) => wrk([...common, '-s', lua, `${svc.base}/v1/events`], { USERS: String(input.users), ADMIN_KEY });
    const redirect = (svc: Service) => wrk([...common, '-H', `User-Agent: ${BROWSER_UA}`, `${svc.base}/r/${input.slug}`]);
    // warm-up: each path once on each, not counted
    for (const svc of [on, off]) await wrk(['-t1', '-c2', '-d2s', '-s', lua, `${svc.base}/v1/events`], { USERS: String(input.users), ADMIN_KEY });
    for (const svc of [on, off]) await wrk(['-t1', '-c2', '-d2s', '-H', `User-Agent: ${BROWSER_UA}`, `${svc.base}/r/${input.slug}`]);
    for (let i = 0; i < input.pairs; i++) {
      // the order flips every pair: neither side always runs first
      const order: ['on' | 'off', Service][] = i % 2 === 0 ? [['on', on], ['off', off]] : [['off', off], ['on', on]];
      for (const [label, svc] of order) {
        const e = await events(svc);
        runs.events[label].push(e.rps);
        if (e.errors !== 'none') notes.push(`events ${label} pair ${i + 1}: ${e.errors}`);
        const r = await redirect(svc);
        runs.redirect[label].push(r.rps);
        if (r.errors !== 'none') notes.push(`redirect ${label} pair ${i + 1}: ${r.errors}`);
        console.log(`  pair ${i + 1} upkeep ${label}: POST /v1/events ${e.rps.toFixed(0)}/s (p99 ${e.p99}), redirect ${r.rps.toFixed(0)}/s (p99 ${r.p99})`);
      }
    }
  } finally {
    await on.stop();
    await off.stop();
  }
  const row = (name: string, r: { on: number[]; off: number[] }) => {
    const cost = (1 - median(r.on) / median(r.off)) * 100;
    return `| ${name} | ${r.on.map((x) => x.toFixed(0)).join(', ')} | ${r.off.map((x) => x.toFixed(0)).join(', ')} | ${median(r.on).toFixed(0)} | ${median(r.off).toFixed(0)} | ${cost.toFixed(1)}% |`;
  };
  return [
    '| path | upkeep on, each run (/s) | upkeep off, each run (/s) | median on | median off | cost of the upkeep |',
    '|---|---|---|---:|---:|---:|',
    row('POST /v1/events', runs.events),
    row('GET /r/:slug (redirect)', runs.redirect),
    ...(notes.length > 0 ? ['', ...notes.map((n) => `- ${n}`)] : []),
  ].join('\n');
}
