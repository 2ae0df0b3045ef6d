// A write made with a session cookie but neither Origin nor Sec-Fetch-Site is refused (CSRF), and
// sign-in requests have a per-network limit beside the per-email one (429 with Retry-After).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { SIGN_IN_NETWORK_LIMIT } from '../../src/modules/auth/limit';
import { insertCampaign, insertCommission, insertPartner } from '../support/lifecycle-fixtures';
import { startService, type TestService } from '../support/service';

const ADMIN_EMAIL = 'owner@example.com';
let svc: TestService;
let adminCookie: string;

beforeAll(async () => {
  svc = await startService({ ADMIN_EMAILS: ADMIN_EMAIL, TRUST_PROXY: '1' });
  const before = svc.mail.messages.length;
  const asked = await svc.api('POST', '/auth/magic-link', { key: null, body: { email: ADMIN_EMAIL }, headers: { 'x-forwarded-for': '192.0.2.1' } });
  expect(asked.status).toBe(202);
  const link = await svc.mail.magicLink(ADMIN_EMAIL, (m) => svc.mail.messages.indexOf(m) >= before);
  const res = await fetch(link, { redirect: 'manual' });
  adminCookie = res.headers.get('set-cookie')!.split(';')[0]!;
}, 60_000);
afterAll(() => svc.stop());

describe('CSRF: a cookie write without Origin or Sec-Fetch-Site', () => {
  test('POST /v1/payouts/run with an admin cookie and an empty text/plain body: 403, no payout', async () => {
    const campaignId = await insertCampaign(svc.sql, { currency: 'USD' });
    const partnerId = await insertPartner(svc.sql);
    await insertCommission(svc.sql, { partnerId, campaignId, amount: 1500, status: 'approved' });
    const res = await fetch(`${svc.url}/v1/payouts/run`, { method: 'POST', headers: { cookie: adminCookie, 'content-type': 'text/plain' }, body: '' });
    expect(res.status).toBe(403);
    const body = await res.json();
    expect(body.code).toBe('forbidden');
    expect(body.message).toContain('neither Origin nor Sec-Fetch-Site');
    expect((await svc.sql`select count(*)::int as n from payouts where partner_id = ${partnerId}`)[0]!.n).toBe(0);

    // the same call from our own pages (Origin) runs
    const ok = await fetch(`${svc.url}/v1/payouts/run`, { method: 'POST', headers: { cookie: adminCookie, origin: svc.url } });
    expect(ok.status).toBe(200);
    expect((await svc.sql`select count(*)::int as n from payouts where partner_id = ${partnerId}`)[0]!.n).toBe(1);
  });

  test('an admin page form post without either header: a 403 page, nothing changes', async () => {
    const id = await insertPartner(svc.sql);
    const res = await fetch(`${svc.url}/admin/partners/${id}/revoke`, {
      method: 'POST',
      headers: { cookie: adminCookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'reason=x',
      redirect: 'manual',
    });
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(await res.text()).toContain('neither Origin nor Sec-Fetch-Site');
    const [row] = await svc.sql`select revoked_at from partners where id = ${id}`;
    expect(row!.revoked_at).toBeNull();
  });

  test('an API key needs neither header', async () => {
    expect((await svc.api('POST', '/v1/payouts/run')).status).toBe(200);
  });
});

describe('sign-in requests per network', () => {
  const ask = (ip: string, n: number, path = '/auth/magic-link') =>
    svc.api('POST', path, { key: null, body: { email: `visitor${n}@example.com` }, headers: { 'x-forwarded-for': ip } });

  test(`past ${SIGN_IN_NETWORK_LIMIT.requests} requests from one address: 429 with Retry-After, other addresses unaffected`, async () => {
    for (let n = 0; n < SIGN_IN_NETWORK_LIMIT.requests; n++) expect((await ask('203.0.113.5', n)).status).toBe(202);
    const refused = await ask('203.0.113.5', 999);
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('rate_limited');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // another spelling of the same address is the same address; an IPv6 /64 is one network
    expect((await ask('::ffff:203.0.113.5', 1000)).status).toBe(429);
    // the sign-in page counts against the same limit
    const page = await fetch(`${svc.url}/portal/sign-in`, { method: 'POST', headers: { 'x-forwarded-for': '203.0.113.5', origin: svc.url, 'content-type': 'application/x-www-form-urlencoded' }, body: 'email=a%40example.com' });
    expect(page.status).toBe(429);
    expect(page.headers.get('retry-after')).not.toBeNull();
    expect((await ask('203.0.113.6', 1001)).status).toBe(202);
  });
});
