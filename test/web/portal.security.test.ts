// The partner portal against hostile input and hostile sites: names that are markup, cross-site and
// token-less form posts, another partner's data, a revoked partner, and self-signup.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import { BROWSER_UA, campaign, clickStored } from '../support/chain';
import { startService, type TestService } from '../support/service';
import { invitePartner, launchBrowser, newPage, postForm, screenshot, startCrossSitePoster } from './browser';

const XSS_NAME = '<script>alert(1)</script>';
const XSS_CAMPAIGN = '<img src=x onerror=alert(2)>';

// a browser round trip per step; a loaded CI machine is slow, not broken
setDefaultTimeout(30_000);

let svc: TestService;
let browser: Browser;
let attacker: ReturnType<typeof Bun.serve>;
let mallory: Page; // the partner with the hostile name
let bob: Page; // another partner
let dialogs = 0;
let campaignId: string;
let onlyMallorys: string;
let malloryId: string;

async function signInByInvite(page: Page, email: string) {
  await page.goto(await svc.mail.magicLink(email));
  expect(new URL(page.url()).pathname).toBe('/portal');
}

async function linkCount(slug: string) {
  return (await svc.sql`select count(*)::int as n from links where lower(slug) = ${slug.toLowerCase()}`)[0]!.n as number;
}

beforeAll(async () => {
  [svc, browser] = await Promise.all([startService(), launchBrowser()]);
  campaignId = await campaign(svc, { name: XSS_CAMPAIGN, rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 10 }] });
  onlyMallorys = await campaign(svc, { name: 'Private' });
  malloryId = await invitePartner(svc, { email: 'mallory@example.com', name: XSS_NAME, campaignIds: [campaignId, onlyMallorys] });
  await invitePartner(svc, { email: 'bob@example.com', name: 'Bob', campaignIds: [campaignId] });

  // mallory has a link, a click, a commission and a payout
  const link = await svc.api('POST', '/v1/links', { body: { partnerId: malloryId, campaignId, slug: 'mallory-link' } });
  expect(link.status).toBe(201);
  const res = await fetch(`${svc.url}/r/mallory-link`, { redirect: 'manual', headers: { 'user-agent': BROWSER_UA } });
  const clickId = new URL(res.headers.get('location')!).searchParams.get('pp_click')!;
  await clickStored(svc, clickId);
  await svc.api('POST', '/v1/identify', { key: await svc.publishableKey(), body: { userId: 'u1', clickIds: [clickId] } });
  expect((await svc.api('POST', '/v1/events', { body: { userId: 'u1', type: 'invoice_paid', amount: 10000, currency: 'EUR' } })).status).toBe(201);
  const [c] = await svc.sql`select id from commissions where partner_id = ${malloryId}`;
  await svc.api('POST', `/v1/commissions/${c!.id}/approve`);
  expect((await svc.api('POST', '/v1/payouts/run')).status).toBe(200);

  attacker = startCrossSitePoster();

  mallory = (await newPage(browser)).page;
  bob = (await newPage(browser)).page;
  for (const page of [mallory, bob]) page.on('dialog', (d) => void (dialogs++, d.dismiss()));
  await signInByInvite(mallory, 'mallory@example.com');
  await signInByInvite(bob, 'bob@example.com');
}, 60_000);
afterAll(async () => {
  attacker?.stop(true);
  await browser?.close();
  await svc?.stop();
});

