// The admin pages against partners, hostile names and hostile sites: a partner's session opens no
// admin page, markup in names renders as text, cross-site and token-less posts change nothing.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import { BROWSER_UA, campaign, clickStored } from '../support/chain';
import { LOCAL_RECEIVERS } from '../support/webhooks';
import { startService, type TestService } from '../support/service';
import { invitePartner, launchBrowser, newPage, postForm, screenshot, startCrossSitePoster } from './browser';

const ADMIN = 'boss@example.com';
const XSS_NAME = '<script>alert(1)</script>';
const XSS_OTHER = '<img src=x onerror=alert(2)>';

// a browser round trip per step; a loaded CI machine is slow, not broken
setDefaultTimeout(30_000);

let svc: TestService;
let browser: Browser;
let attacker: ReturnType<typeof Bun.serve>;
let admin: Page;
let partner: Page;
let dialogs = 0;
let malloryId: string;
let endpointId: string;

/** Every admin page a partner must not open (GET). */
const ADMIN_PAGES = () => [
  '/admin',
  '/admin/partners',
  `/admin/partners/${malloryId}`,
  '/admin/commissions',
  '/admin/payouts',
  '/admin/payouts/run',
  '/admin/events',
  '/admin/campaigns',
  '/admin/settings',
  '/admin/webhooks',
  `/admin/webhooks/${endpointId}`,
  '/admin/api-keys',
];

beforeAll(async () => {
  [svc, browser] = await Promise.all([startService({ ADMIN_EMAILS: ADMIN, ...LOCAL_RECEIVERS }), launchBrowser()]);
  const campaignId = await campaign(svc, { name: XSS_OTHER, rules: [{ eventType: XSS_OTHER, kind: 'flat', amount: '5' }] });
  malloryId = await invitePartner(svc, { email: 'mallory@example.com', name: XSS_NAME, campaignIds: [campaignId] });

  // mallory has a link, a click, a commission for an event with a hostile name, and a payout
  const link = await svc.api('POST', '/v1/links', { body: { partnerId: malloryId, campaignId, slug: 'mallory-link' } });
  expect(link.status).toBe(201);
  const res = await fetch(`${svc.url}/r/mallory-link`, { redirect: 'manual', headers: { 'user-agent': BROWSER_UA } });
  const clickId = new URL(res.headers.get('location')!).searchParams.get('pp_click')!;
  await clickStored(svc, clickId);
  await svc.api('POST', '/v1/identify', { key: await svc.publishableKey(), body: { userId: 'u1', clickIds: [clickId] } });
  for (let i = 0; i < 2; i++) expect((await svc.api('POST', '/v1/events', { body: { userId: 'u1', type: XSS_OTHER } })).status).toBe(201);
  const [first, second] = await svc.sql`select id from commissions where partner_id = ${malloryId} order by id`;
  expect((await svc.api('POST', `/v1/commissions/${first!.id}/reverse`, { body: { reason: XSS_NAME } })).status).toBe(200);
  expect((await svc.api('POST', `/v1/commissions/${second!.id}/approve`)).status).toBe(200);
  expect((await svc.api('POST', '/v1/payouts/run')).body.payouts).toHaveLength(1);
  endpointId = (await svc.api('POST', '/v1/webhooks', { body: { url: 'http://127.0.0.1:9/hook', events: ['*'], label: XSS_NAME } })).body.endpoint.id;
  expect((await svc.api('POST', '/v1/api-keys', { body: { name: XSS_NAME, scopes: ['partners:read'] } })).status).toBe(201);

  attacker = startCrossSitePoster();

  admin = (await newPage(browser)).page;
  partner = (await newPage(browser)).page;
  for (const p of [admin, partner]) p.on('dialog', (d) => void (dialogs++, d.dismiss()));
  await partner.goto(await svc.mail.magicLink('mallory@example.com'));
  expect(new URL(partner.url()).pathname).toBe('/portal');
  await svc.api('POST', '/auth/magic-link', { key: null, body: { email: ADMIN } });
  await admin.goto(await svc.mail.magicLink(ADMIN));
  expect(new URL(admin.url()).pathname).toBe('/admin');
}, 60_000);
afterAll(async () => {
  attacker?.stop(true);
  await browser?.close();
  await svc?.stop();
});

