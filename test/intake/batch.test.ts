// POST /v1/events/batch: one result per item in order, per-item errors, idempotency within a batch
// and across calls, the envelope's own 400/413, and the SDK's events.batch.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { Partnerd } from 'partnerd/sdk';
import * as fx from '../support/fixtures';
import { startService, type TestService } from '../support/service';

let svc: TestService;
let campaignId: string;
let partnerId: string;
beforeAll(async () => {
  svc = await startService();
  campaignId = await fx.campaign(svc.sql, { rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 20 }] });
  partnerId = await fx.partner(svc.sql);
}, 60_000);
afterAll(() => svc.stop());

const batch = (events: unknown, key?: string | null) => svc.api('POST', '/v1/events/batch', { body: { events }, key });
const count = async (userIds: string[]) =>
  (await svc.sql`select count(*)::int as n from events where user_id = any(${userIds}::text[])`)[0]!.n as number;

describe('results', () => {
  test('answers each event in the order sent, as POST /v1/events would; commissions accrue as for one event', async () => {
    const { userId } = await fx.referredUser(svc.sql, [{ partnerId, campaignId }]);
    const res = await batch([
      { userId, type: 'signup', occurredAt: '2026-03-01T10:00:00Z' },
      { userId, type: 'invoice_paid', amount: 4900, currency: 'USD', metadata: { plan: 'pro' }, customerEmail: 'ann@example.com' },
      { userId: 'someone-nobody-identified', type: 'invoice_paid', amount: 100, currency: 'EUR' },
    ]);
    expect(res.status).toBe(200);
    expect(res.body.results).toEqual([
      expect.objectContaining({ id: expect.stringMatching(/^evt_/), userId, type: 'signup', amount: null, currency: null, occurredAt: '2026-03-01T10:00:00.000Z' }),
      expect.objectContaining({ userId, type: 'invoice_paid', amount: 4900, currency: 'USD', metadata: { plan: 'pro' } }),
      expect.objectContaining({ userId: 'someone-nobody-identified', amount: 100, currency: 'EUR' }),
    ]);
    const ids: string[] = res.body.results.map((r: { id: string }) => r.id);
    const rows = await svc.sql`
      select e.id, e.attribution_status, e.customer_email, c.amount from events e left join commissions c on c.event_id = e.id
      where e.id = any(${ids}::text[])`;
    rows.sort((a, b) => ids.indexOf(a.id) - ids.indexOf(b.id));
    expect(rows.map((r) => ({ ...r }))).toEqual([
      // in March, before the user's click
      { id: res.body.results[0].id, attribution_status: 'no_click', customer_email: null, amount: null },
      { id: res.body.results[1].id, attribution_status: 'attributed', customer_email: 'ann@example.com', amount: 980n },
      { id: res.body.results[2].id, attribution_status: 'no_identity', customer_email: null, amount: null },
    ]);
  });

  test('a couponCode credits its partner as on the single endpoint', async () => {
    const code = `BATCH${Date.now() % 100000}`;
    await svc.sql`insert into promotion_codes (id, code, partner_id, campaign_id) values (${'pcd_' + code.toLowerCase().padEnd(26, '0')}, ${code}, ${partnerId}, ${campaignId})`;
    const userId = fx.userId();
    const res = await batch([{ userId, type: 'invoice_paid', amount: 1000, currency: 'USD', couponCode: code.toLowerCase() }]);
    expect(res.status).toBe(200);
    const [row] = await svc.sql`select partner_id, amount from commissions where user_id = ${userId}`;
    expect({ ...row }).toEqual({ partner_id: partnerId, amount: 200n });
  });
});

describe('per-item errors', () => {
  test.each<[string, unknown, string]>([
    ['missing userId', { type: 'signup' }, 'userId'],
    ['amount with decimals', { userId: 'u', type: 'x', amount: 1.5, currency: 'USD' }, 'amount'],
    ['amount as text', { userId: 'u', type: 'x', amount: '100', currency: 'USD' }, 'amount'],
    ['amount without currency', { userId: 'u', type: 'x', amount: 100 }, 'currency'],
    ['unknown currency', { userId: 'u', type: 'x', amount: 100, currency: 'ABC' }, 'currency'],
    ['occurredAt without a time zone', { userId: 'u', type: 'x', occurredAt: '2026-01-01T00:00:00' }, 'occurredAt'],
    ['metadata an array', { userId: 'u', type: 'x', metadata: [1] }, 'metadata'],
    ['NUL in userId', { userId: 'a\u0000b', type: 'x' }, 'userId'],
    ['an idempotencyKey with a space', { userId: 'u', type: 'x', idempotencyKey: 'a b' }, 'idempotency-key'],
    ['an idempotencyKey of 256 characters', { userId: 'u', type: 'x', idempotencyKey: 'k'.repeat(256) }, 'idempotencyKey'],
    ['a bad customerEmail', { userId: 'u', type: 'x', customerEmail: 'not an email' }, 'customerEmail'],
    ['not an object', 'signup', '(event)'],
    ['null', null, '(event)'],
  ])('%s: that item alone is a 400 naming the field; its neighbours are recorded', async (_label, item, field) => {
    const users = [fx.userId(), fx.userId()];
    const res = await batch([{ userId: users[0], type: 'signup' }, item, { userId: users[1], type: 'signup' }]);
    expect(res.status).toBe(200);
    const [first, bad, last] = res.body.results;
    expect(first.id).toMatch(/^evt_/);
    expect(last.id).toMatch(/^evt_/);
    expect(bad.error.code).toBe('invalid_body');
    expect(bad.error.details.map((d: { field: string }) => d.field)).toContain(field);
    expect(await count(users)).toBe(2);
  });

  test('an item the database refuses fails alone (internal); the rest of the batch is recorded', async () => {
    await svc.sql.unsafe(`
      create function refuse_batch_poison() returns trigger language plpgsql as $$
      begin
        if new.user_id = 'batch-poison' then raise exception 'refused by the test'; end if;
        return new;
      end $$;
      create trigger refuse_batch_poison before insert on events for each row execute function refuse_batch_poison();`);
    try {
      const users = [fx.userId(), fx.userId(), fx.userId()];
      const res = await batch([{ userId: users[0], type: 'signup' }, { userId: 'batch-poison', type: 'signup' }, ...users.slice(1).map((userId) => ({ userId, type: 'signup' }))]);
      expect(res.status).toBe(200);
      expect(res.body.results[1]).toEqual({ error: { code: 'internal', message: 'internal error' } });
      expect([0, 2, 3].map((i) => typeof res.body.results[i].id)).toEqual(['string', 'string', 'string']);
      expect(await count(users)).toBe(3);
      expect(await count(['batch-poison'])).toBe(0);
    } finally {
      await svc.sql.unsafe('drop trigger refuse_batch_poison on events; drop function refuse_batch_poison();');
    }
  });
});

