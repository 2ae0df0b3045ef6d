// Partner isolation (strictly 403), malformed Authorization headers, and keys at rest. Every route
// against every kind of caller is test/auth/route-matrix.test.ts.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
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
