// The admin pages against partners, hostile names and hostile sites: a partner's session opens no
// admin page, markup in names renders as text, cross-site and token-less posts change nothing.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import { campaign } from '../support/chain';
import { startService, type TestService } from '../support/service';
import { invitePartner, launchBrowser, newPage, postForm, screenshot } from './browser';

const ADMIN = 'boss@example.com';
const XSS_NAME = '<script>alert(1)</script>';

// a browser round trip per step; a loaded CI machine is slow, not broken
setDefaultTimeout(30_000);

let svc: TestService;
let browser: Browser;
let attacker: ReturnType<typeof Bun.serve>;
let admin: Page;
let partner: Page;
let dialogs = 0;
let malloryId: string;

/** Every admin page a partner must not open (GET). */
const ADMIN_PAGES = () => ['/admin', '/admin/partners', `/admin/partners/${malloryId}`, '/admin/commissions', '/admin/payouts', '/admin/campaigns', '/admin/settings', '/admin/webhooks', '/admin/api-keys'];

beforeAll(async () => {
  [svc, browser] = await Promise.all([startService({ ADMIN_EMAILS: ADMIN }), launchBrowser()]);
  const campaignId = await campaign(svc, { name: 'Pro plan' });
  malloryId = await invitePartner(svc, { email: 'mallory@example.com', name: XSS_NAME, campaignIds: [campaignId] });

  attacker = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch(req) {
      const target = new URL(req.url).searchParams.get('target')!;
      const fields = [...new URL(req.url).searchParams].filter(([k]) => k !== 'target');
      const inputs = fields.map(([k, v]) => `<input type="hidden" name="${k}" value="${v}">`).join('');
      return new Response(`<!doctype html><form id="f" method="post" action="${target}">${inputs}</form><script>document.getElementById('f').submit()</script>`, {
        headers: { 'content-type': 'text/html' },
      });
    },
  });

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
  test('a partner named <script> renders as text on admin pages', async () => {
    for (const path of ['/admin/partners', `/admin/partners/${malloryId}`, `/admin/partners?q=${encodeURIComponent('<script>')}`]) {
      const res = await admin.goto(`${svc.url}${path}`);
      expect(res!.status()).toBe(200);
      const raw = await res!.text();
      expect(raw).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
      expect(raw).not.toContain(XSS_NAME);
      expect(await admin.textContent('main')).toContain(XSS_NAME);
      await screenshot(admin, `admin-xss${path.replace(/[^a-z0-9]+/gi, '-')}`);
    }
    expect(await admin.textContent('h1')).toBe('Partners');
    expect(await admin.inputValue('input[name=q]')).toBe('<script>');
    expect(dialogs).toBe(0);
  });
});
