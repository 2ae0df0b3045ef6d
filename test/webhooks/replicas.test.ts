// Several dispatchers on one database (replicas): the work is shared and, when nothing fails,
// every delivery is sent exactly once.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { openSql } from '../../src/db';
import { createDispatcher, type Dispatcher } from '../../src/modules/webhooks/dispatcher';
import { startService, type TestService } from '../support/service';
import { startReceiver, type Receiver } from '../support/receiver';
import { createPartner, LOCAL_RECEIVERS, registerEndpoint } from '../support/webhooks';

let svc: TestService;
let rcv: Receiver;
let other: Dispatcher;
let otherSql: ReturnType<typeof openSql>;
beforeAll(async () => {
  svc = await startService({ ...LOCAL_RECEIVERS, WEBHOOK_CONCURRENCY: '4' });
  rcv = await startReceiver();
  // a second replica's dispatcher: its own connections to the same database
  otherSql = openSql(svc.config.databaseUrl!, { max: 5 });
  other = createDispatcher(svc.ctx, { sql: otherSql });
  await other.start();
}, 60_000);
afterAll(async () => {
  await other.stop();
  await otherSql.end();
  await svc.stop();
  await rcv.stop();
});

test('two dispatchers on one database: each delivery is sent once, and both do some of the work', async () => {
  // the first requests are held until 8 are open at once: with 4 at a time per dispatcher, that
  // many means both dispatchers took work; then everything is answered at once
  const held: (() => void)[] = [];
  rcv.respond = () => {
    if (held.length === 8) return new Response('ok');
    return new Promise<Response>((ok) => {
      held.push(() => ok(new Response('ok')));
      if (held.length === 8) for (const answer of held) answer();
    });
  };
  await registerEndpoint(svc, `${rcv.url}/one`, ['partner.created']);
  await registerEndpoint(svc, `${rcv.url}/two`, ['*']);
  const partners = 60;
  for (let i = 0; i < partners; i++) await createPartner(svc);

  await rcv.waitFor(partners * 2, 30_000);
  // each dispatcher sends what is still due and records what it sent: a duplicate would be sent now
  await Promise.all([svc.deliverWebhooks(), other.drain()]);

  const rows = await svc.sql`select id, status, attempt from webhook_deliveries`;
  expect(rows).toHaveLength(partners * 2);
  expect(rows.every((r) => r.status === 'succeeded' && r.attempt === 1)).toBe(true);
  const sentIds = rcv.received.map((h) => h.headers['x-service-delivery']);
  expect(sentIds).toHaveLength(partners * 2);
  expect(new Set(sentIds).size).toBe(partners * 2);
  expect(new Set(sentIds)).toEqual(new Set(rows.map((r) => r.id as string)));
  // the second replica took part (the first one is the service's own)
  expect(other.sent).toBeGreaterThan(0);
  expect(other.sent).toBeLessThan(partners * 2);
}, 60_000);
