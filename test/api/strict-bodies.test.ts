// Strict bodies: deeply nested metadata is a 400 (alone or as one item of a batch), bytes that are
// not UTF-8 are refused before anything acts on them, and unknown fields are named, not ignored.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { insertCampaign, insertCommission, insertPartner } from '../support/lifecycle-fixtures';
import { startService, type TestService } from '../support/service';

let svc: TestService;

beforeAll(async () => {
  svc = await startService();
}, 60_000);
afterAll(() => svc.stop());

const nested = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
const json = { 'content-type': 'application/json' };

describe('metadata nested 100,000 levels deep', () => {
  test('POST /v1/events: 400 naming metadata, nothing stored', async () => {
    const raw = `{"userId":"deep-1","type":"signup","metadata":${nested(100_000)}}`;
    const res = await svc.api('POST', '/v1/events', { headers: json, raw });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_body');
    expect(res.body.details).toEqual([{ field: 'metadata', message: 'nested deeper than 32 levels' }]);
    expect((await svc.sql`select count(*)::int as n from events where user_id = 'deep-1'`)[0]!.n).toBe(0);
  });

  test('POST /v1/partners: 400 naming metadata, no partner', async () => {
    const raw = `{"email":"deep@example.com","name":"Deep","sendInvite":false,"metadata":${nested(100_000)}}`;
    const res = await svc.api('POST', '/v1/partners', { headers: json, raw });
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([{ field: 'metadata', message: 'nested deeper than 32 levels' }]);
    expect((await svc.sql`select count(*)::int as n from partners where email = 'deep@example.com'`)[0]!.n).toBe(0);
  });

  test('a batch: the deep item is its own invalid_body, the good one is stored', async () => {
    const raw = `{"events":[{"userId":"deep-2","type":"signup","metadata":${nested(100_000)}},{"userId":"fine-2","type":"signup","metadata":${nested(5)}}]}`;
    const res = await svc.api('POST', '/v1/events/batch', { headers: json, raw });
    expect(res.status).toBe(200);
    expect(res.body.results[0].error).toMatchObject({ code: 'invalid_body', details: [{ field: 'metadata', message: 'nested deeper than 32 levels' }] });
    expect(res.body.results[1]).toMatchObject({ userId: 'fine-2', type: 'signup' });
    const users = await svc.sql`select user_id from events where user_id in ('deep-2', 'fine-2')`;
    expect(users.map((r) => r.user_id)).toEqual(['fine-2']);
  });

  test('32 levels are still accepted', async () => {
    const raw = `{"userId":"deep-3","type":"signup","metadata":${nested(31)}}`;
    const res = await svc.api('POST', '/v1/events', { headers: json, raw });
    expect(res.status).toBe(201);
  });
});

describe('bodies that are not UTF-8 are refused and nothing acts on them', () => {
  // {"name":"<0xff 0xfe>"} : bytes no UTF-8 text has
  const bad = (text: string): Uint8Array<ArrayBuffer> => Uint8Array.from(Buffer.concat([Buffer.from(text.split('@')[0]!), Buffer.from([0xff, 0xfe]), Buffer.from(text.split('@')[1]!)]));
  const send = (method: string, path: string, body: Uint8Array<ArrayBuffer>) =>
    fetch(svc.url + path, { method, headers: { ...json, authorization: `Bearer ${svc.adminKey}` }, body });

  test('POST /v1/payouts/run: 400, no payout', async () => {
    const campaignId = await insertCampaign(svc.sql, { currency: 'USD' });
    const partnerId = await insertPartner(svc.sql);
    await insertCommission(svc.sql, { partnerId, campaignId, amount: 1500, status: 'approved' });
    const res = await send('POST', '/v1/payouts/run', bad('{"note":"@"}'));
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ code: 'invalid_body', message: 'request body is not valid UTF-8' });
    expect((await svc.sql`select count(*)::int as n from payouts where partner_id = ${partnerId}`)[0]!.n).toBe(0);
  });

  test('DELETE /v1/partners/:id with such a body: 400, partner not revoked', async () => {
    const id = await insertPartner(svc.sql);
    const res = await send('DELETE', `/v1/partners/${id}`, bad('{"reason":"@"}'));
    expect(res.status).toBe(400);
    expect((await res.json()).code).toBe('invalid_body');
    const [row] = await svc.sql`select revoked_at from partners where id = ${id}`;
    expect(row!.revoked_at).toBeNull();
  });

  test('PATCH /v1/settings: 400, the name unchanged', async () => {
    const before = (await svc.api('GET', '/v1/settings')).body.programName;
    const res = await send('PATCH', '/v1/settings', bad('{"programName":"Acme @"}'));
    expect(res.status).toBe(400);
    expect((await res.json()).code).toBe('invalid_body');
    expect((await svc.api('GET', '/v1/settings')).body.programName).toBe(before);
  });
});

describe('unknown fields are refused with a 400 naming them', () => {
  test('PATCH /v1/settings {"holdbakDays": 3}', async () => {
    const res = await svc.api('PATCH', '/v1/settings', { body: { holdbakDays: 3 } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 'invalid_body', message: 'holdbakDays: unknown field', details: [{ field: 'holdbakDays', message: 'unknown field' }] });
  });

  test('PATCH /v1/settings with a known field and a typo changes nothing', async () => {
    const before = (await svc.api('GET', '/v1/settings')).body;
    const res = await svc.api('PATCH', '/v1/settings', { body: { attributionWindowDays: 7, taxForm: 'collect' } });
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([{ field: 'taxForm', message: 'unknown field' }]);
    expect((await svc.api('GET', '/v1/settings')).body.attributionWindowDays).toBe(before.attributionWindowDays);
  });

  test('nested objects are closed too, metadata stays free-form', async () => {
    const res = await svc.api('POST', '/v1/campaigns', {
      body: { name: 'Strict', destinationUrl: 'https://example.com/', currency: 'USD', rules: [{ eventType: 'signup', kind: 'flat', amount: '1.00', amonut: '5' }] },
    });
    expect(res.status).toBe(400);
    expect(res.body.details).toContainEqual({ field: 'rules.0.amonut', message: 'unknown field' });
    const ok = await svc.api('POST', '/v1/partners', { body: { email: 'free@example.com', name: 'Free', sendInvite: false, metadata: { anything: { at: ['all'] } } } });
    expect(ok.status).toBe(201);
    const [row] = await svc.sql`select metadata from partners where email = 'free@example.com'`;
    expect(row!.metadata).toEqual({ anything: { at: ['all'] } });
  });

  test('POST /v1/events and batch items name the unknown field', async () => {
    const one = await svc.api('POST', '/v1/events', { body: { userId: 'u-typo', type: 'signup', ammount: 100 } });
    expect(one.status).toBe(400);
    expect(one.body.details).toEqual([{ field: 'ammount', message: 'unknown field' }]);
    const batch = await svc.api('POST', '/v1/events/batch', { body: { events: [{ userId: 'u-typo', type: 'signup', ammount: 100 }, { userId: 'u-fine', type: 'signup' }] } });
    expect(batch.status).toBe(200);
    expect(batch.body.results[0].error.details).toEqual([{ field: 'ammount', message: 'unknown field' }]);
    expect(batch.body.results[1].userId).toBe('u-fine');
  });
});
