// Two real service processes on one database, both asked to run payouts at the same instant: every
// commission is paid exactly once, one payout per partner and currency.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { join } from 'node:path';
import { eventually } from '../support/eventually';
import { createTestDatabase } from '../support/postgres';
import { ADMIN_KEY, freePort } from '../support/service';
import { seedApprovedCommissions } from '../support/lifecycle-fixtures';
import type { Sql } from '../../src/db';

const ROOT = join(import.meta.dir, '..', '..');
type Replica = { url: string; proc: ReturnType<typeof Bun.spawn>; output: () => Promise<string> };

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let sql: Sql;
const replicas: Replica[] = [];

async function startReplica(databaseUrl: string): Promise<Replica> {
  const port = await freePort();
  const proc = Bun.spawn(['bun', 'run', 'src/index.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      BASE_URL: `http://127.0.0.1:${port}`,
      ADMIN_API_KEY: ADMIN_KEY,
      LOG_LEVEL: 'warn',
      // the schedule stays out of the way: this test triggers runs over HTTP
      APPROVAL_CRON: '0 0 1 1 *',
      PAYOUT_CRON: '0 0 1 1 *',
    },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const url = `http://127.0.0.1:${port}`;
  const output = async () => (await new Response(proc.stdout as ReadableStream).text()) + (await new Response(proc.stderr as ReadableStream).text());
  try {
    await eventually(
      async () => {
        if (proc.exitCode !== null) throw new Error('replica exited');
        expect(await fetch(`${url}/readyz`).then((r) => r.ok, () => false)).toBe(true);
      },
      { timeout: 60_000 },
    );
  } catch (error) {
    proc.kill('SIGKILL');
    throw new Error(`replica did not start (${error}): ${await output()}`);
  }
  return { url, proc, output };
}

beforeAll(async () => {
  db = await createTestDatabase(await globalThis.__partnerdTestServer!);
  sql = db.sql;
  replicas.push(...(await Promise.all([startReplica(db.url), startReplica(db.url)])));
}, 120_000);

afterAll(async () => {
  for (const r of replicas) if (r.proc.exitCode === null) r.proc.kill('SIGKILL');
  await db?.drop();
});

const run = (r: Replica) =>
  fetch(`${r.url}/v1/payouts/run`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_KEY}` } }).then(async (res) => ({
    status: res.status,
    body: (await res.json()) as any,
  }));

test('two replicas running payouts at the same instant pay every commission once', async () => {
  const usd = await seedApprovedCommissions(sql, { partners: 200, perPartner: 25, currency: 'USD' });
  const eur = await seedApprovedCommissions(sql, { partners: 40, perPartner: 10, currency: 'EUR' });
  const total = usd.commissions + eur.commissions;
  const [expected] = await sql`select sum(amount)::bigint as sum from commissions where status = 'approved'`;

  const answers = [];
  for (let round = 0; round < 3; round++) answers.push(...(await Promise.all(replicas.map(run))));

  for (const a of answers) {
    expect([200, 409]).toContain(a.status);
    if (a.status === 409) expect(a.body.code).toBe('conflict');
  }
  const reported = answers.filter((a) => a.status === 200).flatMap((a) => a.body.payouts.map((p: any) => p.id as string));
  expect(new Set(reported).size).toBe(reported.length);
  expect(reported).toHaveLength(240);

  const [counts] = await sql`
    select
      (select count(*)::int from commissions where status = 'paid' and payout_id is not null) as paid,
      (select count(*)::int from commissions where status <> 'paid') as unpaid,
      (select count(*)::int from commission_transitions where to_status = 'paid') as transitions,
      (select count(distinct commission_id)::int from commission_transitions where to_status = 'paid') as transitioned,
      (select count(*)::int from webhook_events where type = 'commission.paid') as paid_events,
      (select count(distinct data->>'commissionId')::int from webhook_events where type = 'commission.paid') as paid_event_commissions,
      (select count(*)::int from webhook_events where type = 'payout.created') as payout_events,
      (select count(*)::int from payouts) as payouts,
      (select count(*)::int from (select 1 from payouts group by partner_id, currency) g) as partner_currencies,
      (select sum(amount)::bigint from payouts) as paid_out,
      (select count(*)::int from payouts p
        where p.commission_count <> (select count(*) from commissions c where c.payout_id = p.id)
           or p.commissions_amount <> (select sum(amount) from commissions c where c.payout_id = p.id)) as inconsistent`;
  expect({ ...counts }).toEqual({
    paid: total,
    unpaid: 0,
    transitions: total,
    transitioned: total,
    paid_events: total,
    paid_event_commissions: total,
    payout_events: 240,
    payouts: 240,
    partner_currencies: 240,
    paid_out: expected!.sum,
    inconsistent: 0,
  });
}, 120_000);
