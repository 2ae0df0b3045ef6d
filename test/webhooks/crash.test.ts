// Process death and shutdown with the real service binary: SIGKILL while deliveries are pending
// and in flight loses nothing (at-least-once after restart); SIGTERM lets an in-flight delivery
// finish and be recorded before the process exits.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { eventually } from '../support/eventually';
import { createTestDatabase } from '../support/postgres';
import { spawnService, type ServiceProcess } from '../support/process';
import { startReceiver, type Receiver } from '../support/receiver';

let rcv: Receiver;
const databases: { drop(): Promise<void> }[] = [];
const children: ServiceProcess[] = [];

beforeAll(async () => {
  rcv = await startReceiver();
}, 60_000);
afterAll(async () => {
  for (const c of children) if (c.proc.exitCode === null && !c.proc.signalCode) c.proc.kill('SIGKILL');
  await Promise.all(children.map((c) => c.proc.exited));
  for (const d of databases) await d.drop();
  await rcv.stop();
});

async function database() {
  const db = await createTestDatabase(await globalThis.__partnerdTestServer!);
  databases.push(db);
  return db;
}

const ENV = {
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOW_PRIVATE: 'true',
  // lease: timeout + 5 s. The receiver holds requests open on purpose (until the kill, until the
  // SIGTERM is taken): the timeout must outlast that on a loaded machine, or a held delivery is
  // recorded as failed before the process dies or stops
  WEBHOOK_TIMEOUT_MS: '10000',
  WEBHOOK_CONCURRENCY: '4',
};

test('SIGKILL with deliveries pending and in flight: after a restart every committed envelope arrives', async () => {
  const db = await database();
  const first = await spawnService(db.url, ENV);
  children.push(first);
  // the receiver holds every request open: deliveries stay in flight until the process dies
  const held: (() => void)[] = [];
  rcv.respond = (req) =>
    new URL(req.url).pathname === '/crash'
      ? new Promise<Response>((ok) => held.push(() => ok(new Response('late'))))
      : new Response('ok');
  const endpoint = await first.api('POST', '/webhooks', { url: `${rcv.url}/crash`, events: ['partner.created'] });
  expect(endpoint.status).toBe(201);

  // partners keep being created while the process is killed
  let created = 0;
  let stop = false;
  const creating = (async () => {
    for (let i = 0; !stop && i < 200; i++) {
      const res = await first
        .api('POST', '/partners', { email: `crash-${i}@example.com`, name: `Crash ${i}`, sendInvite: false })
        .catch(() => null);
      if (res?.status === 201) created++;
      else break;
    }
  })();
  await rcv.waitUntil((r) => r.filter((h) => h.path === '/crash').length >= 4 && created >= 15, 20_000);
  first.proc.kill('SIGKILL');
  expect(await first.exited()).toBeNull();
  stop = true;
  await creating;

  // what the database holds at the moment of death: some in flight (leased), some still queued
  const committed = (await db.sql`select id from webhook_events where type = 'partner.created'`).map((r) => r.id as string);
  const states = await db.sql`
    select count(*) filter (where status = 'pending' and lease_until is not null)::int as in_flight,
           count(*) filter (where status = 'pending' and lease_until is null)::int as queued
    from webhook_deliveries`;
  expect(committed.length).toBeGreaterThanOrEqual(created);
  expect(states[0]!.in_flight).toBeGreaterThanOrEqual(1);
  expect(states[0]!.queued).toBeGreaterThanOrEqual(1);

  // the receiver recovers; a new process picks up the queue and, once the leases run out, the
  // deliveries that died in flight
  for (const release of held) release();
  rcv.respond = () => new Response('ok');
  const second = await spawnService(db.url, ENV);
  children.push(second);
  const arrived = () => new Set(rcv.received.filter((h) => h.path === '/crash').map((h) => h.json.id as string));
  await rcv.waitUntil(() => committed.every((id) => arrived().has(id)), 60_000);
  for (const id of committed) expect(arrived().has(id)).toBe(true);

  // and the log ends with every delivery succeeded: those that died in flight had already reached the
  // receiver, so they are sent again and recorded only once their lease (15 s) has run out
  await eventually(async () => {
    const [left] = await db.sql`select count(*)::int as n from webhook_deliveries where status <> 'succeeded'`;
    expect(left!.n).toBe(0);
  }, { timeout: 40_000, interval: 200 });
  second.proc.kill('SIGTERM');
  expect(await second.exited()).toBe(0);
}, 120_000);

test('SIGTERM lets an in-flight delivery finish and records it before exiting', async () => {
  const db = await database();
  // info: the process logs "stopping" once it has taken the signal
  const svc = await spawnService(db.url, { ...ENV, LOG_LEVEL: 'info' });
  children.push(svc);
  // the receiver answers only once the process is shutting down
  let answer!: () => void;
  const answered = new Promise<void>((ok) => (answer = ok));
  rcv.respond = async (req) => {
    if (new URL(req.url).pathname === '/graceful') await answered;
    return new Response('finished');
  };
  expect((await svc.api('POST', '/webhooks', { url: `${rcv.url}/graceful`, events: ['partner.created'] })).status).toBe(201);
  expect((await svc.api('POST', '/partners', { email: 'graceful@example.com', name: 'Graceful', sendInvite: false })).status).toBe(201);
  await rcv.waitUntil((r) => r.some((h) => h.path === '/graceful'));

  svc.proc.kill('SIGTERM');
  await eventually(() => expect(svc.output()).toContain('"msg":"stopping"'), { timeout: 10_000 });
  // shutting down, and still waiting for the delivery
  expect(svc.proc.exitCode).toBeNull();
  answer();
  expect(await svc.exited()).toBe(0);
  const rows = await db.sql`select status, response_status, response_body from webhook_deliveries`;
  expect([...rows]).toEqual([{ status: 'succeeded', response_status: 200, response_body: 'finished' }]);
}, 60_000);
