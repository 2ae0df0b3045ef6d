// POST /v1/events and /attribution/events: answers, validation, idempotency (also under concurrency).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import * as fx from '../support/fixtures';
import { startService, type TestService } from '../support/service';

let svc: TestService;
let campaignId: string;
beforeAll(async () => {
  svc = await startService();
  campaignId = await fx.campaign(svc.sql, { rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 10 }] });
}, 60_000);
afterAll(() => svc.stop());

const post = (body: unknown, headers?: Record<string, string>) => svc.api('POST', '/v1/events', { body, headers });

describe('recording', () => {
  test('answers the event with millisecond timestamps; occurredAt defaults to server time', async () => {
    const [{ before }] = (await svc.sql`select now() as before`) as unknown as [{ before: Date }];
    const res = await post({ userId: 'u-answer', type: 'invoice_paid', amount: 1250, currency: 'EUR', metadata: { plan: 'pro' } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^evt_[0-9a-z]{26}$/),
      userId: 'u-answer',
      type: 'invoice_paid',
      amount: 1250,
      currency: 'EUR',
      occurredAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      metadata: { plan: 'pro' },
    });
    expect(Date.parse(res.body.occurredAt)).toBeGreaterThanOrEqual(before.getTime());
    expect(res.body.occurredAt).toBe(res.body.createdAt);
    const [row] = await svc.sql`select user_id, amount, currency, metadata, source from events where id = ${res.body.id}`;
    expect(row).toEqual({ user_id: 'u-answer', amount: 1250n, currency: 'EUR', metadata: { plan: 'pro' }, source: 'api' });
  });

  test('an event without revenue needs neither amount nor currency', async () => {
    const res = await post({ userId: 'u-signup', type: 'signup', occurredAt: '2026-01-01T10:00:00+02:00' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ amount: null, currency: null, occurredAt: '2026-01-01T08:00:00.000Z' });
  });

  test('the attribution form takes major units: 19.99 USD is stored as 1999 cents', async () => {
    const res = await svc.api('POST', '/attribution/events', { body: { userId: 'u-major', type: 'invoice_paid', value: 19.99, currency: 'USD' } });
    expect(res.status).toBe(201);
    const [row] = await svc.sql`select amount, source from events where id = ${res.body.eventId}`;
    expect(row).toEqual({ amount: 1999n, source: 'attribution' });
  });

  test('the same routes answer unprefixed and under /v1', async () => {
    expect((await svc.api('POST', '/events', { body: { userId: 'u', type: 'signup' } })).status).toBe(201);
    expect((await svc.api('POST', '/v1/attribution/events', { body: { userId: 'u', type: 'signup' } })).status).toBe(201);
  });
});

