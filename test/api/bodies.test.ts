// Request bodies: anything that is not a JSON object sent as JSON is refused before the action runs,
// on every route of the API, whether its body is required, optional or absent.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { insertCampaign, insertCommission, insertPartner } from '../support/lifecycle-fixtures';
import { startService, type TestService } from '../support/service';

let svc: TestService;

beforeAll(async () => {
  svc = await startService({ STRIPE_WEBHOOK_SECRET: 'whsec_bodies' });
}, 60_000);
afterAll(() => svc.stop());

const json = { 'content-type': 'application/json' };

async function partnerState(id: string) {
  const [row] = await svc.sql`select revoked_at, revoke_reason, name from partners where id = ${id}`;
  return { ...row };
}

describe('a broken body on a route whose body is optional changes nothing', () => {
  test('POST /partners/:id/revoke with truncated JSON: 400, partner still active', async () => {
    const id = await insertPartner(svc.sql);
    const res = await svc.api('POST', `/partners/${id}/revoke`, { headers: json, raw: '{"reason":"fraud' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 'invalid_body', message: 'request body is not valid JSON' });
    expect(await partnerState(id)).toMatchObject({ revoked_at: null, revoke_reason: null });

    // the same call with a whole body still works, and no body at all too
    const ok = await svc.api('POST', `/partners/${id}/revoke`, { body: { reason: 'fraud' } });
    expect(ok.status).toBe(200);
    expect(ok.body.revokeReason).toBe('fraud');
    const other = await insertPartner(svc.sql);
    expect((await svc.api('POST', `/partners/${other}/revoke`)).status).toBe(200);
  });

  test('DELETE /v1/partners/:id with truncated JSON: 400, partner and its keys untouched', async () => {
    const id = await insertPartner(svc.sql);
    const key = await svc.partnerKey(id);
    const res = await svc.api('DELETE', `/v1/partners/${id}`, { headers: json, raw: '{"reason":"fraud' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_body');
    expect(await partnerState(id)).toMatchObject({ revoked_at: null });
    expect((await svc.api('GET', `/partners/${id}`, { key })).status).toBe(200);
  });

  test('POST /v1/payouts/:id/mark-paid with truncated JSON: 400, payout still pending', async () => {
    const campaignId = await insertCampaign(svc.sql, { currency: 'USD' });
    const partnerId = await insertPartner(svc.sql);
    await insertCommission(svc.sql, { partnerId, campaignId, amount: 1500, status: 'approved' });
    const run = await svc.api('POST', '/v1/payouts/run');
    const payout = run.body.payouts.find((p: { partnerId: string }) => p.partnerId === partnerId);
    const res = await svc.api('POST', `/v1/payouts/${payout.id}/mark-paid`, { headers: json, raw: '{"reference":"tr_12' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_body');
    const [row] = await svc.sql`select status, provider_reference from payouts where id = ${payout.id}`;
    expect({ ...row }).toEqual({ status: 'pending', provider_reference: null });
  });
});

describe('a body must be a JSON object', () => {
  for (const raw of ['[]', '1', '"text"', 'null', 'true']) {
    test(`PATCH /partners/:id with ${raw}: 400, nothing changes`, async () => {
      const id = await insertPartner(svc.sql, { name: 'Before' });
      const res = await svc.api('PATCH', `/partners/${id}`, { headers: json, raw });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ code: 'invalid_body', message: 'request body must be a JSON object' });
      expect((await partnerState(id)).name).toBe('Before');
    });
  }

  test('a JSON object with a charset or a +json media type is accepted', async () => {
    const id = await insertPartner(svc.sql, { name: 'Before' });
    const a = await svc.api('PATCH', `/partners/${id}`, { headers: { 'content-type': 'application/json; charset=utf-8' }, raw: '{"name":"After"}' });
    expect(a.status).toBe(200);
    const b = await svc.api('PATCH', `/partners/${id}`, { headers: { 'content-type': 'application/merge-patch+json' }, raw: '{"name":"Again"}' });
    expect(b.status).toBe(200);
    expect((await partnerState(id)).name).toBe('Again');
  });
});

describe('a body in another content type is refused', () => {
  const cases: [string, string][] = [
    ['text/plain', '{"email":"plain@example.com","name":"Plain"}'],
    ['application/x-www-form-urlencoded', 'email=form%40example.com&name=Form'],
    ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="email"\r\n\r\nmp@example.com\r\n--x--\r\n'],
    ['', '{"email":"none@example.com","name":"None"}'],
  ];
  for (const [type, raw] of cases) {
    test(`POST /partners as ${type || 'no content type'}: 400, no partner`, async () => {
      const before = await svc.sql`select count(*)::int as n from partners`;
      const headers: Record<string, string> = type ? { 'content-type': type } : {};
      const res = await svc.api('POST', '/partners', { headers, raw });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('invalid_body');
      expect(res.body.message).toContain('application/json');
      expect(await svc.sql`select count(*)::int as n from partners`).toEqual(before);
    });
  }

  test('text/plain on an optional body (revoke) is refused too', async () => {
    const id = await insertPartner(svc.sql);
    const res = await svc.api('POST', `/partners/${id}/revoke`, { headers: { 'content-type': 'text/plain' }, raw: 'fraud' });
    expect(res.status).toBe(400);
    expect((await partnerState(id)).revoked_at).toBeNull();
  });

  test('the sign-in routes parse the same way', async () => {
    const before = svc.mail.messages.length;
    const res = await svc.api('POST', '/auth/magic-link', { key: null, headers: json, raw: '{"email":' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_body');
    expect(svc.mail.messages.length).toBe(before);
  });

  test('a provider webhook still gets its raw bytes (the signature check, not the parser, refuses them)', async () => {
    const res = await svc.api('POST', '/webhooks/stripe', { key: null, headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=00' }, raw: '{"id":' });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('signature');
  });
});

describe('every route that takes a body, in both forms', () => {
  test('a truncated JSON body is a 400 invalid_body everywhere', async () => {
    const doc = (await svc.api('GET', '/openapi.json', { key: null })).body;
    const checked: string[] = [];
    for (const [path, item] of Object.entries<Record<string, unknown>>(doc.paths)) {
      for (const method of Object.keys(item)) {
        if (!['post', 'patch', 'put', 'delete'].includes(method) || path.startsWith('/v1/webhooks/stripe') || path === '/webhooks/stripe') continue;
        for (const form of [path, path.replace(/^\/v1\//, '/')]) {
          const url = form.replace(/\{[^}]+\}/g, 'ptn_00000000000000000000000000');
          const res = await svc.api(method.toUpperCase(), url, { headers: json, raw: '{"a":' });
          // an upload route that takes files only (POST /v1/imports) refuses JSON of any shape as the wrong media type
          const content = (item[method] as { requestBody?: { content?: Record<string, unknown> } }).requestBody?.content;
          const filesOnly = content !== undefined && !('application/json' in content);
          expect({ route: `${method} ${form}`, status: res.status, code: res.body?.code }).toEqual({
            route: `${method} ${form}`,
            status: filesOnly ? 415 : 400,
            code: filesOnly ? 'unsupported_media_type' : 'invalid_body',
          });
          checked.push(`${method} ${form}`);
        }
      }
    }
    expect(checked.length).toBeGreaterThan(40);
  });
});
