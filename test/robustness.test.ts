// No input, however malformed, may produce a 500: every route of the OpenAPI document, in both its
// /v1 and unprefixed forms, gets garbage path parameters, query values and bodies.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startService, type TestService } from './support/service';

let svc: TestService;
let routes: { method: string; path: string; query: string[] }[] = [];

beforeAll(async () => {
  svc = await startService({ STRIPE_WEBHOOK_SECRET: 'whsec_robustness', PADDLE_WEBHOOK_SECRET: 'pdl_ntfset_robustness', LEMONSQUEEZY_WEBHOOK_SECRET: 'ls_robustness' });
  const doc = (await svc.api('GET', '/openapi.json', { key: null })).body;
  for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      const query = (op.parameters ?? []).filter((p: any) => p.in === 'query').map((p: any) => p.name);
      routes.push({ method: method.toUpperCase(), path, query });
    }
  }
}, 60_000);
afterAll(() => svc.stop());

const PARAMS = ['x', 'ptn_00000000000000000000000000', '%00', '%E0%A4%A', `${'a'.repeat(3000)}`, '..%2F..', '%F0%9F%92%A9'];
const VALUES = ['', '%00', '-1', '1e309', 'NaN', '[]', '{}', 'true', '9'.repeat(40), '%E0%A4%A', 'a'.repeat(3000)];
const BODIES: (string | undefined)[] = [
  undefined,
  '',
  '{',
  'null',
  '[]',
  '"text"',
  '{"a":1}',
  JSON.stringify({ email: 'x\u0000@e.com', name: '\ud800', userId: 1, type: {}, amount: 1e308, currency: 'usd', events: 'x', url: 5 }),
  JSON.stringify({ amount: -1, value: Number.MAX_SAFE_INTEGER * 10, currency: 'USD', userId: 'u', type: 't', occurredAt: '0000-00-00' }),
  JSON.stringify({ limit: 'x', rules: [{ eventType: 'x', kind: 'percent', percent: 1e-9 }], percent: 'x', slug: '../../etc' }),
  '{"a":' + '['.repeat(5000) + ']'.repeat(5000) + '}',
];

const fill = (path: string, value: string) => path.replace(/\{[^}]+\}/g, value);

describe('every route answers garbage with a client error, never a 500', () => {
  test('the document lists the routes', () => {
    expect(routes.length).toBeGreaterThan(40);
  });

  test('garbage path parameters and query values', async () => {
    const failures: string[] = [];
    for (const route of routes) {
      for (const param of PARAMS) {
        for (const prefix of ['', '/v1']) {
          const path = route.path.startsWith('/v1/') && prefix === '' ? route.path.slice(3) : route.path;
          const query = route.query.map((q, i) => `${q}=${VALUES[(i + param.length) % VALUES.length]}`).join('&');
          const url = fill(path, param) + (query ? `?${query}` : '');
          const res = await svc.api(route.method, url, { raw: route.method === 'GET' ? undefined : '{}', headers: { 'content-type': 'application/json' } });
          if (res.status >= 500) failures.push(`${route.method} ${url.slice(0, 120)} -> ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
        }
      }
    }
    expect(failures).toEqual([]);
  }, 120_000);

  test('garbage bodies', async () => {
    const failures: string[] = [];
    for (const route of routes) {
      if (route.method === 'GET') continue;
      for (const raw of BODIES) {
        const res = await svc.api(route.method, fill(route.path, 'ptn_00000000000000000000000000'), {
          raw,
          headers: { 'content-type': 'application/json', 'idempotency-key': 'k\u00e9y' },
        });
        if (res.status >= 500) failures.push(`${route.method} ${route.path} ${String(raw).slice(0, 60)} -> ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
      }
    }
    expect(failures).toEqual([]);
  }, 120_000);
});
