// The server SDK, imported as the package export, against a running service.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { Partnerd, PartnerdError } from 'partnerd/sdk';
import * as fx from '../support/fixtures';
import { contractChecker } from '../support/contract';
import { freePort, startService, type TestService } from '../support/service';

let svc: TestService;
let client: Partnerd;
let checked = 0;
beforeAll(async () => {
  svc = await startService();
  // the SDK and the service agree: every answer the SDK receives is checked against the document
  // its types are generated from
  const contract = contractChecker(svc.url);
  const checkedFetch = (async (input: URL | RequestInfo, init?: RequestInit) => {
    const response = await fetch(input, init);
    const text = await response.clone().text();
    const contentType = response.headers.get('content-type') ?? '';
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    (await contract())({ method: init?.method ?? 'GET', path: url.pathname, status: response.status, contentType, body: contentType.includes('json') && text ? JSON.parse(text) : text });
    checked++;
    return response;
  }) as typeof fetch;
  client = new Partnerd({ baseUrl: svc.url, apiKey: svc.adminKey, fetch: checkedFetch });
}, 60_000);
afterAll(() => svc.stop());

async function rejection(promise: Promise<unknown>): Promise<PartnerdError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof PartnerdError) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

describe('events and attribution', () => {
  test('events.create records in minor units; a repeated idempotency key answers the same event', async () => {
    const input = { userId: 'sdk-user', type: 'invoice_paid', amount: 4200, currency: 'USD', occurredAt: new Date('2026-02-01T12:00:00Z') };
    const event = await client.events.create(input, { idempotencyKey: 'sdk-1' });
    expect(event).toMatchObject({ id: expect.stringMatching(/^evt_/), userId: 'sdk-user', amount: 4200, currency: 'USD', occurredAt: '2026-02-01T12:00:00.000Z' });
    expect(await client.events.create(input, { idempotencyKey: 'sdk-1' })).toEqual(event);
    const conflict = await rejection(client.events.create({ ...input, amount: 1 }, { idempotencyKey: 'sdk-1' }));
    expect(conflict.status).toBe(409);
    expect(conflict.code).toBe('conflict');
  });

  test('attribution.track answers the attribution result and the commission exists', async () => {
    const c = await fx.campaign(svc.sql, { rules: [{ eventType: 'subscription_created', kind: 'percent', percent: 25 }] });
    const p = await fx.partner(svc.sql);
    const { userId, clickIds } = await fx.referredUser(svc.sql, [{ partnerId: p, campaignId: c }]);
    const result = await client.attribution.track({ userId, type: 'subscription_created', value: 49.99, currency: 'USD' });
    expect(result).toEqual({
      ok: true,
      eventId: expect.stringMatching(/^evt_/),
      attribution: {
        status: 'attributed',
        model: 'last_click',
        touches: [{ clickId: clickIds[0]!, couponCode: null, partnerId: p, weight: 1, attributionId: expect.stringMatching(/^att_/), commissionId: expect.stringMatching(/^com_/), ruleSource: 'campaign' }],
      },
    });
    const commission = await client.commissions.get(result.attribution.touches[0]!.commissionId!);
    // 25% of 49.99 = 12.4975 -> 12.50
    expect(commission).toMatchObject({ partnerId: p, amount: '12.50', currency: 'USD', status: 'accrued' });
    expect((await client.commissions.list({ partnerId: p })).commissions).toHaveLength(1);
    const history = await client.commissions.history(commission.id);
    expect(history).toMatchObject({ commissionId: commission.id, accruedAmount: '12.50', amount: '12.50', currency: 'USD' });
    expect(history.entries.map((e) => [e.change, e.toStatus, e.actor])).toEqual([['status', 'accrued', 'pipeline']]);
    expect((await client.events.list({ limit: 1 })).events[0]!.id).toBe(result.eventId);
  });

  test('a validation failure throws PartnerdError with status, code and the whole body as detail', async () => {
    const error = await rejection(client.attribution.track({ userId: 'u', type: 'invoice_paid', value: 10, currency: 'XXX' }));
    expect(error).toBeInstanceOf(Error);
    expect(error.status).toBe(400);
    expect(error.code).toBe('invalid_body');
    expect(error.detail).toEqual({ code: 'invalid_body', message: expect.any(String), details: [{ field: 'currency', message: expect.any(String) }] });
  });

  test('a wrong key is a 401 PartnerdError; an unreachable service is status 0, code network', async () => {
    const wrong = new Partnerd({ baseUrl: svc.url, apiKey: 'sk_' + 'z'.repeat(43) });
    const unauthorized = await rejection(wrong.events.create({ userId: 'u', type: 'signup' }));
    expect([unauthorized.status, unauthorized.code]).toEqual([401, 'unauthorized']);
    const nowhere = new Partnerd({ baseUrl: `http://127.0.0.1:${await freePort()}`, apiKey: svc.adminKey });
    const network = await rejection(nowhere.events.create({ userId: 'u', type: 'signup' }));
    expect([network.status, network.code, network.detail]).toEqual([0, 'network', null]);
  });

  test('the constructor insists on baseUrl and apiKey', () => {
    expect(() => new Partnerd({ baseUrl: '', apiKey: 'x' })).toThrow(TypeError);
    expect(() => new Partnerd({ baseUrl: 'http://x', apiKey: '' })).toThrow(TypeError);
  });
});

