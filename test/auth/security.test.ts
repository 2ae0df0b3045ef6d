// Every route so far against every kind of caller.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Scope } from '../../src/modules/auth/scopes';
import { startService, type TestService } from '../support/service';

let svc: TestService;
let me: string; // the partner whose key is used
let other: string;
let keys: Record<string, string | null>;

beforeAll(async () => {
  svc = await startService();
  me = (await svc.api('POST', '/partners', { body: { email: 'me@example.com', name: 'Me', sendInvite: false } })).body.id;
  other = (await svc.api('POST', '/partners', { body: { email: 'other@example.com', name: 'Other', sendInvite: false } })).body.id;
  keys = {
    none: null,
    wrong: 'sk_admin_not-a-real-key-0000000000000000000000000',
    publishable: await svc.publishableKey(),
    partner: await svc.partnerKey(me),
    admin: svc.adminKey,
  };
});
afterAll(() => svc.stop());

type Caller = 'none' | 'wrong' | 'publishable' | 'partner' | 'scopedWithout' | 'scopedWith' | 'admin';

/** For each route: the scope it needs (or 'admin'), and whether the partner itself may call it. */
type Route = { method: string; path: () => string; scope: Scope | 'admin'; self?: boolean; body?: () => unknown };

const routes: Route[] = [
  { method: 'POST', path: () => '/partners', scope: 'partners:write', body: () => ({ email: `n${crypto.randomUUID()}@example.com`, name: 'N', sendInvite: false }) },
  { method: 'POST', path: () => '/v1/partners', scope: 'partners:write', body: () => ({ email: `n${crypto.randomUUID()}@example.com`, name: 'N', sendInvite: false }) },
  { method: 'GET', path: () => '/partners', scope: 'partners:read' },
  { method: 'GET', path: () => '/v1/partners', scope: 'partners:read' },
  { method: 'GET', path: () => `/partners/${me}`, scope: 'partners:read', self: true },
  { method: 'GET', path: () => `/v1/partners/${me}/commission-snapshot`, scope: 'partners:read', self: true },
  { method: 'PATCH', path: () => `/partners/${other}`, scope: 'partners:write', body: () => ({ name: 'Renamed' }) },
  { method: 'POST', path: () => `/partners/${other}/revoke`, scope: 'partners:write', body: () => ({}) },
  { method: 'POST', path: () => `/partners/${other}/reinstate`, scope: 'partners:write' },
  { method: 'POST', path: () => `/partners/${other}/invite`, scope: 'admin' },
  { method: 'DELETE', path: () => `/v1/partners/${other}`, scope: 'admin' },
  { method: 'POST', path: () => `/v1/partners/${other}/api-keys`, scope: 'admin', body: () => ({ name: 'k' }) },
  { method: 'POST', path: () => '/v1/api-keys', scope: 'admin', body: () => ({ name: 'k', scopes: ['partners:read'] }) },
  { method: 'GET', path: () => '/v1/api-keys', scope: 'admin' },
  { method: 'DELETE', path: () => '/v1/api-keys/key_00000000000000000000000000', scope: 'admin' },
];

async function keyFor(caller: Caller, route: Route): Promise<string | null> {
  if (caller === 'scopedWith') return route.scope === 'admin' ? null : svc.scopedKey([route.scope]);
  if (caller === 'scopedWithout') {
    const all: Scope[] = ['partners:read', 'partners:write', 'events:write', 'webhooks:write'];
    return svc.scopedKey(all.filter((s) => s !== route.scope));
  }
  return keys[caller]!;
}

function expected(caller: Caller, route: Route): number[] {
  switch (caller) {
    case 'none':
    case 'wrong':
      return [401];
    case 'publishable':
    case 'scopedWithout':
      return [403];
    case 'partner':
      return route.self ? [200] : [403];
    case 'scopedWith':
    case 'admin':
      return [200, 201, 404, 409]; // allowed through: the answer is the route's own
  }
}

const callers: Caller[] = ['none', 'wrong', 'publishable', 'scopedWithout', 'partner', 'scopedWith', 'admin'];

describe('every route against every caller', () => {
  for (const route of routes) {
    for (const caller of callers) {
      test(`${route.method} ${route.path.toString().replace(/.*=> /, '')} as ${caller}`, async () => {
        if (caller === 'scopedWith' && route.scope === 'admin') {
          // no scope grants admin-only routes: a key holding every scope is still refused
          const all = await svc.scopedKey(['partners:read', 'partners:write', 'events:read', 'events:write', 'webhooks:read', 'webhooks:write']);
          const res = await svc.api(route.method, route.path(), { key: all, body: route.body?.() });
          expect(res.status).toBe(403);
          expect(res.body.code).toBe('forbidden');
          return;
        }
        const res = await svc.api(route.method, route.path(), { key: await keyFor(caller, route), body: route.body?.() });
        expect(expected(caller, route)).toContain(res.status);
        if (res.status === 401) expect(res.body.code).toBe('unauthorized');
        if (res.status === 403) expect(res.body.code).toBe('forbidden');
      });
    }
  }
});

describe('partner isolation', () => {
  test('a partner key cannot read another partner or its snapshot', async () => {
    for (const path of [`/partners/${other}`, `/v1/partners/${other}`, `/partners/${other}/commission-snapshot`]) {
      const res = await svc.api('GET', path, { key: keys.partner });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('forbidden');
    }
  });

  test('a malformed Authorization header is 401', async () => {
    for (const header of ['Basic abc', 'Bearer', 'Bearer a b', `Bearer ${'x'.repeat(1000)}`, 'bearer']) {
      const res = await svc.api('GET', '/partners', { key: null, headers: { authorization: header } });
      expect(res.status).toBe(401);
    }
  });

  test('keys are stored only as SHA-256 digests', async () => {
    const rows = await svc.sql`select key_hash, key_hint from api_keys`;
    for (const row of rows) {
      expect(row.key_hash).toMatch(/^[0-9a-f]{64}$/);
      for (const key of Object.values(keys)) if (key) expect(row.key_hint).not.toBe(key);
    }
    expect(rows.some((r) => r.key_hash === new Bun.CryptoHasher('sha256').update(svc.adminKey).digest('hex'))).toBe(true);
  });
});