describe('XSS', () => {
  test('a partner named <script> renders as text on every portal page', async () => {
    for (const path of ['/portal', '/portal/links', '/portal/commissions', '/portal/payouts', '/portal/profile']) {
      const res = await mallory.goto(`${svc.url}${path}`);
      expect(res!.status()).toBe(200);
      const raw = await res!.text();
      expect(raw).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
      expect(raw).not.toContain(XSS_NAME);
      expect(raw).not.toContain('<img src=x');
      expect(await mallory.textContent('.who')).toContain(XSS_NAME);
      expect(await mallory.locator('img').count()).toBe(0);
      await screenshot(mallory, `portal-xss${path.replaceAll('/', '-')}`);
    }
    expect(await mallory.inputValue('#f-name')).toBe(XSS_NAME);
    await mallory.goto(`${svc.url}/portal`);
    expect(await mallory.textContent('h1')).toBe(`Welcome, ${XSS_NAME}`);
    expect(await mallory.textContent('#terms')).toContain(XSS_CAMPAIGN);
    await mallory.goto(`${svc.url}/portal/links`);
    expect(await mallory.textContent('#links tbody')).toContain(XSS_CAMPAIGN);
    expect(dialogs).toBe(0);
  });

  test('hostile builder values (page, UTM) come back as text: shown while typing, previewed and stored', async () => {
    await mallory.goto(`${svc.url}/portal/links`);
    const hostile = '"><img src=x onerror=alert(4)>';
    await mallory.selectOption('#f-campaignId', campaignId);
    await mallory.fill('#f-page', `/p${hostile}`);
    await mallory.fill('#f-utm_source', hostile);
    expect(await mallory.textContent('#final-url')).toContain('utm_source=%22%3E%3Cimg');
    await mallory.click('form.builder button[value="preview"]');
    expect(await mallory.inputValue('#f-utm_source')).toBe(hostile);
    expect(await mallory.textContent('#final-url')).toContain('utm_source=%22%3E%3Cimg');
    expect(await mallory.locator('img').count()).toBe(0);
    expect(dialogs).toBe(0);
  });

  test('a hostile value sent back into a form stays a value', async () => {
    const { context, page } = await newPage(browser);
    page.on('dialog', (d) => void (dialogs++, d.dismiss()));
    await page.goto(`${svc.url}/portal/sign-in`);
    const hostile = '"><script>alert(3)</script>';
    await page.fill('input[name=email]', hostile);
    await page.click('button[type=submit]');
    expect(await page.inputValue('input[name=email]')).toBe(hostile);
    expect(await page.textContent('#f-email-error')).toBe('must be an email address');
    expect(dialogs).toBe(0);
    await screenshot(page, 'portal-sign-in-error');
    await context.close();
  });
});

describe('CSRF', () => {
  test('a form on another site posting to the portal is refused and changes nothing', async () => {
    const url = new URL(attacker.url);
    url.searchParams.set('target', `${svc.url}/portal/links`);
    url.searchParams.set('campaignId', campaignId);
    url.searchParams.set('slug', 'evil-link');
    url.searchParams.set('_csrf', 'guessed');
    const refused = mallory.waitForResponse((r) => r.url() === `${svc.url}/portal/links` && r.request().method() === 'POST');
    await mallory.goto(url.href);
    expect((await refused).status()).toBe(403);
    await mallory.waitForSelector('h1');
    expect(await mallory.textContent('h1')).toBe('Request refused');
    expect(await linkCount('evil-link')).toBe(0);

    // signing someone out from another site does not work either
    url.searchParams.set('target', `${svc.url}/portal/sign-out`);
    const out = mallory.waitForResponse((r) => r.url() === `${svc.url}/portal/sign-out`);
    await mallory.goto(url.href);
    expect((await out).status()).toBe(403);
    await mallory.goto(`${svc.url}/portal`);
    expect(new URL(mallory.url()).pathname).toBe('/portal');
  });

  test('a same-origin post without the right token is refused; with it, it works', async () => {
    await mallory.goto(`${svc.url}/portal/links`);
    const own = await mallory.inputValue('input[name=_csrf]');
    await bob.goto(`${svc.url}/portal/links`);
    const bobs = await bob.inputValue('input[name=_csrf]');
    expect(bobs).not.toBe(own);

    for (const token of [undefined, '', 'wrong', bobs, own.slice(0, -1)]) {
      const fields: Record<string, string> = { campaignId, slug: 'no-token' };
      if (token !== undefined) fields._csrf = token;
      const res = await postForm(mallory, '/portal/links', fields);
      expect(res.status).toBe(403);
      expect(res.text).toContain('Request refused');
    }
    expect(await linkCount('no-token')).toBe(0);

    const ok = await postForm(mallory, '/portal/links', { campaignId, slug: 'with-token', _csrf: own });
    expect(ok.status).toBe('redirect');
    expect(await linkCount('with-token')).toBe(1);
  });

  test('the signed-out forms need their pre-session token too', async () => {
    const before = svc.mail.messages.length;
    const res = await fetch(`${svc.url}/portal/sign-in`, { method: 'POST', body: new URLSearchParams({ email: 'bob@example.com' }), redirect: 'manual' });
    expect(res.status).toBe(403);
    // a sign-in mail would have gone out before the answer: nothing came
    expect(svc.mail.messages.length).toBe(before);
  });
});

