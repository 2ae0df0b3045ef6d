// GET /v1/events and /v1/commissions: lists, filters, pagination, partner isolation, and every route
// against every kind of key.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import * as fx from '../support/fixtures';
import { startService, type TestService } from '../support/service';

let svc: TestService;
let campaignA: string;
let campaignB: string;
let alice: string;
let bob: string;
let aliceKey: string;
let bobKey: string;
const aliceEvents: string[] = [];
const bobEvents: string[] = [];
let unattributedEvent: string;

beforeAll(async () => {
  svc = await startService();
  campaignA = await fx.campaign(svc.sql, { rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 10 }] });
  campaignB = await fx.campaign(svc.sql, { currency: 'EUR', rules: [{ eventType: 'invoice_paid', kind: 'flat', amount: '3' }] });
  alice = await fx.partner(svc.sql, { name: 'Alice' });
  bob = await fx.partner(svc.sql, { name: 'Bob' });
  aliceKey = await svc.partnerKey(alice);
  bobKey = await svc.partnerKey(bob);
  for (let i = 0; i < 3; i++) {
    const { userId } = await fx.referredUser(svc.sql, [{ partnerId: alice, campaignId: campaignA }]);
    const res = await svc.api('POST', '/v1/events', { body: { userId, type: 'invoice_paid', amount: 1000 * (i + 1), currency: 'USD' } });
    aliceEvents.push(res.body.id);
  }
  for (let i = 0; i < 2; i++) {
    const { userId } = await fx.referredUser(svc.sql, [{ partnerId: bob, campaignId: campaignB }]);
    const res = await svc.api('POST', '/v1/events', { body: { userId, type: 'invoice_paid', amount: 500, currency: 'EUR' } });
    bobEvents.push(res.body.id);
  }
  unattributedEvent = (await svc.api('POST', '/v1/events', { body: { userId: 'nobody', type: 'signup' } })).body.id;
}, 60_000);
afterAll(() => svc.stop());

