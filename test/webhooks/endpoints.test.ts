// The endpoint API: registration (admin only, secret shown once), listing, changes, soft and hard
// delete, validation, and who may call what.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startService, type TestService } from '../support/service';
import { LOCAL_RECEIVERS } from '../support/webhooks';

let svc: TestService;
beforeAll(async () => {
  svc = await startService(LOCAL_RECEIVERS);
}, 60_000);
afterAll(() => svc.stop());

describe('registration', () => {
  test('answers the endpoint and a secret that is never shown again', async () => {
    const res = await svc.api('POST', '/webhooks', {
      body: { url: 'https://hooks.example.com/partnerd', events: ['partner.created', 'commission.accrued'], label: 'CRM sync' },
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['endpoint', 'secret']);
    const { endpoint, secret } = res.body;
    expect(endpoint).toEqual({
      id: expect.stringMatching(/^whe_[0-9a-z]{26}$/),
      url: 'https://hooks.example.com/partnerd',
      events: ['partner.created', 'commission.accrued'],
      active: true,
      label: 'CRM sync',
      createdAt: expect.stringMatching(/\.\d{3}Z$/),
    });
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const [row] = await svc.sql`select url, events, label, active, secret from webhook_endpoints where id = ${endpoint.id}`;
    expect(row).toEqual({ url: endpoint.url, events: endpoint.events, label: 'CRM sync', active: true, secret });

    // never again: not in GET, list, PATCH or DELETE answers
    const answers = [
      await svc.api('GET', `/webhooks/${endpoint.id}`),
      await svc.api('GET', '/webhooks'),
      await svc.api('PATCH', `/webhooks/${endpoint.id}`, { body: { label: 'CRM' } }),
      await svc.api('DELETE', `/webhooks/${endpoint.id}`),
    ];
    for (const a of answers) {
      expect(a.status).toBe(200);
      expect(JSON.stringify(a.body)).not.toContain(secret);
      expect(JSON.stringify(a.body)).not.toContain('whsec_');
    }
    expect(answers[0]!.body).toEqual(endpoint);
  });

  test('each endpoint gets its own secret; the wildcard alone; duplicates collapse', async () => {
    const a = await svc.api('POST', '/webhooks', { body: { url: 'https://a.example.com/h', events: ['*'] } });
    const b = await svc.api('POST', '/webhooks', { body: { url: 'https://b.example.com/h', events: ['payout.created', 'payout.created'] } });
    expect(a.body.endpoint.events).toEqual(['*']);
    expect(a.body.endpoint.label).toBeNull();
    expect(b.body.endpoint.events).toEqual(['payout.created']);
    expect(a.body.secret).not.toBe(b.body.secret);
  });

  test('validation: event names, urls, required fields', async () => {
    const bad = async (body: unknown) => {
      const res = await svc.api('POST', '/webhooks', { body });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('invalid_body');
      return res.body;
    };
    expect((await bad({ url: 'https://x.example.com', events: ['partner.exploded'] })).details).toEqual([
      { field: 'events', message: expect.stringContaining('partner.exploded') },
    ]);
    expect((await bad({ url: 'https://x.example.com', events: ['*', 'partner.created'] })).details[0].field).toBe('events');
    await bad({ url: 'https://x.example.com', events: [] });
    await bad({ url: 'https://x.example.com' });
    await bad({ events: ['*'] });
    await bad({ url: 'not a url', events: ['*'] });
    await bad({ url: 'ftp://x.example.com/h', events: ['*'] });
    await bad({ url: 'https://user:pass@x.example.com/h', events: ['*'] });
    await bad({ url: 'https://x.example.com', events: ['*'], label: 42 });
    await bad({ url: `https://x.example.com/${'a'.repeat(3000)}`, events: ['*'] });
    // 2,048 characters as typed, three times as many once percent-encoded for storage
    const encoded = await bad({ url: `https://x.example.com/${'é'.repeat(2000)}`, events: ['*'] });
    expect(encoded.details).toEqual([{ field: 'url', message: 'must be at most 2048 characters (once percent-encoded)' }]);
    const atLimit = `https://x.example.com/${'a'.repeat(2048 - 'https://x.example.com/'.length)}`;
    const ok = await svc.api('POST', '/webhooks', { body: { url: atLimit, events: ['*'] } });
    expect(ok.status).toBe(201);
    expect((await svc.api('PATCH', `/webhooks/${ok.body.endpoint.id}`, { body: { url: `https://x.example.com/${'é'.repeat(2000)}` } })).status).toBe(400);
    await svc.sql`delete from webhook_endpoints where id = ${ok.body.endpoint.id}`;
    expect(await svc.sql`select 1 from webhook_endpoints where url like 'https://x.example.com%'`).toHaveLength(0);
    const raw = await svc.api('POST', '/webhooks', { raw: '{"url":', headers: { 'content-type': 'application/json' } });
    expect(raw.status).toBe(400);
  });
});

describe('list, get, patch, delete', () => {
  test('list is newest first with cursor pagination and an active filter', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await svc.api('POST', '/webhooks', { body: { url: `https://page${i}.example.com/h`, events: ['*'] } })).body.endpoint.id);
    }
    await svc.api('PATCH', `/webhooks/${ids[1]}`, { body: { active: false } });
    const all = (await svc.api('GET', '/webhooks?limit=200')).body;
    const listed = all.endpoints.map((e: any) => e.id);
    expect(listed.slice(0, 5)).toEqual([...ids].reverse());
    expect(all.nextCursor).toBeNull();

    const p1 = (await svc.api('GET', '/webhooks?limit=2')).body;
    expect(p1.endpoints.map((e: any) => e.id)).toEqual([ids[4], ids[3]]);
    const p2 = (await svc.api('GET', `/webhooks?limit=2&cursor=${p1.nextCursor}`)).body;
    expect(p2.endpoints.map((e: any) => e.id)).toEqual([ids[2], ids[1]]);

    const inactive = (await svc.api('GET', '/webhooks?active=false')).body.endpoints.map((e: any) => e.id);
    expect(inactive).toContain(ids[1]);
    expect(inactive).not.toContain(ids[2]);
    const active = (await svc.api('GET', '/webhooks?active=true')).body.endpoints.map((e: any) => e.id);
    expect(active).toContain(ids[2]);
    expect(active).not.toContain(ids[1]);

    expect((await svc.api('GET', '/webhooks?limit=0')).body.code).toBe('invalid_query');
    expect((await svc.api('GET', '/webhooks?cursor=ptn_01m7ybps896pj6k66fgnsmqq1g')).body.code).toBe('invalid_query');
    expect((await svc.api('GET', '/webhooks?active=maybe')).body.code).toBe('invalid_query');
  });

  test('patch changes url, events, label and active; validates like registration', async () => {
    const { endpoint } = (await svc.api('POST', '/webhooks', { body: { url: 'https://old.example.com/h', events: ['*'], label: 'old' } })).body;
    const res = await svc.api('PATCH', `/webhooks/${endpoint.id}`, {
      body: { url: 'https://new.example.com/h', events: ['commission.paid'], label: null, active: false },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...endpoint, url: 'https://new.example.com/h', events: ['commission.paid'], label: null, active: false });
    // partial: only what is given changes
    const partial = await svc.api('PATCH', `/webhooks/${endpoint.id}`, { body: { active: true } });
    expect(partial.body).toEqual({ ...res.body, active: true });
    expect((await svc.api('GET', `/webhooks/${endpoint.id}`)).body).toEqual(partial.body);

    expect((await svc.api('PATCH', `/webhooks/${endpoint.id}`, { body: { events: ['nope'] } })).status).toBe(400);
    expect((await svc.api('PATCH', `/webhooks/${endpoint.id}`, { body: { url: 'javascript:alert(1)' } })).status).toBe(400);
    expect((await svc.api('PATCH', `/webhooks/${endpoint.id}`, { body: { active: 'yes' } })).status).toBe(400);
    expect((await svc.api('GET', `/webhooks/${endpoint.id}`)).body).toEqual(partial.body);
    expect((await svc.api('PATCH', '/webhooks/whe_00000000000000000000000000', { body: { active: true } })).status).toBe(404);
  });

  test('delete is soft by default; ?hard=1 removes the endpoint and its log', async () => {
    const { endpoint } = (await svc.api('POST', '/webhooks', { body: { url: 'https://gone.invalid/h', events: ['*'] } })).body;
    const soft = await svc.api('DELETE', `/webhooks/${endpoint.id}`);
    expect(soft.status).toBe(200);
    expect(soft.body).toEqual({ ...endpoint, active: false });
    expect((await svc.api('GET', `/webhooks/${endpoint.id}`)).body.active).toBe(false);
    await svc.api('POST', `/webhooks/${endpoint.id}/test`); // leaves a (failed) delivery row behind
    expect(await svc.sql`select 1 from webhook_deliveries where endpoint_id = ${endpoint.id}`).toHaveLength(1);

    const hard = await svc.api('DELETE', `/webhooks/${endpoint.id}?hard=1`);
    expect(hard.status).toBe(204);
    expect((await svc.api('GET', `/webhooks/${endpoint.id}`)).status).toBe(404);
    expect(await svc.sql`select 1 from webhook_endpoints where id = ${endpoint.id}`).toHaveLength(0);
    expect(await svc.sql`select 1 from webhook_deliveries where endpoint_id = ${endpoint.id}`).toHaveLength(0);
    expect((await svc.api('DELETE', `/webhooks/${endpoint.id}?hard=1`)).status).toBe(404);
  });

  test('unknown ids are 404 with the error body', async () => {
    for (const id of ['whe_00000000000000000000000000', 'nonsense', 'ptn_01m7ybps896pj6k66fgnsmqq1g']) {
      const res = await svc.api('GET', `/webhooks/${id}`);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('not_found');
    }
  });

  test('every call is also served under /v1', async () => {
    const created = await svc.api('POST', '/v1/webhooks', { body: { url: 'https://v1.example.com/h', events: ['*'] } });
    expect(created.status).toBe(201);
    expect((await svc.api('GET', `/v1/webhooks/${created.body.endpoint.id}`)).body.url).toBe('https://v1.example.com/h');
    expect((await svc.api('GET', `/v1/webhooks/${created.body.endpoint.id}/deliveries`)).body).toEqual({ deliveries: [], nextCursor: null });
  });
});

