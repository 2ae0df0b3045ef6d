// A test per kind of change: each writes its entry, with the fields that changed and no secret.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startService, type TestService } from '../support/service';
import { insertCommission } from '../support/lifecycle-fixtures';
import { entriesFor, wholeLog } from './entries';

let svc: TestService;
let partnerId: string;
let campaignId: string;
beforeAll(async () => {
  svc = await startService({ MIN_PAYOUT: '0' });
  const campaign = await svc.api('POST', '/v1/campaigns', { body: { name: 'Audit', destinationUrl: 'https://shop.example.com', currency: 'USD', rules: [] } });
  campaignId = campaign.body.id;
  const partner = await svc.api('POST', '/v1/partners', { body: { email: 'ann@example.com', name: 'Ann', sendInvite: false, campaignIds: [campaignId] } });
  partnerId = partner.body.id;
}, 60_000);
afterAll(() => svc.stop());

const actions = async (id: string) => (await entriesFor(svc.sql, id)).map((e) => e.action);

describe('every kind of change is in the audit log', () => {
  test('partners: created, updated (changed fields only), revoked, reinstated', async () => {
    await svc.api('PATCH', `/v1/partners/${partnerId}`, { body: { name: 'Ann Archer' } });
    await svc.api('POST', `/v1/partners/${partnerId}/revoke`, { body: { reason: 'spam' } });
    await svc.api('POST', `/v1/partners/${partnerId}/reinstate`);
    const entries = await entriesFor(svc.sql, partnerId);
    expect(entries.map((e) => e.action)).toEqual(['partner.created', 'partner.updated', 'partner.revoked', 'partner.reinstated']);
    expect(entries[0]!.changes).toMatchObject({ email: [null, 'ann@example.com'], name: [null, 'Ann'] });
    expect(entries[1]!.changes).toEqual({ name: ['Ann', 'Ann Archer'] });
    expect(entries[2]!.changes).toEqual({ status: ['active', 'revoked'], revokeReason: [null, 'spam'] });
    expect(entries[3]!.changes).toEqual({ status: ['revoked', 'active'], revokeReason: ['spam', null] });
  });

  test('campaigns and groups: created, rate changes, archived', async () => {
    const rules = [{ eventType: 'invoice_paid', kind: 'percent', percent: 20 }];
    expect((await svc.api('PATCH', `/v1/campaigns/${campaignId}`, { body: { rules } })).status).toBe(200);
    const [, changed] = await entriesFor(svc.sql, campaignId);
    expect(changed).toMatchObject({ action: 'campaign.updated', changes: { rules: [[], [expect.objectContaining({ percent: 20 })]] } });
    const group = await svc.api('POST', '/v1/groups', { body: { name: 'VIP', rules } });
    await svc.api('PATCH', `/v1/groups/${group.body.id}`, { body: { name: 'Gold' } });
    expect(await actions(group.body.id)).toEqual(['group.created', 'group.updated']);
  });

  test('API keys and webhook endpoints: created, rotated, revoked, never their secrets', async () => {
    const key = await svc.api('POST', '/v1/api-keys', { body: { name: 'ci', scopes: ['partners:read'] } });
    expect(key.status).toBeLessThan(300);
    await svc.api('DELETE', `/v1/api-keys/${key.body.id}`);
    expect(await actions(key.body.id)).toEqual(['api_key.created', 'api_key.revoked']);
    const endpoint = await svc.api('POST', '/v1/webhooks', { body: { url: 'https://hooks.example.com/in', events: ['*'] } });
    expect(endpoint.status).toBe(201);
    const rotated = await svc.api('POST', `/v1/webhooks/${endpoint.body.endpoint.id}/rotate-secret`);
    expect(await actions(endpoint.body.endpoint.id)).toEqual(['webhook_endpoint.created', 'webhook_endpoint.secret_rotated']);
    const log = await wholeLog(svc.sql);
    const [hash] = await svc.sql`select key_hash from api_keys where id = ${key.body.id}`;
    for (const secret of [key.body.key, hash!.key_hash, endpoint.body.secret, rotated.body.secret]) {
      expect(typeof secret).toBe('string');
      expect(log).not.toContain(secret);
    }
  });

  test('codes, links and resources', async () => {
    const code = await svc.api('POST', '/v1/codes', { body: { code: 'ANN10', partnerId, campaignId } });
    await svc.api('PATCH', `/v1/codes/${code.body.id}`, { body: { archived: true } });
    expect(await actions(code.body.id)).toEqual(['code.created', 'code.archived']);
    const link = await svc.api('POST', '/v1/links', { body: { partnerId, campaignId } });
    expect(await actions(link.body.id)).toEqual(['link.created']);
    const resource = await svc.api('POST', '/v1/resources', { body: { kind: 'link', title: 'Brand kit', url: 'https://example.com/kit' } });
    await svc.api('DELETE', `/v1/resources/${resource.body.id}`);
    expect(await actions(resource.body.id)).toEqual(['resource.created', 'resource.deleted']);
  });

  test('commissions approved and reversed by hand; payouts run and paid', async () => {
    const first = await insertCommission(svc.sql, { partnerId, campaignId, amount: 1000 });
    const second = await insertCommission(svc.sql, { partnerId, campaignId, amount: 500 });
    await svc.api('POST', `/v1/commissions/${first}/approve`);
    await svc.api('POST', `/v1/commissions/${second}/reverse`, { body: { reason: 'refunded' } });
    expect((await entriesFor(svc.sql, second))[0]).toMatchObject({ action: 'commission.reversed', changes: { status: ['accrued', 'reversed'], reason: [null, 'refunded'] } });
    const run = await svc.api('POST', '/v1/payouts/run');
    expect(run.status).toBe(200);
    const payout = run.body.payouts[0];
    await svc.api('POST', `/v1/payouts/${payout.id}/mark-paid`, { body: { reference: 'tx-1' } });
    const payoutEntries = await entriesFor(svc.sql, payout.id);
    expect(payoutEntries.map((e) => e.action)).toEqual(['payout.run', 'payout.paid']);
    expect(payoutEntries[0]!.changes).toMatchObject({ amount: [null, '1000'], currency: [null, 'USD'], status: [null, 'pending'] });
    expect(await actions(first)).toEqual(['commission.approved', 'commission.paid']);
  });

  test('settings, by an admin key: who, from where', async () => {
    await svc.api('PATCH', '/v1/settings', { body: { programName: 'Acme partners' } });
    const [entry] = await entriesFor(svc.sql, 'settings');
    expect(entry).toMatchObject({ action: 'settings.updated', actor_type: 'key', ip: '127.0.0.1', changes: { programName: [expect.any(String), 'Acme partners'] } });
  });
});

