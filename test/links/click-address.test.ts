// POST /v1/clicks: only a secret key may state the visitor's address, and addresses are parsed and
// written in one form, so neither a browser's key nor a second spelling defeats the click-flood rule.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { canonicalIp } from '../../src/lib/ip';
import { BROWSER_UA, campaign, clickStored, partner } from '../support/chain';
import { startService, type TestService } from '../support/service';

let svc: TestService;
let slug: string;

beforeAll(async () => {
  svc = await startService({ TRUST_PROXY: '1' });
  const campaignId = await campaign(svc, {});
  const partnerId = await partner(svc, 'clicks@example.com', [campaignId]);
  slug = (await svc.api('POST', '/v1/links', { body: { campaignId, partnerId } })).body.slug;
}, 60_000);
afterAll(() => svc.stop());

const ua = { 'user-agent': BROWSER_UA };

async function ipHashOf(clickId: string): Promise<string> {
  await clickStored(svc, clickId);
  const [row] = await svc.sql`select ip_hash from clicks where id = ${clickId}`;
  return row!.ip_hash;
}

describe('canonicalIp', () => {
  const table: [string, string | null][] = [
    ['1.2.3.4', '1.2.3.4'],
    [' 1.2.3.4 ', '1.2.3.4'],
    ['::ffff:1.2.3.4', '1.2.3.4'],
    ['::FFFF:0102:0304', '1.2.3.4'],
    ['2001:DB8:0:0:0:0:0:1', '2001:db8::1'],
    ['2001:db8::0:1', '2001:db8::1'],
    ['::1', '::1'],
    ['01.2.3.4', null],
    ['1.2.3.4.5', null],
    ['fe80::1%eth0', null],
    ['junk', null],
    ['', null],
    ['1.2.3.4' + ' '.repeat(50) + 'x', null],
  ];
  for (const [input, expected] of table) test(JSON.stringify(input), () => expect(canonicalIp(input)).toBe(expected));
});

describe('POST /v1/clicks', () => {
  test('a publishable key may not state ip: 400, no click', async () => {
    const key = await svc.publishableKey();
    const before = (await svc.sql`select count(*)::int as n from clicks`)[0]!.n;
    const res = await svc.api('POST', '/v1/clicks', { key, body: { slug, ip: '203.0.113.9' }, headers: ua });
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([{ field: 'ip', message: "only a secret key may set it; a browser's address is its connection's" }]);
    await svc.ctx.links.clicks.flush();
    expect((await svc.sql`select count(*)::int as n from clicks`)[0]!.n).toBe(before);
  });

  test("a publishable key's click takes the trusted proxy's address", async () => {
    const key = await svc.publishableKey();
    const viaBrowser = await svc.api('POST', '/v1/clicks', { key, body: { slug }, headers: { ...ua, 'x-forwarded-for': '::ffff:198.51.100.7' } });
    expect(viaBrowser.status).toBe(201);
    const viaServer = await svc.api('POST', '/v1/clicks', { body: { slug, ip: '198.51.100.7' }, headers: ua });
    expect(viaServer.status).toBe(201);
    expect(await ipHashOf(viaBrowser.body.clickId)).toBe(await ipHashOf(viaServer.body.clickId));
  });

  test('a secret key: two spellings of one address are one address; junk is a 400', async () => {
    const a = await svc.api('POST', '/v1/clicks', { body: { slug, ip: '2001:DB8:0:0:0:0:0:1' }, headers: ua });
    const b = await svc.api('POST', '/v1/clicks', { body: { slug, ip: '2001:db8::1' }, headers: ua });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(await ipHashOf(a.body.clickId)).toBe(await ipHashOf(b.body.clickId));
    const junk = await svc.api('POST', '/v1/clicks', { body: { slug, ip: 'x'.repeat(100) }, headers: ua });
    expect(junk.status).toBe(400);
    expect(junk.body.details).toEqual([{ field: 'ip', message: 'must be an IPv4 or IPv6 address' }]);
  });
});

describe('/r/<unknown>', () => {
  test('the page carries nosniff and a CSP that allows its own style and nothing else', async () => {
    const res = await fetch(`${svc.url}/r/no-such-link`, { headers: ua });
    expect(res.status).toBe(404);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    const style = /<style>(.*)<\/style>/s.exec(await res.text())![1]!;
    expect(csp).toContain(`style-src 'sha256-${new Bun.CryptoHasher('sha256').update(style).digest('base64')}'`);
  });

  test('its JSON answers carry nosniff', async () => {
    for (const [method, path] of [['POST', '/r/no-such-link'], ['GET', '/r/'], ['GET', '/v1/no-such-route']] as const) {
      const res = await fetch(svc.url + path, { method });
      expect(res.headers.get('content-type') ?? '').toContain('json');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });
});
