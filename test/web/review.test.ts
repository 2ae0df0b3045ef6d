// The review queue in a real browser: flagged commissions with their evidence, approve one,
// reverse several after a confirmation, the partner page's flag history with revoke prefilled,
// and the partner's portal saying "under review" without the evidence.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import { BROWSER_UA, campaign } from '../support/chain';
import { startService, type TestService } from '../support/service';
import { invitePartner, launchBrowser, screenshot, signInThroughPortal } from './browser';

setDefaultTimeout(30_000);

const ADMIN = 'boss@operator.example';
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';

let svc: TestService;
let browser: Browser;
let page: Page;
let campaignId: string;
let ann: string;
let bob: string;
let publishable: string;
const ids = {} as Record<'annSelf' | 'annSelf2' | 'annBot' | 'bobLarge' | 'bobClean', string>;
let ip = 0;

async function slugOf(partnerId: string): Promise<string> {
  const res = await svc.api('POST', '/v1/links', { body: { campaignId, partnerId } });
  expect(res.status).toBe(201);
  return res.body.slug;
}

/** A customer arrives through the partner's link (one click per user agent) and pays; answers the commission id. */
async function commission(partnerId: string, user: string, input: { amount: number; customerEmail?: string; agents?: string[] }): Promise<string> {
  const slug = await slugOf(partnerId);
  const clicks = [];
  for (const agent of input.agents ?? [BROWSER_UA]) {
    const res = await fetch(`${svc.url}/r/${slug}`, { redirect: 'manual', headers: { 'user-agent': agent, 'x-forwarded-for': `198.51.100.${++ip}` } });
    clicks.push(new URL(res.headers.get('location')!).searchParams.get('pp_click')!);
  }
  const identified = await svc.api('POST', '/v1/identify', { key: publishable, body: { userId: user, clickIds: clicks }, headers: { 'x-forwarded-for': '203.0.113.200' } });
  expect(identified.status).toBe(200);
  const res = await svc.api('POST', '/v1/events', {
    body: { userId: user, type: 'invoice_paid', amount: input.amount, currency: 'USD', ...(input.customerEmail ? { customerEmail: input.customerEmail } : {}) },
  });
  expect(res.status).toBe(201);
  const [row] = await svc.sql`select id from commissions where event_id = ${res.body.id}`;
  return row!.id;
}

const statusOf = async (id: string) => (await svc.sql`select status, reversal_reason from commissions where id = ${id}`)[0]!;

beforeAll(async () => {
  [svc, browser] = await Promise.all([startService({ ADMIN_EMAILS: ADMIN, TRUST_PROXY: '1', REVIEW_ABOVE: '100' }), launchBrowser()]);
  publishable = await svc.publishableKey();
  campaignId = await campaign(svc, { name: 'Pro plan', rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 10 }] });
  ann = await invitePartner(svc, { email: 'ann@example.com', name: 'Ann Archer', campaignIds: [campaignId] });
  bob = await invitePartner(svc, { email: 'bob@example.com', name: 'Bob Baker', campaignIds: [campaignId] });
  ids.annSelf = await commission(ann, 'cust-self', { amount: 5_000, customerEmail: 'Ann+1@Example.com' });
  ids.annSelf2 = await commission(ann, 'cust-self-2', { amount: 7_000, customerEmail: 'ann+shop@example.com' });
  ids.annBot = await commission(ann, 'cust-bot', { amount: 3_000, agents: [BROWSER_UA, GOOGLEBOT] });
  ids.bobLarge = await commission(bob, 'cust-large', { amount: 200_000 });
  ids.bobClean = await commission(bob, 'cust-clean', { amount: 4_000 });
  const context = await browser.newContext({ viewport: { width: 1366, height: 900 } });
  page = await context.newPage();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