describe('GET /v1/audit-log', () => {
  test('filters by target, action (or noun) and time, newest first, with a cursor', async () => {
    const byTarget = await svc.api('GET', `/v1/audit-log?targetId=${partnerId}`);
    expect(byTarget.status).toBe(200);
    expect(byTarget.body.entries.map((e: { action: string }) => e.action)).toEqual(['partner.reinstated', 'partner.revoked', 'partner.updated', 'partner.created']);
    expect(byTarget.body.entries[0]).toMatchObject({ actor: { type: 'key' }, target: { type: 'partner', id: partnerId }, ip: '127.0.0.1' });
    const nouns = await svc.api('GET', '/v1/audit-log?action=partner.&limit=2');
    expect(nouns.body.entries).toHaveLength(2);
    const next = await svc.api('GET', `/v1/audit-log?action=partner.&limit=2&cursor=${nouns.body.nextCursor}`);
    expect(next.body.entries[0].id < nouns.body.entries[1].id).toBe(true);
    const future = await svc.api('GET', '/v1/audit-log?from=2999-01-01');
    expect(future.body).toEqual({ entries: [], nextCursor: null });
    const today = new Date().toISOString().slice(0, 10);
    expect((await svc.api('GET', `/v1/audit-log?to=${today}&action=partner.revoked`)).body.entries).toHaveLength(1);
  });

  test.each([
    ['from=yesterday', 'from'],
    ['to=2026-02-30', 'to'],
    ['action=Partner', 'action'],
    ['actorType=robot', 'actorType'],
    ['cursor=nope', 'cursor'],
    ['colour=red', 'colour'],
    ['from=2026-02-01&to=2026-01-01', 'to'],
  ])('?%s is a 400 naming %s', async (query, field) => {
    const res = await svc.api('GET', `/v1/audit-log?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_query');
    expect(JSON.stringify(res.body.details)).toContain(field);
  });

  test('a key needs audit:read; partners never read it', async () => {
    expect((await svc.api('GET', '/v1/audit-log', { key: await svc.scopedKey(['partners:read']) })).status).toBe(403);
    expect((await svc.api('GET', '/v1/audit-log', { key: await svc.scopedKey(['audit:read']) })).status).toBe(200);
    expect((await svc.api('GET', '/v1/audit-log', { key: await svc.partnerKey(partnerId) })).status).toBe(403);
  });
});