describe('validation', () => {
  test.each<[string, string, unknown, string]>([
    ['missing userId', '/v1/events', { type: 'signup' }, 'userId'],
    ['missing type', '/v1/events', { userId: 'u' }, 'type'],
    ['empty userId', '/v1/events', { userId: '', type: 'signup' }, 'userId'],
    ['amount with decimals', '/v1/events', { userId: 'u', type: 'x', amount: 12.5, currency: 'USD' }, 'amount'],
    ['negative amount', '/v1/events', { userId: 'u', type: 'x', amount: -1, currency: 'USD' }, 'amount'],
    ['amount as text', '/v1/events', { userId: 'u', type: 'x', amount: '100', currency: 'USD' }, 'amount'],
    ['amount without currency', '/v1/events', { userId: 'u', type: 'x', amount: 100 }, 'currency'],
    ['currency without amount', '/v1/events', { userId: 'u', type: 'x', currency: 'USD' }, 'amount'],
    ['unknown currency', '/v1/events', { userId: 'u', type: 'x', amount: 100, currency: 'ABC' }, 'currency'],
    ['lower-case currency', '/v1/events', { userId: 'u', type: 'x', amount: 100, currency: 'usd' }, 'currency'],
    ['occurredAt not a timestamp', '/v1/events', { userId: 'u', type: 'x', occurredAt: 'yesterday' }, 'occurredAt'],
    ['occurredAt without a time zone', '/v1/events', { userId: 'u', type: 'x', occurredAt: '2026-01-01T00:00:00' }, 'occurredAt'],
    ['metadata not an object', '/v1/events', { userId: 'u', type: 'x', metadata: 'x' }, 'metadata'],
    ['NUL in userId', '/v1/events', { userId: 'a\u0000b', type: 'x' }, 'userId'],
    ['NUL in type', '/attribution/events', { userId: 'a', type: 'x\u0000' }, 'type'],
    ['NUL in a metadata value', '/v1/events', { userId: 'a', type: 'x', metadata: { k: 'v\u0000' } }, 'metadata'],
    ['NUL in a metadata key', '/v1/events', { userId: 'a', type: 'x', metadata: { 'k\u0000': 1 } }, 'metadata'],
    ['an unpaired surrogate in userId', '/v1/events', { userId: 'a\ud800', type: 'x' }, 'userId'],
    ['an unpaired surrogate in a metadata value', '/v1/events', { userId: 'a', type: 'x', metadata: { k: ['\udc00x'] } }, 'metadata'],
    ['occurredAt before 1970', '/v1/events', { userId: 'u', type: 'x', occurredAt: '1969-12-31T00:00:00Z' }, 'occurredAt'],
    ['metadata over 16 KiB', '/v1/events', { userId: 'u', type: 'x', metadata: { big: 'x'.repeat(16_400) } }, 'metadata'],
    ['metadata an array', '/v1/events', { userId: 'u', type: 'x', metadata: [1] }, 'metadata'],
    ['metadata null', '/v1/events', { userId: 'u', type: 'x', metadata: null }, 'metadata'],
    ['value with too many decimals for USD', '/attribution/events', { userId: 'u', type: 'x', value: 1.234, currency: 'USD' }, 'value'],
    ['value with decimals in JPY', '/attribution/events', { userId: 'u', type: 'x', value: 1.5, currency: 'JPY' }, 'value'],
    ['value without currency', '/attribution/events', { userId: 'u', type: 'x', value: 10 }, 'currency'],
    ['currency without value', '/attribution/events', { userId: 'u', type: 'x', currency: 'USD' }, 'value'],
    ['value as text', '/attribution/events', { userId: 'u', type: 'x', value: '10', currency: 'USD' }, 'value'],
    ['negative value', '/attribution/events', { userId: 'u', type: 'x', value: -5, currency: 'USD' }, 'value'],
  ])('%s is a 400 naming the field', async (_label, path, body, field) => {
    const res = await svc.api('POST', path, { body });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_body');
    expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  test('no body, a JSON array, and broken JSON are 400s; nothing is recorded', async () => {
    const [before] = await svc.sql`select count(*)::int as n from events`;
    expect((await svc.api('POST', '/v1/events', {})).status).toBe(400);
    expect((await svc.api('POST', '/v1/events', { body: [1] })).status).toBe(400);
    expect((await svc.api('POST', '/v1/events', { raw: '{"userId":', headers: { 'content-type': 'application/json' } })).status).toBe(400);
    const [after] = await svc.sql`select count(*)::int as n from events`;
    expect(after!.n).toBe(before!.n);
  });

  test.each<[string, string]>([
    ['longer than 255 characters', 'k'.repeat(256)],
    ['empty', ''],
    ['with a space', 'order 1'],
  ])('an Idempotency-Key %s is a 400 naming the header; nothing is recorded', async (_label, key) => {
    const [before] = await svc.sql`select count(*)::int as n from events`;
    for (const path of ['/v1/events', '/attribution/events']) {
      const res = await svc.api('POST', path, { body: { userId: 'u-badkey', type: 'signup' }, headers: { 'idempotency-key': key } });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('invalid_body');
      expect(res.body.details.map((d: { field: string }) => d.field)).toEqual(['idempotency-key']);
    }
    const [after] = await svc.sql`select count(*)::int as n from events`;
    expect(after!.n).toBe(before!.n);
  });

  test('the document lists Idempotency-Key as an optional header of both intake routes', async () => {
    const doc = (await svc.api('GET', '/openapi.json', { key: null })).body;
    for (const path of ['/v1/events', '/v1/attribution/events']) {
      const header = doc.paths[path].post.parameters.find((p: { in: string; name: string }) => p.in === 'header' && p.name === 'idempotency-key');
      expect(header).toMatchObject({ required: false, schema: { type: 'string', minLength: 1, maxLength: 255 } });
    }
  });
});

describe('idempotency', () => {
  test('the same key answers the original event with 200 and records nothing new', async () => {
    const body = { userId: 'u-idem', type: 'invoice_paid', amount: 500, currency: 'USD', metadata: { a: 1, b: 2 } };
    const first = await post(body, { 'idempotency-key': 'order-1' });
    expect(first.status).toBe(201);
    // key order in the body does not matter
    const again = await post({ metadata: { b: 2, a: 1 }, currency: 'USD', amount: 500, type: 'invoice_paid', userId: 'u-idem' }, { 'idempotency-key': 'order-1' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(await svc.sql`select id from events where idempotency_key = 'order-1'`).toHaveLength(1);
  });

  test('the same key with a different body is a 409', async () => {
    await post({ userId: 'u-idem2', type: 'invoice_paid', amount: 500, currency: 'USD' }, { 'idempotency-key': 'order-2' });
    const res = await post({ userId: 'u-idem2', type: 'invoice_paid', amount: 501, currency: 'USD' }, { 'idempotency-key': 'order-2' });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('conflict');
    // the attribution form with the same key is another request too
    const other = await svc.api('POST', '/attribution/events', {
      body: { userId: 'u-idem2', type: 'invoice_paid', value: 5, currency: 'USD' },
      headers: { 'idempotency-key': 'order-2' },
    });
    expect(other.status).toBe(409);
  });

  test('50 identical requests at once: one event, one attribution, one commission, one set of envelopes; all answer the same event', async () => {
    const p = await fx.partner(svc.sql);
    const { userId } = await fx.referredUser(svc.sql, [{ partnerId: p, campaignId }]);
    const body = { userId, type: 'invoice_paid', value: 100, currency: 'USD' };
    const responses = await Promise.all(
      Array.from({ length: 50 }, () => svc.api('POST', '/attribution/events', { body, headers: { 'idempotency-key': `burst-${userId}` } })),
    );
    expect(responses.map((r) => r.status).sort()).toEqual([...Array(49).fill(200), 201]);
    const eventIds = new Set(responses.map((r) => r.body.eventId));
    expect(eventIds.size).toBe(1);
    // replays answer the original attribution result too
    expect(new Set(responses.map((r) => JSON.stringify(r.body))).size).toBe(1);
    expect(responses[0]!.body.attribution.touches).toHaveLength(1);
    const [eventId] = [...eventIds];
    expect(await svc.sql`select id from events where user_id = ${userId}`).toHaveLength(1);
    expect(await svc.sql`select id from attributions where event_id = ${eventId!}`).toHaveLength(1);
    expect([...(await svc.sql`select amount from commissions where event_id = ${eventId!}`)]).toEqual([{ amount: 1000n }]);
    const envelopes = await svc.sql`select type from webhook_events where data->>'partnerId' = ${p} order by id`;
    expect(envelopes.map((e) => e.type)).toEqual(['attribution.created', 'commission.accrued']);
  });

  test('50 identical /v1 requests at once: exactly one event row', async () => {
    const body = { userId: 'u-burst', type: 'invoice_paid', amount: 700, currency: 'USD' };
    const responses = await Promise.all(Array.from({ length: 50 }, () => post(body, { 'idempotency-key': 'burst-v1' })));
    expect(responses.filter((r) => r.status === 201)).toHaveLength(1);
    expect(responses.filter((r) => r.status === 200)).toHaveLength(49);
    expect(new Set(responses.map((r) => r.body.id)).size).toBe(1);
    expect(await svc.sql`select id from events where idempotency_key = 'burst-v1'`).toHaveLength(1);
  });

  test('concurrent first events of one user without keys create one referral and respect maxOccurrences', async () => {
    const c = await fx.campaign(svc.sql, { rules: [{ eventType: 'invoice_paid', kind: 'flat', amount: '1', maxOccurrences: 2 }] });
    const p = await fx.partner(svc.sql);
    const { userId } = await fx.referredUser(svc.sql, [{ partnerId: p, campaignId: c }]);
    const responses = await Promise.all(Array.from({ length: 10 }, () => post({ userId, type: 'invoice_paid', amount: 100, currency: 'USD' })));
    expect(responses.every((r) => r.status === 201)).toBe(true);
    expect(await svc.sql`select user_id from referrals where user_id = ${userId}`).toHaveLength(1);
    expect(await svc.sql`select id from commissions where user_id = ${userId}`).toHaveLength(2);
  });
});