describe('review queue', () => {
  test('the admin signs in; Review is in the navigation and lists each flagged commission with its evidence', async () => {
    await page.goto(`${svc.url}/admin/sign-in`);
    await page.fill('input[name=email]', ADMIN);
    await page.click('button[type=submit]');
    await page.waitForSelector('.notice.ok');
    await page.goto(await svc.mail.magicLink(ADMIN));
    await page.click('nav.nav a[href="/admin/review"]');
    expect(new URL(page.url()).pathname).toBe('/admin/review');
    expect(await page.textContent('h1')).toBe('Review');
    expect(await page.textContent('#review-count')).toBe('4 commissions waiting');
    expect(await page.locator(`#review-${ids.bobClean}`).count()).toBe(0);

    const self = await page.textContent(`#review-${ids.annSelf}`);
    expect(self).toContain('Ann Archer');
    expect(self).toContain('Self-referral');
    expect(self).toContain("Customer email Ann+1@Example.com is the partner's ann@example.com");

    const large = await page.textContent(`#review-${ids.bobLarge}`);
    expect(large).toContain('Large amount');
    expect(large).toContain('200.00 USD is above the review threshold of 100.00 USD');

    const bot = page.locator(`#review-${ids.annBot}`);
    expect(await bot.textContent()).toContain('Bot click');
    expect(await bot.locator('tr.uncredited td.ua').textContent()).toBe(GOOGLEBOT);
    expect(await bot.locator('tr.uncredited').textContent()).toContain('No: bot');
    expect(await bot.locator('tbody tr:not(.uncredited)').textContent()).toContain('Yes');
    expect(await bot.locator('code.hash').count()).toBeGreaterThan(1); // the clicks' IP hashes and the identify network
    await screenshot(page, 'admin-review');
  });

  test('approving one goes through a confirmation, then it leaves the queue approved', async () => {
    await page.click(`#review-${ids.bobLarge} form[action$="/approve"] button`);
    expect(await page.textContent('h1')).toBe('Approve 1 flagged commission (200.00 USD)');
    expect(await statusOf(ids.bobLarge)).toMatchObject({ status: 'accrued' });
    await page.click('form.confirm-form button[type=submit]');
    expect(new URL(page.url()).pathname).toBe('/admin/review');
    expect(await page.textContent('.notice.ok')).toBe('Approved 1 commission.');
    expect(await statusOf(ids.bobLarge)).toMatchObject({ status: 'approved' });
    expect(await page.locator(`#review-${ids.bobLarge}`).count()).toBe(0);
  });

  test('ticked rows are reversed together after a confirmation with the reason prefilled', async () => {
    await page.check(`#review-${ids.annSelf} input[name=ids]`);
    await page.check(`#review-${ids.annSelf2} input[name=ids]`);
    await page.click('#review-bulk button[value=reverse]');
    expect(await page.textContent('h1')).toBe('Reverse 2 flagged commissions (12.00 USD)');
    expect(await page.inputValue('input[name=reason]')).toBe('fraud: self_referral');
    await screenshot(page, 'admin-review-reverse');
    // an empty reason is refused beside the field and reverses nothing
    await page.fill('input[name=reason]', ' ');
    await page.click('form.confirm-form button[type=submit]');
    expect(await page.textContent('#f-reason-error')).toContain('say why');
    expect(await statusOf(ids.annSelf)).toMatchObject({ status: 'accrued' });
    await page.fill('input[name=reason]', 'Self-referral: own purchases');
    await page.click('form.confirm-form button[type=submit]');
    expect(await page.textContent('.notice.ok')).toBe('Reversed 2 commissions.');
    expect(await statusOf(ids.annSelf)).toMatchObject({ status: 'reversed', reversal_reason: 'Self-referral: own purchases' });
    expect(await statusOf(ids.annSelf2)).toMatchObject({ status: 'reversed', reversal_reason: 'Self-referral: own purchases' });
    expect(await page.textContent('#review-count')).toBe('1 commission waiting');
  });

  test('a bulk action with nothing ticked says so and changes nothing', async () => {
    await page.click('#review-bulk button[value=approve]');
    expect(await page.textContent('.notice.error')).toBe('Tick at least one commission to approve.');
    expect(await statusOf(ids.annBot)).toMatchObject({ status: 'accrued' });
  });

  test("the partner page shows the partner's flags per month and offers revoke with the reason filled in", async () => {
    await page.goto(`${svc.url}/admin/partners/${ann}`);
    const section = page.locator('#partner-flags');
    const month = new Date().toISOString().slice(0, 7);
    expect(await section.locator('thead').textContent()).toContain('Self-referral');
    expect(await section.locator('thead').textContent()).toContain('Bot click');
    expect(await section.locator('tbody tr').first().textContent()).toBe(`${month}12`);
    expect(await section.textContent()).toContain('1 commission waiting for review');
    await screenshot(page, 'admin-partner-flags');
    await page.click('#revoke-for-flags');
    expect(new URL(page.url()).pathname).toBe(`/admin/partners/${ann}/revoke`);
    expect(await page.inputValue('input[name=reason]')).toBe('Fraud signals on 3 commissions: bot click, self-referral');
    // Bob's only flag was review_amount, and it still shows on his page after approval
    await page.goto(`${svc.url}/admin/partners/${bob}`);
    expect(await page.locator('#partner-flags thead').textContent()).toContain('Large amount');
    expect(await page.locator('#partner-flags').textContent()).not.toContain('waiting for review');
  });

  test('on a phone the queue stacks and stays readable', async () => {
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, storageState: await page.context().storageState() });
    const small = await phone.newPage();
    await small.goto(`${svc.url}/admin/review`);
    expect(await small.textContent('h1')).toBe('Review');
    const overflow = await small.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await screenshot(small, 'admin-review-phone');
    await phone.close();
  });
});

describe('portal', () => {
  test('the partner sees "Under review" on a flagged commission and nothing of the evidence', async () => {
    const context = await browser.newContext({ viewport: { width: 1366, height: 900 } });
    const portal = await context.newPage();
    await signInThroughPortal(svc, portal, 'ann@example.com');
    await portal.goto(`${svc.url}/portal/commissions`);
    const row = portal.locator('tbody tr', { hasText: 'Under review' });
    expect(await row.count()).toBe(1);
    expect(await row.textContent()).toContain('3.00 USD');
    // the reversed ones show the reason the admin wrote, as any reversal does; nothing of the evidence shows anywhere
    const text = (await portal.textContent('main'))!;
    for (const hidden of ['Bot click', 'Googlebot', 'self_referral', 'bot_click', 'IP hash', 'Large amount']) expect({ hidden, shown: text.includes(hidden) }).toEqual({ hidden, shown: false });
    await screenshot(portal, 'portal-under-review');
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, storageState: await context.storageState() });
    const small = await phone.newPage();
    await small.goto(`${svc.url}/portal/commissions`);
    expect(await small.textContent('main')).toContain('Under review');
    await screenshot(small, 'portal-under-review-phone');
    await phone.close();
    await context.close();
  });
});