describe('partner isolation', () => {
  test("another partner's links, commissions and payouts never show", async () => {
    await bob.goto(`${svc.url}/portal/links?partnerId=${malloryId}`);
    expect(await bob.content()).not.toContain('mallory-link');
    expect(await bob.textContent('.empty-state')).toContain('No links yet');
    // the "link created" notice names a link id: another partner's shows nothing
    const [theirs] = await svc.sql`select id from links where slug = 'mallory-link'`;
    await bob.goto(`${svc.url}/portal/links?created=${theirs!.id}`);
    expect(await bob.locator('#created').count()).toBe(0);
    expect(await bob.content()).not.toContain('mallory-link');
    await bob.goto(`${svc.url}/portal/commissions`);
    expect(await bob.textContent('main')).toContain('No commissions yet');
    await bob.goto(`${svc.url}/portal/payouts`);
    expect(await bob.textContent('main')).toContain('No payouts yet');
    for (const path of [`/portal?partnerId=${malloryId}`, `/portal/commissions?partnerId=${malloryId}`, `/portal/payouts?partnerId=${malloryId}`]) {
      await bob.goto(`${svc.url}${path}`);
      expect(await bob.textContent('main')).toMatch(/No commissions yet|No payouts yet/);
    }
    await bob.goto(`${svc.url}/portal`);
    expect(await bob.textContent('#kpi-clicks .value')).toBe('0');
    expect(await bob.textContent('#money-empty')).toContain('No money yet');
    await bob.goto(`${svc.url}/portal/profile?partnerId=${malloryId}`);
    expect(await bob.inputValue('#f-name')).toBe('Bob');
    expect(await bob.content()).not.toContain('mallory@example.com');
    // mallory, for contrast, sees her own
    await mallory.goto(`${svc.url}/portal/payouts`);
    expect(await mallory.locator('#payouts tbody tr').count()).toBe(1);
  });

  test("a partner cannot create links on a campaign it does not hold; the error is beside the field", async () => {
    await bob.goto(`${svc.url}/portal/links`);
    const csrf = await bob.inputValue('input[name=_csrf]');
    const res = await postForm(bob, '/portal/links', { campaignId: onlyMallorys, slug: 'bob-steals', _csrf: csrf });
    expect(res.status).toBe(403);
    expect(res.text).toContain('id="f-campaignId-error"');
    expect(await linkCount('bob-steals')).toBe(0);
  });

  test("a partner cannot change another's profile: the form acts on the session's partner only", async () => {
    await bob.goto(`${svc.url}/portal/profile`);
    const csrf = await bob.inputValue('form[action="/portal/profile"] input[name=_csrf]');
    const res = await postForm(bob, '/portal/profile', { _csrf: csrf, partnerId: malloryId, id: malloryId, name: 'Bob Two', payoutEmail: 'bob@pay.example', billingConnectAccountId: 'acct_Bob' });
    expect(res.status).toBe('redirect');
    const rows = await svc.sql`select id, name, payout_email, billing_connect_account_id from partners where email in ('bob@example.com', 'mallory@example.com') order by email`;
    expect([...rows]).toEqual([
      { id: expect.any(String), name: 'Bob Two', payout_email: 'bob@pay.example', billing_connect_account_id: 'acct_Bob' },
      { id: malloryId, name: XSS_NAME, payout_email: null, billing_connect_account_id: null },
    ]);
    // and a profile post without the token changes nothing
    const refused = await postForm(bob, '/portal/profile', { name: 'Nope' });
    expect(refused.status).toBe(403);
    expect((await svc.sql`select name from partners where email = 'bob@example.com'`)[0]!.name).toBe('Bob Two');
    // restore the name the other tests expect
    await postForm(bob, '/portal/profile', { _csrf: csrf, name: 'Bob', payoutEmail: '' });
  });

  test('a partner session opens no admin page', async () => {
    const res = await bob.goto(`${svc.url}/admin`);
    expect(res!.status()).toBe(403);
    expect(await bob.textContent('h1')).toBe('This page is for administrators');
  });
});

