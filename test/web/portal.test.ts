// The partner portal in a real browser: invited over the API, signed in by the emailed link, a link
// with a custom slug, a referred customer's commission, approval and payout, all seen on the pages.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import { BROWSER_UA, campaign, clickStored } from '../support/chain';
import { startService, type TestService } from '../support/service';
import { invitePartner, launchBrowser, newPage, screenshot, signInThroughPortal } from './browser';

// a browser round trip per step; a loaded CI machine is slow, not broken
setDefaultTimeout(30_000);

let svc: TestService;
let browser: Browser;
let page: Page;
let campaignId: string;
let partnerId: string;
const EMAIL = 'ada@example.com';

beforeAll(async () => {
  // TRUST_PROXY: the customer identifies from its own address, not the one the partner signs in from
  [svc, browser] = await Promise.all([startService({ TRUST_PROXY: '1' }), launchBrowser()]);
  campaignId = await campaign(svc, { name: 'Pro plan', rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 20 }] });
  partnerId = await invitePartner(svc, { email: EMAIL, name: 'Ada Partner', campaignIds: [campaignId] });
  ({ page } = await newPage(browser));
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: svc.url });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

describe('partner portal, end to end', () => {
  test('signed out, the portal sends the browser to the sign-in page', async () => {
    await page.goto(`${svc.url}/portal/links`);
    expect(new URL(page.url()).pathname).toBe('/portal/sign-in');
    await screenshot(page, 'portal-sign-in');
  });

  test('the invite link signs the partner in and lands on the home page', async () => {
    const link = await svc.mail.magicLink(EMAIL);
    await page.goto(link);
    expect(new URL(page.url()).pathname).toBe('/portal');
    expect(await page.textContent('h1')).toContain('Ada Partner');
    expect(await page.textContent('.who')).toContain(EMAIL);
    // nothing happened yet: the chart says so in words instead of drawing flat lines
    expect(await page.locator('.chart svg').count()).toBe(0);
    expect(await page.textContent('.chart-empty')).toContain('No data in this period');
    expect(await page.textContent('.chart .legend')).toContain('Earnings: 0.00 USD');
    // the terms come first in words; nothing earned yet
    expect(await page.textContent('#terms')).toContain('20% of every paid invoice');
    expect(await page.textContent('#money-empty')).toContain('No money yet');
    const [row] = await svc.sql`select activated_at from partners where id = ${partnerId}`;
    expect(row!.activated_at).not.toBeNull();
    await screenshot(page, 'portal-dashboard-empty');
  });

  test('a taken or malformed slug is shown beside the slug field; a custom slug creates the link', async () => {
    await page.goto(`${svc.url}/portal/links`);
    await page.fill('input[name=slug]', 'no spaces');
    await page.click('form[action="/portal/links"] button[type=submit]');
    expect(await page.textContent('#f-slug-error')).toContain('3-64 characters');
    expect(await page.getAttribute('#f-slug', 'aria-invalid')).toBe('true');
    expect(await page.inputValue('#f-slug')).toBe('no spaces');
    await screenshot(page, 'portal-links-error');

    await page.fill('input[name=slug]', 'ada-pro');
    await page.selectOption('select[name=campaignId]', campaignId);
    await page.click('form[action="/portal/links"] button[type=submit]');
    expect(await page.textContent('.notice.ok')).toContain('ada-pro');
    const url = await page.inputValue('tr[data-slug="ada-pro"] input');
    expect(url).toBe(`${svc.url}/r/ada-pro`);
    const rows = await svc.sql`select partner_id, campaign_id from links where slug = 'ada-pro'`;
    expect([...rows]).toEqual([{ partner_id: partnerId, campaign_id: campaignId }]);

    // the copy button puts the address on the clipboard
    await page.click('tr[data-slug="ada-pro"] button[data-copy]');
    await page.waitForFunction(() => document.querySelector('tr[data-slug="ada-pro"] button[data-copy]')?.textContent === 'Copied');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(url);
    await screenshot(page, 'portal-links');

    // a second post of the same slug is refused beside the field, and nothing new is stored
    await page.fill('input[name=slug]', 'ADA-pro');
    await page.click('form[action="/portal/links"] button[type=submit]');
    expect(await page.textContent('#f-slug-error')).toContain('taken');
    expect((await svc.sql`select count(*)::int as n from links`)[0]!.n).toBe(1);
  });

  test('a visitor follows the link, is identified, pays: the commission shows on the portal', async () => {
    const res = await fetch(`${svc.url}/r/ada-pro`, { redirect: 'manual', headers: { 'user-agent': BROWSER_UA } });
    expect(res.status).toBe(302);
    const clickId = new URL(res.headers.get('location')!).searchParams.get('pp_click')!;
    await clickStored(svc, clickId);
    const pk = await svc.publishableKey();
    expect((await svc.api('POST', '/v1/identify', { key: pk, body: { userId: 'cust_1', clickIds: [clickId] }, headers: { 'x-forwarded-for': '198.51.100.1' } })).status).toBe(200);
    const event = await svc.api('POST', '/v1/events', { body: { userId: 'cust_1', type: 'invoice_paid', amount: 4999, currency: 'USD' } });
    expect(event.status).toBe(201);

    await page.goto(`${svc.url}/portal`);
    const cards = await page.locator('#kpis .value').allTextContents();
    expect(cards).toEqual(['10.00 USD', '1', '1', '10.00 USD']); // earnings, clicks, conversions, EPC in 30 days
    expect(await page.locator('.chart svg polyline').count()).toBe(1);
    expect(await page.textContent('#money tr[data-currency="USD"] [data-pending]')).toBe('10.00 USD');
    expect(await page.textContent('#latest tbody .badge')).toBe('Pending');
    expect(await page.textContent('#links tr[data-slug="ada-pro"] [data-clicks]')).toBe('1');
    await screenshot(page, 'portal-dashboard');

    await page.goto(`${svc.url}/portal/commissions`);
    const row = page.locator('#commissions tbody tr');
    expect(await row.count()).toBe(1);
    expect(await row.textContent()).toContain('10.00 USD');
    expect(await row.locator('.badge').textContent()).toBe('Pending');
    expect(await row.locator('.badge').getAttribute('title')).toMatch(/^Approved on \d{4}-\d{2}-\d{2} when the holdback ends$/);
    // people's words, not the event type's internal name
    expect(await row.textContent()).toContain('Paid invoice');
    expect(await row.textContent()).not.toContain('invoice_paid');
    await screenshot(page, 'portal-commissions-accrued');
  });

  test('the admin approves and pays over the API; the partner sees the commission and payout paid', async () => {
    const [commission] = await svc.sql`select id from commissions where partner_id = ${partnerId}`;
    expect((await svc.api('POST', `/v1/commissions/${commission!.id}/approve`)).status).toBe(200);
    const run = await svc.api('POST', '/v1/payouts/run');
    expect(run.status).toBe(200);
    const payout = run.body.payouts.find((p: { partnerId: string }) => p.partnerId === partnerId);
    expect(payout).toMatchObject({ amount: '10.00', currency: 'USD' });
    if (payout.status !== 'paid') expect((await svc.api('POST', `/v1/payouts/${payout.id}/mark-paid`, { body: {} })).status).toBe(200);

    await page.goto(`${svc.url}/portal/commissions`);
    expect(await page.textContent('#commissions tbody tr .badge')).toBe('Paid');
    await page.goto(`${svc.url}/portal/payouts`);
    const row = page.locator(`#payouts tr[data-id="${payout.id}"]`);
    expect(await row.textContent()).toContain('10.00 USD');
    expect(await row.locator('.badge').textContent()).toBe('Paid');
    await screenshot(page, 'portal-payouts');
  });

  test('the pages work on a phone-sized screen and with the keyboard', async () => {
    const { context, page: phone } = await newPage(browser, { phone: true });
    await context.addCookies(await page.context().cookies());
    for (const path of ['/portal/links', '/portal/commissions', '/portal/payouts', '/portal/profile', '/portal']) {
      await phone.goto(`${svc.url}${path}`);
      // nothing wider than the screen (wide tables scroll inside their own box)
      expect({ path, fits: await phone.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth) }).toEqual({ path, fits: true });
      await screenshot(phone, `portal-phone${path.replaceAll('/', '-')}`);
    }
    // the skip link comes first and shows a focus ring
    await phone.keyboard.press('Tab');
    expect(await phone.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    const outline = await phone.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
    expect(outline).toBe('solid');
    await context.close();
  });

  test('an unknown portal page is a 404 page in the portal shell', async () => {
    const res = await page.goto(`${svc.url}/portal/nope`);
    expect(res!.status()).toBe(404);
    expect(res!.headers()['content-type']).toBe('text/html; charset=utf-8');
    expect(await page.textContent('h1')).toBe('Page not found');
    expect(await page.textContent('.who')).toContain(EMAIL);
    await screenshot(page, 'portal-not-found');
    await page.click('text=Go to the start page');
    expect(new URL(page.url()).pathname).toBe('/portal');
  });

  test('sign-out ends the session: the portal asks for a sign-in again', async () => {
    await page.goto(`${svc.url}/portal`);
    await page.click('form[action="/portal/sign-out"] button');
    expect(new URL(page.url()).pathname).toBe('/portal/sign-in');
    const [open] = await svc.sql`select count(*)::int as n from sessions where partner_id = ${partnerId} and revoked_at is null`;
    expect(open!.n).toBe(0);
    await page.goto(`${svc.url}/portal`);
    expect(new URL(page.url()).pathname).toBe('/portal/sign-in');

    // and the sign-in form mails a new link that works
    await signInThroughPortal(svc, page, EMAIL);
    expect(new URL(page.url()).pathname).toBe('/portal');
  });
});