describe('idempotency', () => {
  test('two equal keys in one batch: one event; the same key with another body is that item\'s 409', async () => {
    const userId = fx.userId();
    const key = `batch-${userId}`;
    const res = await batch([
      { userId, type: 'signup', idempotencyKey: key },
      { userId, type: 'signup', idempotencyKey: key },
      { userId, type: 'trial_started', idempotencyKey: key },
    ]);
    const [a, b, c] = res.body.results;
    expect(b.id).toBe(a.id);
    expect(c.error.code).toBe('conflict');
    expect(await count([userId])).toBe(1);
  });

  test('re-sending a batch records nothing new and answers the same events; the single endpoint shares the keys', async () => {
    const users = [fx.userId(), fx.userId()];
    const items = users.map((userId, i) => ({ userId, type: 'invoice_paid', amount: 500, currency: 'USD', idempotencyKey: `resend-${userId}-${i}` }));
    const first = await batch(items);
    const again = await batch(items);
    expect(again.body.results.map((r: { id: string }) => r.id)).toEqual(first.body.results.map((r: { id: string }) => r.id));
    const single = await svc.api('POST', '/v1/events', {
      body: { userId: users[0], type: 'invoice_paid', amount: 500, currency: 'USD' },
      headers: { 'idempotency-key': items[0]!.idempotencyKey },
    });
    expect(single.status).toBe(200);
    expect(single.body.id).toBe(first.body.results[0].id);
    const changed = await batch([{ ...items[1], amount: 501 }]);
    expect(changed.body.results[0].error.code).toBe('conflict');
    expect(await count(users)).toBe(2);
  });
});

describe('the envelope', () => {
  test.each<[string, unknown]>([
    ['no events', {}],
    ['an empty list', { events: [] }],
    ['events not a list', { events: { userId: 'u', type: 'signup' } }],
    ['1,001 events', { events: Array.from({ length: 1001 }, () => ({ userId: 'u', type: 'signup' })) }],
  ])('%s is a 400 that records nothing', async (_label, body) => {
    const [before] = await svc.sql`select count(*)::int as n from events`;
    const res = await svc.api('POST', '/v1/events/batch', { body });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_body');
    expect(res.body.details.map((d: { field: string }) => d.field)).toContain('events');
    const [after] = await svc.sql`select count(*)::int as n from events`;
    expect(after!.n).toBe(before!.n);
  });

  test('broken JSON is a 400, a body over 1 MiB a 413; neither records anything', async () => {
    const [before] = await svc.sql`select count(*)::int as n from events`;
    const broken = await svc.api('POST', '/v1/events/batch', { raw: '{"events":[', headers: { 'content-type': 'application/json' } });
    expect(broken.status).toBe(400);
    const big = Array.from({ length: 1000 }, (_, i) => ({ userId: `big-${i}`, type: 'signup', metadata: { pad: 'x'.repeat(1100) } }));
    const tooLarge = await svc.api('POST', '/v1/events/batch', { body: { events: big } });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body.code).toBe('payload_too_large');
    const [after] = await svc.sql`select count(*)::int as n from events`;
    expect(after!.n).toBe(before!.n);
  });

  test('a key without events:write is a 403; with it, 1,000 events are one call', async () => {
    expect((await batch([{ userId: 'u', type: 'signup' }], await svc.scopedKey(['events:read']))).status).toBe(403);
    const key = await svc.scopedKey(['events:write']);
    const users = Array.from({ length: 1000 }, (_, i) => `thousand-${i}-${fx.userId()}`);
    const res = await batch(users.map((userId) => ({ userId, type: 'signup' })), key);
    expect(res.status).toBe(200);
    expect(res.body.results.length).toBe(1000);
    expect(await count(users)).toBe(1000);
  });
});

describe('SDK', () => {
  test('events.batch sends Dates as timestamps and answers the results in order', async () => {
    const client = new Partnerd({ baseUrl: svc.url, apiKey: svc.adminKey });
    const userId = fx.userId();
    const { results } = await client.events.batch([
      { userId, type: 'signup', occurredAt: new Date('2026-02-02T02:02:02.000Z'), idempotencyKey: `sdk-${userId}` },
      { userId, type: 'invoice_paid', amount: 10, currency: 'NOPE' },
    ]);
    expect(results[0]).toMatchObject({ userId, occurredAt: '2026-02-02T02:02:02.000Z' });
    expect(results[1]).toMatchObject({ error: { code: 'invalid_body' } });
  });
});