describe('partners', () => {
  test('create, list, get, update, revoke, reinstate, invite', async () => {
    const created = await client.partners.create({ email: 'Sdk.Partner@Example.com', name: 'SDK Partner', campaignIds: [] });
    expect(created).toMatchObject({ email: 'sdk.partner@example.com', name: 'SDK Partner', activatedAt: null, invited: true });
    const listed = await client.partners.list({ email: 'sdk.partner@example.com' });
    expect(listed.partners.map((p) => p.id)).toEqual([created.id]);
    expect((await client.partners.get(created.id)).status).toBe('pending');
    expect((await client.partners.update(created.id, { name: 'Renamed' })).name).toBe('Renamed');
    const invite = await client.partners.invite(created.id);
    expect(invite.ok).toBe(true);
    const revoked = await client.partners.revoke(created.id, { reason: 'fraud' });
    expect(revoked).toMatchObject({ status: 'revoked', revokeReason: 'fraud' });
    expect((await client.partners.reinstate(created.id)).status).toBe('pending');
    const duplicate = await rejection(client.partners.create({ email: 'sdk.partner@example.com', name: 'Again' }));
    expect([duplicate.status, duplicate.code]).toEqual([409, 'conflict']);
    const missing = await rejection(client.partners.get('ptn_00000000000000000000000000'));
    expect(missing.status).toBe(404);
  });
});

describe('links', () => {
  test('links.create makes a share link that redirects; a taken slug is a 409 PartnerdError', async () => {
    const c = await fx.campaign(svc.sql, { rules: [] });
    const p = await fx.partner(svc.sql);
    await svc.sql`insert into partner_campaigns (partner_id, campaign_id) values (${p}, ${c})`;
    const link = await client.links.create({ campaignId: c, partnerId: p, slug: 'sdk-link' });
    expect(link).toMatchObject({ slug: 'sdk-link', url: `${svc.url}/r/sdk-link`, partnerId: p, campaignId: c });
    expect(link.id).toMatch(/^lnk_/);
    const redirect = await fetch(link.url, { redirect: 'manual' });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('location')).toContain('pp_click=clk_');
    const taken = await rejection(client.links.create({ campaignId: c, partnerId: p, slug: 'SDK-link' }));
    expect(taken.status).toBe(409);
    expect(taken.code).toBe('conflict');
  });
});

describe('codes', () => {
  test('codes.create, then attribution.track with couponCode credits the code partner; codes.archive stops it', async () => {
    const c = await fx.campaign(svc.sql, { rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 10 }] });
    const p = await fx.partner(svc.sql);
    await svc.sql`insert into partner_campaigns (partner_id, campaign_id) values (${p}, ${c})`;
    const code = await client.codes.create({ code: 'SdkCode', partnerId: p, campaignId: c });
    expect(code).toMatchObject({ code: 'SdkCode', partnerId: p, campaignId: c, archivedAt: null });
    expect((await client.codes.list({ partnerId: p })).codes.map((x) => x.id)).toEqual([code.id]);
    const result = await client.attribution.track({ userId: fx.userId('sdk-code'), type: 'invoice_paid', value: 40, currency: 'USD', couponCode: 'sdkcode' });
    expect(result.attribution.touches).toEqual([expect.objectContaining({ partnerId: p, couponCode: 'SdkCode', clickId: null })]);
    expect((await client.codes.archive(code.id)).archivedAt).not.toBeNull();
    const after = await client.attribution.track({ userId: fx.userId('sdk-code'), type: 'invoice_paid', value: 40, currency: 'USD', couponCode: 'SdkCode' });
    expect(after.attribution.status).toBe('no_identity');
    expect((await client.codes.get(code.id)).archivedAt).not.toBeNull();
    const taken = await rejection(client.codes.create({ code: 'SDKCODE', partnerId: p, campaignId: c }));
    expect([taken.status, taken.code]).toEqual([409, 'conflict']);
  });
});

describe('the SDK is the contract', () => {
  test('its calls in this file were all checked against the OpenAPI document', () => {
    expect(checked).toBeGreaterThan(10);
  });

});
