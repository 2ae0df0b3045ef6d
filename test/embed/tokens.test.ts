import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { embedSecret, signEmbedToken, verifyEmbedToken } from '../../src/modules/embed/tokens';
import { startService, type TestService } from '../support/service';
import { campaign, link, partner } from '../links/helpers';
import { BROWSER_UA } from '../support/chain';

let svc: TestService;
let cmp: string;
let ptn: string;
beforeAll(async () => {
  svc = await startService({ EMBED_ORIGINS: 'https://app.operator.example, https://*.operator.example' });
  cmp = await campaign(svc);
  ptn = await partner(svc, [cmp]);
}, 60_000);
afterAll(() => svc.stop());

const page = async (path: string) => {
  const res = await fetch(`${svc.url}${path}`);
  return { status: res.status, headers: res.headers, html: await res.text() };
};
const partnerCount = async () => Number((await svc.sql`select count(*)::int as n from partners`)[0]!.n);

describe('POST /v1/embed-tokens', () => {
  test('for a partner: a signed one-hour token bound to them and the page url', async () => {
    const before = Date.now();
    const res = await svc.api('POST', '/v1/embed-tokens', { body: { partnerId: ptn } });
    const after = Date.now();
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ partnerId: ptn, created: false });
    expect(res.body.url).toBe(`${svc.url}/embed?token=${res.body.token}`);
    const expires = Date.parse(res.body.expiresAt);
    expect(expires - before).toBeGreaterThan(59 * 60 * 1000);
    // an hour from when it was asked for, however long the request took on a loaded machine
    expect(expires).toBeLessThanOrEqual(after + 60 * 60 * 1000);
    const check = verifyEmbedToken(await embedSecret(svc.sql), res.body.token);
    expect(check).toMatchObject({ ok: true, partnerId: ptn });
    // the partner had no link: one was made to show
    expect([...(await svc.sql`select campaign_id from links where partner_id = ${ptn}`)]).toEqual([{ campaign_id: cmp }]);
  });

  test('for a customer by email: an active partner of the campaign on first use, no email; the same one after', async () => {
    const mails = svc.mail.messages.length;
    const first = await svc.api('POST', '/v1/embed-tokens', { body: { email: 'Carla@Customer.example', name: 'Carla', campaignId: cmp } });
    expect(first.status).toBe(201);
    expect(first.body.created).toBe(true);
    const [row] = await svc.sql`select p.email, p.name, partner_status(p) as status, (select array_agg(campaign_id) from partner_campaigns where partner_id = p.id) as campaigns from partners p where id = ${first.body.partnerId}`;
    expect(row).toEqual({ email: 'carla@customer.example', name: 'Carla', status: 'active', campaigns: [cmp] });
    expect(await svc.sql`select 1 from links where partner_id = ${first.body.partnerId} and campaign_id = ${cmp}`).toHaveLength(1);
    const again = await svc.api('POST', '/v1/embed-tokens', { body: { email: 'carla@customer.example', campaignId: cmp } });
    expect(again.body).toMatchObject({ partnerId: first.body.partnerId, created: false });
    expect(await svc.sql`select 1 from links where partner_id = ${first.body.partnerId}`).toHaveLength(1);
    await svc.deliverEmails();
    expect(svc.mail.messages.length).toBe(mails);
  });

  test('bad input is a 4xx and creates nothing', async () => {
    const before = await partnerCount();
    const cases: [unknown, number][] = [
      [{}, 400],
      [{ email: 'not-an-email', campaignId: cmp }, 400],
      [{ email: 'x@customer.example' }, 400],
      [{ email: 'y@customer.example', campaignId: 'cmp_00000000000000000000000000' }, 404],
      [{ partnerId: 'ptn_00000000000000000000000000' }, 404],
    ];
    for (const [body, status] of cases) expect({ body, status: (await svc.api('POST', '/v1/embed-tokens', { body })).status }).toEqual({ body, status });
    const revoked = await partner(svc, [cmp]);
    await svc.api('POST', `/v1/partners/${revoked}/revoke`, { body: {} });
    const res = await svc.api('POST', '/v1/embed-tokens', { body: { partnerId: revoked } });
    expect(res.status).toBe(409);
    expect(await partnerCount()).toBe(before + 1);
  });

  test('partner keys are refused (even for themselves); scoped keys need partners:write', async () => {
    const before = await partnerCount();
    const own = await svc.api('POST', '/v1/embed-tokens', { key: await svc.partnerKey(ptn), body: { partnerId: ptn } });
    expect(own.status).toBe(403);
    const customer = await svc.api('POST', '/v1/embed-tokens', { key: await svc.partnerKey(ptn), body: { email: 'sneaky@customer.example', campaignId: cmp } });
    expect(customer.status).toBe(403);
    expect((await svc.api('POST', '/v1/embed-tokens', { key: await svc.scopedKey(['partners:read']), body: { partnerId: ptn } })).status).toBe(403);
    expect((await svc.api('POST', '/v1/embed-tokens', { key: await svc.scopedKey(['partners:write']), body: { partnerId: ptn } })).status).toBe(201);
    expect(await partnerCount()).toBe(before);
  });
});

