import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startService, type TestService } from '../support/service';

let svc: TestService;
beforeAll(async () => {
  svc = await startService();
});
afterAll(() => svc.stop());

describe('API keys', () => {
  test('a scoped key is shown once, works for its scope, and is revoked by DELETE', async () => {
    const res = await svc.api('POST', '/v1/api-keys', { body: { name: 'backend', scopes: ['partners:read', 'partners:read'] } });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['createdAt', 'id', 'key', 'kind', 'name', 'scopes']);
    expect(res.body).toMatchObject({ name: 'backend', kind: 'scoped', scopes: ['partners:read'] });
    expect(res.body.id).toMatch(/^key_/);
    expect(res.body.key).toMatch(/^sk_[A-Za-z0-9_-]{43}$/);
    const key = res.body.key as string;

    expect((await svc.api('GET', '/partners', { key })).status).toBe(200);
    expect((await svc.api('POST', '/partners', { key, body: { email: 'x@example.com', name: 'X' } })).status).toBe(403);

    const list = await svc.api('GET', '/v1/api-keys');
    const listed = list.body.apiKeys.find((k: { id: string }) => k.id === res.body.id);
    expect(listed).toMatchObject({ name: 'backend', kind: 'scoped', scopes: ['partners:read'], revokedAt: null });
    expect(JSON.stringify(list.body)).not.toContain(key);

    const del = await svc.api('DELETE', `/v1/api-keys/${res.body.id}`);
    expect(del.status).toBe(200);
    expect(del.body.revokedAt).not.toBeNull();
    expect((await svc.api('GET', '/partners', { key })).status).toBe(401);
    const after = await svc.api('GET', '/v1/api-keys');
    expect(after.body.apiKeys.find((k: { id: string }) => k.id === res.body.id)).toBeUndefined();
  });

  test('publishable keys are pk_ and carry no scopes', async () => {
    const res = await svc.api('POST', '/api-keys', { body: { name: 'site', kind: 'publishable' } });
    expect(res.status).toBe(201);
    expect(res.body.key).toMatch(/^pk_/);
    expect(res.body.scopes).toEqual([]);
    const bad = await svc.api('POST', '/v1/api-keys', { body: { name: 'site', kind: 'publishable', scopes: ['partners:read'] } });
    expect(bad.status).toBe(400);
  });

  test('invalid key requests are 400 and create nothing', async () => {
    const before = (await svc.sql`select count(*)::int as n from api_keys`)[0]!.n;
    for (const body of [{ name: 'x' }, { name: 'x', scopes: [] }, { name: 'x', scopes: ['root'] }, { name: '', scopes: ['partners:read'] }, { scopes: ['partners:read'] }, { name: 'x', kind: 'admin' }]) {
      const res = await svc.api('POST', '/v1/api-keys', { body });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('invalid_body');
    }
    expect((await svc.sql`select count(*)::int as n from api_keys`)[0]!.n).toBe(before);
  });

  test('the admin key cannot be revoked through the API', async () => {
    const [admin] = await svc.sql`select id from api_keys where kind = 'admin'`;
    const res = await svc.api('DELETE', `/v1/api-keys/${admin!.id}`);
    expect(res.status).toBe(404);
    expect((await svc.api('GET', '/partners')).status).toBe(200);
  });

  test('partner keys cannot be made for revoked partners', async () => {
    const p = await svc.api('POST', '/partners', { body: { email: 'r@example.com', name: 'R', sendInvite: false } });
    await svc.api('POST', `/partners/${p.body.id}/revoke`);
    const res = await svc.api('POST', `/v1/partners/${p.body.id}/api-keys`, { body: { name: 'k' } });
    expect(res.status).toBe(409);
  });
});

describe('self-signup', () => {
  test('closed by default', async () => {
    const res = await svc.api('POST', '/auth/signup', { key: null, body: { email: 'self@example.com', name: 'Self' } });
    expect(res.status).toBe(403);
    expect(await svc.sql`select 1 from partners where email = 'self@example.com'`).toHaveLength(0);
  });

  test('when open, creates a pending partner and mails the activation link', async () => {
    const open = await (await import('../support/service')).startService({ PARTNER_SIGNUP: 'open' });
    try {
      const res = await open.api('POST', '/auth/signup', { key: null, body: { email: 'Self@Example.com', name: 'Self' } });
      expect(res.status).toBe(202);
      const [row] = await open.sql`select id, activated_at from partners where email = 'self@example.com'`;
      expect(row!.activated_at).toBeNull();
      const link = await open.mail.magicLink('self@example.com');
      const follow = await fetch(link, { redirect: 'manual' });
      expect(follow.headers.get('location')).toBe('/portal');
      const again = await open.api('POST', '/auth/signup', { key: null, body: { email: 'self@example.com', name: 'Self' } });
      expect(again.status).toBe(202);
      expect((await open.sql`select count(*)::int as n from partners where email = 'self@example.com'`)[0]!.n).toBe(1);
    } finally {
      await open.stop();
    }
  });
});