describe('GET /v1/events', () => {
  test('admins see every event, newest first, with its attribution status', async () => {
    const res = await svc.api('GET', '/v1/events');
    expect(res.status).toBe(200);
    expect(res.body.events.map((e: any) => e.id)).toEqual([unattributedEvent, ...bobEvents.toReversed(), ...aliceEvents.toReversed()]);
    expect(res.body.events[0]).toMatchObject({ type: 'signup', userId: 'nobody', amount: null, attribution: { status: 'no_identity', model: 'last_click' } });
    expect(res.body.nextCursor).toBeNull();
  });

  test('cursor pagination walks every event once', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: any = await svc.api('GET', `/v1/events?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      seen.push(...res.body.events.map((e: any) => e.id));
      cursor = res.body.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([unattributedEvent, ...bobEvents.toReversed(), ...aliceEvents.toReversed()]);
  });

  test('a partner key sees only the events attributed to that partner', async () => {
    const res = await svc.api('GET', '/v1/events', { key: aliceKey });
    expect(res.status).toBe(200);
    expect(res.body.events.map((e: any) => e.id)).toEqual(aliceEvents.toReversed());
    const page = await svc.api('GET', '/v1/events?limit=1', { key: bobKey });
    expect(page.body.events.map((e: any) => e.id)).toEqual([bobEvents[1]]);
    const next = await svc.api('GET', `/v1/events?limit=1&cursor=${page.body.nextCursor}`, { key: bobKey });
    expect(next.body).toEqual({ events: [expect.objectContaining({ id: bobEvents[0] })], nextCursor: null });
  });

  test('a bad limit or cursor is a 400 invalid_query', async () => {
    expect((await svc.api('GET', '/v1/events?limit=0')).body.code).toBe('invalid_query');
    expect((await svc.api('GET', '/v1/events?limit=201')).status).toBe(400);
    expect((await svc.api('GET', '/v1/events?cursor=com_01m7ybr1bsc0a98f15fs2r19f0')).status).toBe(400);
  });
});

describe('GET /v1/commissions', () => {
  test('lists every commission newest first with amounts as decimal strings', async () => {
    const res = await svc.api('GET', '/v1/commissions');
    expect(res.status).toBe(200);
    expect(res.body.commissions).toHaveLength(5);
    expect(res.body.commissions.map((c: any) => [c.partnerId, c.amount, c.currency])).toEqual([
      [bob, '3.00', 'EUR'],
      [bob, '3.00', 'EUR'],
      [alice, '3.00', 'USD'],
      [alice, '2.00', 'USD'],
      [alice, '1.00', 'USD'],
    ]);
    expect(res.body.commissions[4]).toEqual({
      id: expect.stringMatching(/^com_/),
      status: 'accrued',
      partnerId: alice,
      campaignId: campaignA,
      attributionId: expect.stringMatching(/^att_/),
      eventId: aliceEvents[0],
      userId: expect.any(String),
      amount: '1.00',
      currency: 'USD',
      eventType: 'invoice_paid',
      eventValue: 10,
      holdbackDays: 30,
      occurredAt: expect.stringMatching(/\.\d{3}Z$/),
      createdAt: expect.stringMatching(/\.\d{3}Z$/),
      approvedAt: null,
      paidAt: null,
      reversedAt: null,
      reason: null,
      payoutId: null,
      flags: [],
      ruleSource: 'campaign',
      sourceCommissionId: null,
    });
  });

  test.each<[string, string, number]>([
    ['status=accrued', 'status=accrued', 5],
    ['status=paid', 'status=paid', 0],
    ['by partner', 'partnerId=PARTNER_B', 2],
    ['by campaign', 'campaignId=CAMPAIGN_A', 3],
    ['from the future', 'from=2999-01-01T00:00:00Z', 0],
    ['to the past', 'to=2000-01-01T00:00:00Z', 0],
    ['from the past to the future', 'from=2000-01-01T00:00:00Z&to=2999-01-01T00:00:00Z', 5],
    ['sold in the future', 'occurredFrom=2999-01-01T00:00:00Z', 0],
    ['sold from the past to the future', 'occurredFrom=2000-01-01T00:00:00Z&occurredTo=2999-01-01T00:00:00Z', 5],
  ])('filter %s', async (_label, query, count) => {
    const q = query.replace('PARTNER_B', bob).replace('CAMPAIGN_A', campaignA);
    const res = await svc.api('GET', `/v1/commissions?${q}`);
    expect(res.status).toBe(200);
    expect(res.body.commissions).toHaveLength(count);
  });

  test('bad filters are 400 invalid_query', async () => {
    expect((await svc.api('GET', '/v1/commissions?status=pending')).body.code).toBe('invalid_query');
    expect((await svc.api('GET', '/v1/commissions?partnerId=%00')).body.code).toBe('invalid_query');
    expect((await svc.api('GET', '/v1/commissions?campaignId=%ED%A0%80')).status).toBe(400);
    expect((await svc.api('GET', '/v1/commissions?from=yesterday')).body).toMatchObject({ code: 'invalid_query', details: [{ field: 'from' }] });
    expect((await svc.api('GET', '/v1/commissions?occurredTo=soon')).body).toMatchObject({ code: 'invalid_query', details: [{ field: 'occurredTo' }] });
  });

  test('paginates', async () => {
    const first = await svc.api('GET', '/v1/commissions?limit=3');
    const second = await svc.api('GET', `/v1/commissions?limit=3&cursor=${first.body.nextCursor}`);
    expect(first.body.commissions).toHaveLength(3);
    expect(second.body.commissions).toHaveLength(2);
    expect(second.body.nextCursor).toBeNull();
  });

  test("a partner key sees its own commissions only; asking for another partner's is a 403", async () => {
    const own = await svc.api('GET', '/v1/commissions', { key: bobKey });
    expect(own.body.commissions.map((c: any) => c.partnerId)).toEqual([bob, bob]);
    expect((await svc.api('GET', `/v1/commissions?partnerId=${bob}`, { key: bobKey })).body.commissions).toHaveLength(2);
    const other = await svc.api('GET', `/v1/commissions?partnerId=${alice}`, { key: bobKey });
    expect(other.status).toBe(403);
  });
});

describe('GET /v1/commissions/:id', () => {
  test("answers one commission; a partner key gets its own, another partner's is a 403; unknown is a 404", async () => {
    const [c] = await svc.sql`select id from commissions where partner_id = ${alice} order by id limit 1`;
    const admin = await svc.api('GET', `/v1/commissions/${c!.id}`);
    expect(admin.status).toBe(200);
    expect(admin.body).toMatchObject({ id: c!.id, partnerId: alice, amount: '1.00' });
    expect((await svc.api('GET', `/v1/commissions/${c!.id}`, { key: aliceKey })).body.id).toBe(c!.id);
    const foreign = await svc.api('GET', `/v1/commissions/${c!.id}`, { key: bobKey });
    expect(foreign.status).toBe(403);
    expect(foreign.body.code).toBe('forbidden');
    expect((await svc.api('GET', '/v1/commissions/com_00000000000000000000000000')).status).toBe(404);
    expect((await svc.api('GET', '/v1/commissions/nonsense')).status).toBe(404);
    expect((await svc.api('GET', '/v1/commissions/com%00x')).status).toBe(404);
  });
});

describe('security matrix', () => {
  type Kind = 'none' | 'wrong' | 'publishable' | 'scoped-without' | 'scoped-with' | 'partner' | 'admin';
  const routes: { name: string; method: string; path: () => string; body?: () => unknown; scope: any; partner: number }[] = [
    { name: 'POST /v1/events', method: 'POST', path: () => '/v1/events', body: () => ({ userId: 'sec', type: 'signup' }), scope: 'events:write', partner: 403 },
    { name: 'POST /attribution/events', method: 'POST', path: () => '/attribution/events', body: () => ({ userId: 'sec', type: 'signup' }), scope: 'events:write', partner: 403 },
    { name: 'GET /v1/events', method: 'GET', path: () => '/v1/events', scope: 'events:read', partner: 200 },
    { name: 'GET /v1/commissions', method: 'GET', path: () => '/v1/commissions', scope: 'commissions:read', partner: 200 },
    { name: 'GET /v1/commissions/:id (own for the partner)', method: 'GET', path: () => `/v1/commissions/${ownCommission}`, scope: 'commissions:read', partner: 200 },
  ];
  let ownCommission = '';
  const keys: Partial<Record<Kind, string | null>> = {};
  beforeAll(async () => {
    const [c] = await svc.sql`select id from commissions where partner_id = ${alice} limit 1`;
    ownCommission = c!.id;
    keys.none = null;
    keys.wrong = 'sk_' + 'x'.repeat(43);
    keys.publishable = await svc.publishableKey();
    keys.partner = aliceKey;
    keys.admin = svc.adminKey;
  });

  const kinds: Kind[] = ['none', 'wrong', 'publishable', 'scoped-without', 'scoped-with', 'partner', 'admin'];
  for (const route of routes) {
    test.each(kinds)(`${route.name} with %s`, async (kind) => {
      let key = keys[kind];
      const other = route.scope === 'events:write' ? 'events:read' : 'events:write';
      if (kind === 'scoped-without') key = await svc.scopedKey(['partners:read', other]);
      if (kind === 'scoped-with') key = await svc.scopedKey([route.scope]);
      const res = await svc.api(route.method, route.path(), { key: key ?? null, body: route.body?.() });
      const ok = route.method === 'POST' ? 201 : 200;
      const expected: Record<Kind, number> = {
        none: 401,
        wrong: 401,
        publishable: 403,
        'scoped-without': 403,
        'scoped-with': ok,
        partner: route.partner,
        admin: ok,
      };
      expect(res.status).toBe(expected[kind]);
      if (res.status >= 400) expect(res.body).toMatchObject({ code: res.status === 401 ? 'unauthorized' : 'forbidden' });
    });
  }
});
