// The per-network sign-in limit and this machine's own addresses, as README "Sign-in" and docs/web.md
// write the rule down: a request whose address (the socket's, or with TRUST_PROXY the forwarded one)
// is loopback (127.0.0.0/8, ::1, in any spelling) is not counted; every other address is, under its
// network; without TRUST_PROXY an X-Forwarded-For header is not read at all. The per-email limit
// still holds for loopback requests.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { SIGN_IN_LIMIT, SIGN_IN_NETWORK_LIMIT } from '../../src/modules/auth/limit';
import { startService, type TestService } from '../support/service';

let direct: TestService;
let proxied: TestService;
let n = 0;

beforeAll(async () => {
  [direct, proxied] = await Promise.all([startService(), startService({ TRUST_PROXY: '1' })]);
}, 60_000);
afterAll(() => Promise.all([direct?.stop(), proxied?.stop()]));

const ask = (svc: TestService, headers: Record<string, string> = {}, email = `visitor${++n}@example.com`) =>
  svc.api('POST', '/auth/magic-link', { key: null, body: { email }, headers });
const counted = async (svc: TestService) => (await svc.sql`select count(*)::int as n from sign_in_networks`)[0]!.n as number;

describe('without TRUST_PROXY: the socket address', () => {
  test('requests from 127.0.0.1 are never counted per network, however many; X-Forwarded-For is not read', async () => {
    for (let i = 0; i < SIGN_IN_NETWORK_LIMIT.requests + 5; i++) expect((await ask(direct)).status).toBe(202);
    // a forwarded address is ignored without TRUST_PROXY: still this machine, still not counted
    expect((await ask(direct, { 'x-forwarded-for': '203.0.113.50' })).status).toBe(202);
    expect(await counted(direct)).toBe(0);
  });

  test('the per-email limit still holds for them', async () => {
    const answers = [];
    for (let i = 0; i <= SIGN_IN_LIMIT.requests; i++) answers.push((await ask(direct, {}, 'same@example.com')).status);
    expect(answers).toEqual([...Array<number>(SIGN_IN_LIMIT.requests).fill(202), 429]);
  });
});

describe('with TRUST_PROXY=1: the forwarded address', () => {
  test('a loopback address in any spelling is not counted; no header falls back to the socket (loopback)', async () => {
    for (const address of ['127.0.0.1', '127.8.9.10', '::1', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1']) {
      expect({ address, status: (await ask(proxied, { 'x-forwarded-for': address })).status }).toEqual({ address, status: 202 });
    }
    expect((await ask(proxied)).status).toBe(202);
    expect(await counted(proxied)).toBe(0);
  });

  test('any other address is counted, under its network, up to the limit', async () => {
    expect((await ask(proxied, { 'x-forwarded-for': '198.51.100.7' })).status).toBe(202);
    expect(await counted(proxied)).toBe(1);
    // the rightmost entry is the one the proxy saw: what the client put before it does not matter
    expect((await ask(proxied, { 'x-forwarded-for': '127.0.0.1, 198.51.100.7' })).status).toBe(202);
    expect(await counted(proxied)).toBe(2);
    for (let i = 2; i < SIGN_IN_NETWORK_LIMIT.requests; i++) expect((await ask(proxied, { 'x-forwarded-for': '198.51.100.7' })).status).toBe(202);
    expect((await ask(proxied, { 'x-forwarded-for': '198.51.100.7' })).status).toBe(429);
    // the same routes spelled as the router also takes them are the same routes: still refused
    for (const path of ['/auth/magic-link/', '//auth/magic-link', '/auth/signup/']) {
      const res = await proxied.api('POST', path, { key: null, body: { email: `slash${++n}@example.com` }, headers: { 'x-forwarded-for': '198.51.100.7' } });
      expect({ path, status: res.status }).toEqual({ path, status: 429 });
    }
  });
});