describe('sign-in form', () => {
  test('the same answer for known and unknown emails; repeated requests are limited beside the field', async () => {
    const { context, page } = await newPage(browser);
    const answers: string[] = [];
    for (const email of ['bob@example.com', 'nobody@example.com']) {
      await page.goto(`${svc.url}/portal/sign-in`);
      await page.fill('input[name=email]', email);
      await page.click('button[type=submit]');
      answers.push((await page.textContent('.notice.ok'))!);
    }
    expect(answers[0]).toBe(answers[1]!);
    // five requests per email in 15 minutes (shared with POST /auth/magic-link); bob used one above
    for (let i = 0; i < 5; i++) {
      await page.fill('input[name=email]', 'Bob@Example.com');
      await page.click('button[type=submit]');
    }
    expect(await page.textContent('#f-email-error')).toContain('too many requests');
    expect(await page.getAttribute('#f-email', 'aria-invalid')).toBe('true');
    const api = await svc.api('POST', '/auth/magic-link', { key: null, body: { email: 'bob@example.com' } });
    expect(api.status).toBe(429);
    await context.close();
  });
});

describe('self-signup', () => {
  test('closed: the page says so; open: errors beside fields, then a pending partner and a mail', async () => {
    const { context, page } = await newPage(browser, { phone: true });
    expect((await page.goto(`${svc.url}/portal/sign-up`))!.status()).toBe(404);
    expect(await page.textContent('h1')).toBe('Signup is closed');

    expect((await svc.api('PATCH', '/v1/settings', { body: { partnerSignup: 'open' } })).status).toBe(200);
    await page.goto(`${svc.url}/portal/sign-in`);
    await page.click('a[href="/portal/sign-up"]');
    await page.fill('input[name=name]', '   ');
    await page.fill('input[name=email]', 'not-an-email');
    await page.click('button[type=submit]');
    expect(await page.textContent('#f-email-error')).toBe('must be an email address');
    expect(await page.locator('#f-name-error').count()).toBe(1);
    await screenshot(page, 'portal-sign-up-errors');

    await page.fill('input[name=name]', 'Nora');
    await page.fill('input[name=email]', 'nora@example.com');
    await page.click('button[type=submit]');
    expect(await page.textContent('.notice.ok')).toContain('Check your inbox');
    // a finished signup shows what comes next, not the form again
    expect(await page.textContent('h1')).toBe('Check your inbox');
    expect(await page.locator('form[action="/portal/sign-up"]').count()).toBe(0);
    await screenshot(page, 'portal-sign-up-done');
    const [row] = await svc.sql`select name, activated_at from partners where email = 'nora@example.com'`;
    expect(row).toMatchObject({ name: 'Nora', activated_at: null });
    await svc.mail.magicLink('nora@example.com');
    await context.close();
  });
});

describe('revoked partners', () => {
  test('see the reason and nothing else, on every portal page', async () => {
    const reason = 'Fake traffic <b>bold</b>';
    expect((await svc.api('POST', `/v1/partners/${malloryId}/revoke`, { body: { reason } })).status).toBe(200);
    for (const path of ['/portal', '/portal/links', '/portal/commissions', '/portal/payouts', '/portal/profile']) {
      const res = await mallory.goto(`${svc.url}${path}`);
      expect(res!.status()).toBe(403);
      expect(await mallory.textContent('.reason')).toBe(reason);
      expect(await mallory.locator('nav, form, table, .who').count()).toBe(0);
      expect(await mallory.content()).not.toContain('mallory-link');
    }
    await screenshot(mallory, 'portal-revoked');
    // and their forms no longer do anything
    const res = await postForm(mallory, '/portal/links', { campaignId, slug: 'after-revoke', _csrf: 'x' });
    expect(res.status).toBe(403);
    expect(await linkCount('after-revoke')).toBe(0);
    expect((await postForm(mallory, '/portal/profile', { name: 'Changed', _csrf: 'x' })).status).toBe(403);
    expect((await svc.sql`select name from partners where id = ${malloryId}`)[0]!.name).toBe(XSS_NAME);
    expect(dialogs).toBe(0);
  });
});