describe('access', () => {
  test('a partner session opens no admin page', async () => {
    for (const path of ADMIN_PAGES()) {
      const res = await partner.goto(`${svc.url}${path}`);
      expect(res!.status()).toBe(403);
      expect(await partner.textContent('h1')).toBe('This page is for administrators');
      expect(await partner.locator('.who').count()).toBe(0);
    }
    await screenshot(partner, 'admin-partner-refused');
  });

  test("a partner's post to an admin form, even with its own token, changes nothing", async () => {
    await partner.goto(`${svc.url}/portal`);
    const csrf = await partner.inputValue('input[name=_csrf]');
    const res = await postForm(partner, '/admin/sign-out', { _csrf: csrf });
    expect(res.status).toBe(403);
    // the partner is still signed in
    expect((await partner.goto(`${svc.url}/portal`))!.status()).toBe(200);
  });

  test('an API key is no admin session: the admin pages only read the session cookie', async () => {
    const res = await fetch(`${svc.url}/admin`, { headers: { authorization: `Bearer ${svc.adminKey}` }, redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/admin/sign-in');
  });
});

describe('CSRF', () => {
  test('a form on another site posting to the admin pages is refused and changes nothing', async () => {
    const url = new URL(attacker.url);
    url.searchParams.set('target', `${svc.url}/admin/sign-out`);
    url.searchParams.set('_csrf', 'guessed');
    const refused = admin.waitForResponse((r) => r.url() === `${svc.url}/admin/sign-out` && r.request().method() === 'POST');
    await admin.goto(url.href);
    expect((await refused).status()).toBe(403);
    await admin.waitForSelector('h1');
    expect(await admin.textContent('h1')).toBe('Request refused');
    // still signed in
    expect((await admin.goto(`${svc.url}/admin`))!.status()).toBe(200);
    expect(new URL(admin.url()).pathname).toBe('/admin');
  });

  test('a same-site post without the token is refused', async () => {
    await admin.goto(`${svc.url}/admin`);
    const res = await postForm(admin, '/admin/sign-out', {});
    expect(res.status).toBe(403);
    expect((await admin.goto(`${svc.url}/admin`))!.status()).toBe(200);
  });
});

describe('XSS', () => {
  test('markup in names, reasons, event types and labels renders as text on every admin page', async () => {
    const [camp] = await svc.sql`select id from campaigns`;
    const [payout] = await svc.sql`select id from payouts`;
    const commissions = await svc.sql`select id, event_id from commissions where partner_id = ${malloryId} order by id`;
    const pages = [
      '/admin',
      '/admin/partners',
      `/admin/partners/${malloryId}`,
      `/admin/partners?q=${encodeURIComponent('<script>')}`,
      '/admin/commissions',
      '/admin/payouts',
      '/admin/payouts/run',
      `/admin/payouts/${payout!.id}`,
      `/admin/payouts/${payout!.id}/mark-failed`,
      `/admin/commissions/bulk?action=reverse&ids=${commissions[1]!.id}`,
      '/admin/events',
      `/admin/events/${commissions[0]!.event_id}`,
      '/admin/campaigns',
      `/admin/campaigns/${camp!.id}`,
      `/admin/campaigns/${camp!.id}/edit`,
      '/admin/webhooks',
      `/admin/webhooks/${endpointId}`,
      '/admin/api-keys',
    ];
    for (const path of pages) {
      const res = await admin.goto(`${svc.url}${path}`);
      expect(res!.status()).toBe(200);
      // inside a quoted attribute value < and > are plain text (only " ends it, and it is escaped)
      const raw = (await res!.text()).replace(/ value="[^"]*"/g, '');
      expect(raw).not.toContain(XSS_NAME);
      expect(raw).not.toContain('<img src=x');
      expect(await admin.locator('img').count()).toBe(0);
      await screenshot(admin, `admin-xss${path.replace(/[^a-z0-9]+/gi, '-')}`);
    }
    // and the text is there, as text
    await admin.goto(`${svc.url}/admin/partners/${malloryId}`);
    expect(await admin.textContent('h1')).toBe(XSS_NAME);
    expect(await admin.textContent('#commissions')).toContain(XSS_NAME);
    expect(await admin.locator('#commissions .badge.red').getAttribute('title')).toBe(`Reversed, not paid: ${XSS_NAME}`);
    expect(await admin.textContent('#commissions')).toContain(XSS_OTHER);
    expect(await admin.textContent('#payouts')).toContain('5.00 USD');
    await admin.goto(`${svc.url}/admin/payouts`);
    expect(await admin.textContent('#payouts')).toContain(XSS_NAME);
    await admin.goto(`${svc.url}/admin/campaigns/${camp!.id}`);
    expect(await admin.textContent('h1')).toBe(XSS_OTHER);
    expect(await admin.textContent('#terms li')).toContain(XSS_OTHER);
    await admin.goto(`${svc.url}/admin/campaigns/${camp!.id}/edit`);
    // a custom event type seen before is one of the picker's choices, shown as text
    expect(await admin.inputValue('select[name=r0_eventPick]')).toBe(XSS_OTHER);
    expect(await admin.locator('select[name=r0_eventPick] option:checked').textContent()).toBe(XSS_OTHER);
    await admin.goto(`${svc.url}/admin/webhooks/${endpointId}`);
    expect(await admin.textContent('h1')).toBe(XSS_NAME);
    await admin.goto(`${svc.url}/admin/api-keys`);
    expect(await admin.textContent('#keys')).toContain(XSS_NAME);
    await admin.goto(`${svc.url}/admin/partners?q=${encodeURIComponent('<script>')}`);
    expect(await admin.inputValue('input[name=q]')).toBe('<script>');
    expect(await admin.textContent('#partners')).toContain(XSS_NAME);
    expect(dialogs).toBe(0);
    // seventeen pages and more, each loaded and photographed: more than one browser step's 30 s on a loaded machine
  }, 90_000);
});