describe('GET /embed', () => {
  test("the partner's link, QR, clicks, conversions, earnings and payout method; framed only by EMBED_ORIGINS", async () => {
    const shown = await partner(svc, [cmp]);
    const l = await link(svc, shown, cmp, 'embed-shown');
    await fetch(`${svc.url}/r/embed-shown`, { redirect: 'manual', headers: { 'user-agent': BROWSER_UA } });
    expect((await svc.api('PUT', `/v1/partners/${shown}/payout-method`, { body: { type: 'paypal', email: 'pay@partner.example' } })).status).toBe(200);
    await svc.api('PATCH', '/v1/settings', { body: { programName: 'Acme Rewards', brandColor: '#0f766e' } });
    const { body } = await svc.api('POST', '/v1/embed-tokens', { body: { partnerId: shown } });
    await svc.ctx.links.clicks.flush();
    const res = await page(`/embed?token=${body.token}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toContain('frame-ancestors https://app.operator.example https://*.operator.example;');
    expect(res.html).toContain(`value="${l.url}"`);
    expect(res.html).toContain('data-copy="#embed-url"');
    expect(res.html).toContain('src="data:image/svg+xml;base64,');
    expect(res.html).toContain('Acme Rewards');
    expect(res.html).toContain('/brand.css?c=0f766e');
    // the payout method as the portal's Payouts page says it, its hold after the change included
    expect(res.html).toContain('Your next payout goes by PayPal to pay@partner.example. Payouts wait until');
    expect(res.html).toMatch(/id="embed-clicks">[\s\S]*?class="value">1</);
    // no admin data, no navigation into the portal or admin
    expect(res.html).not.toContain('/admin');
    expect(res.html).not.toContain('Sign out');
    expect(res.html).not.toContain(svc.adminKey);
  });

  test('missing, forged, expired and revoked are refused with a clear page', async () => {
    const secret = await embedSecret(svc.sql);
    const missing = await page('/embed');
    expect(missing.status).toBe(400);
    expect(missing.html).toContain('No referral page here');
    const other = await partner(svc, [cmp]);
    const good = signEmbedToken(secret, ptn, new Date(Date.now() + 60_000));
    // the payload swapped for another partner's: the signature no longer matches
    const forged = `${Buffer.from(JSON.stringify({ p: other, e: Math.floor(Date.now() / 1000) + 3600 })).toString('base64url')}.${good.split('.')[1]}`;
    const wrongKey = signEmbedToken('x'.repeat(43), ptn, new Date(Date.now() + 60_000));
    for (const token of [forged, wrongKey, 'garbage', `${good}x`]) {
      const res = await page(`/embed?token=${encodeURIComponent(token)}`);
      expect({ token, status: res.status }).toEqual({ token, status: 401 });
      expect(res.html).toContain('This link is not valid');
      expect(res.html).not.toContain('embed-url');
    }
    const expired = await page(`/embed?token=${signEmbedToken(secret, ptn, new Date(Date.now() - 1000))}`);
    expect(expired.status).toBe(401);
    expect(expired.html).toContain('This page has expired');
    const token = (await svc.api('POST', '/v1/embed-tokens', { body: { partnerId: other } })).body.token;
    expect((await page(`/embed?token=${token}`)).status).toBe(200);
    await svc.api('POST', `/v1/partners/${other}/revoke`, { body: {} });
    const revoked = await page(`/embed?token=${token}`);
    expect(revoked.status).toBe(403);
    expect(revoked.html).toContain('Referral page unavailable');
  });
});

test('without EMBED_ORIGINS no site may frame the page', async () => {
  const plain = await startService();
  try {
    const p = await partner(plain, [await campaign(plain)]);
    const { body } = await plain.api('POST', '/v1/embed-tokens', { body: { partnerId: p } });
    const res = await fetch(body.url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  } finally {
    await plain.stop();
  }
});