describe('who may call what', () => {
  test('admin key for registration; webhooks:read / webhooks:write for the rest; partners and publishable keys never', async () => {
    const { endpoint } = (await svc.api('POST', '/webhooks', { body: { url: 'https://auth.invalid/h', events: ['*'] } })).body;
    const readKey = await svc.scopedKey(['webhooks:read']);
    const writeKey = await svc.scopedKey(['webhooks:write']);
    const bothKey = await svc.scopedKey(['webhooks:read', 'webhooks:write']);
    const otherKey = await svc.scopedKey(['partners:read', 'partners:write', 'events:write']);
    const pk = await svc.publishableKey();
    const partner = (await svc.api('POST', '/partners', { body: { email: 'hooks-auth@example.com', name: 'P', sendInvite: false } })).body;
    const partnerKey = await svc.partnerKey(partner.id);

    const register = { url: 'https://auth2.example.com/h', events: ['*'] };
    for (const key of [readKey, writeKey, bothKey, otherKey, pk, partnerKey]) {
      const res = await svc.api('POST', '/webhooks', { key, body: register });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('forbidden');
    }
    expect((await svc.api('POST', '/webhooks', { key: null, body: register })).status).toBe(401);
    expect((await svc.api('POST', '/webhooks', { key: 'sk_nonsense', body: register })).status).toBe(401);

    const reads = [`/webhooks`, `/webhooks/${endpoint.id}`, `/webhooks/${endpoint.id}/deliveries`];
    for (const path of reads) {
      expect((await svc.api('GET', path, { key: readKey })).status).toBe(200);
      expect((await svc.api('GET', path, { key: bothKey })).status).toBe(200);
      for (const key of [writeKey, otherKey, pk, partnerKey]) expect((await svc.api('GET', path, { key })).status).toBe(403);
      expect((await svc.api('GET', path, { key: null })).status).toBe(401);
    }

    const writes: [string, string, unknown][] = [
      ['PATCH', `/webhooks/${endpoint.id}`, { label: 'changed' }],
      ['POST', `/webhooks/${endpoint.id}/test`, undefined],
      ['DELETE', `/webhooks/${endpoint.id}`, undefined],
    ];
    for (const [method, path, body] of writes) {
      for (const key of [readKey, otherKey, pk, partnerKey]) expect((await svc.api(method, path, { key, body })).status).toBe(403);
      expect((await svc.api(method, path, { key: null, body })).status).toBe(401);
    }
    expect((await svc.api('PATCH', `/webhooks/${endpoint.id}`, { key: writeKey, body: { label: 'by write key' } })).body.label).toBe('by write key');
    expect((await svc.api('POST', `/webhooks/${endpoint.id}/test`, { key: writeKey })).status).toBe(200);
    const [delivery] = (await svc.api('GET', `/webhooks/${endpoint.id}/deliveries`, { key: readKey })).body.deliveries;
    expect((await svc.api('POST', `/webhooks/${endpoint.id}/deliveries/${delivery.id}/retry`, { key: readKey })).status).toBe(403);
    expect((await svc.api('POST', `/webhooks/${endpoint.id}/deliveries/${delivery.id}/retry`, { key: writeKey })).status).toBe(200);
    expect((await svc.api('DELETE', `/webhooks/${endpoint.id}`, { key: writeKey })).body.active).toBe(false);
    expect((await svc.api('DELETE', `/webhooks/${endpoint.id}?hard=1`, { key: writeKey })).status).toBe(204);
  });
});
