// The admin pages in a real browser: an admin signs in through the emailed link and runs the
// program section by section; each action is checked on the page and in the database.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import { campaign, click, identify } from '../support/chain';
import { startService, type TestService } from '../support/service';
import { invitePartner, launchBrowser, newPage, screenshot } from './browser';

// a browser round trip per step; a loaded CI machine is slow, not broken
setDefaultTimeout(30_000);

const ADMIN = 'boss@example.com';
let svc: TestService;
let browser: Browser;
let page: Page;
let campaignId: string;
let partnerId: string;

/** A referred customer pays: one accrued commission for the partner. */
async function commissionFor(partner: string, userId: string, amount = 10000): Promise<string> {
  const { clickId } = await click(svc, campaignId, partner);
  await identify(svc, userId, [clickId]);
  const res = await svc.api('POST', '/v1/events', { body: { userId, type: 'invoice_paid', amount, currency: 'EUR' } });
  expect(res.status).toBe(201);
  const [row] = await svc.sql`select c.id from commissions c join events e on e.id = c.event_id where e.user_id = ${userId}`;
  return row!.id;
}

beforeAll(async () => {
  [svc, browser] = await Promise.all([startService({ ADMIN_EMAILS: ADMIN }), launchBrowser()]);
  campaignId = await campaign(svc, { name: 'Pro plan', currency: 'EUR', rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 20 }] });
  partnerId = await invitePartner(svc, { email: 'ada@example.com', name: 'Ada Partner', campaignIds: [campaignId] });
  await commissionFor(partnerId, 'cust-1');
  ({ page } = await newPage(browser));
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

describe('sign-in and overview', () => {
  test('signed out, /admin sends the browser to the admin sign-in page', async () => {
    await page.goto(`${svc.url}/admin`);
    expect(new URL(page.url()).pathname).toBe('/admin/sign-in');
    // a field error shows beside the field
    await page.fill('input[name=email]', 'not-an-email');
    await page.click('button[type=submit]');
    expect(await page.textContent('#f-email-error')).toBe('must be an email address');
    await screenshot(page, 'admin-sign-in');
  });

  test('the emailed link signs the admin in; the overview shows counts and charts', async () => {
    await page.fill('input[name=email]', ADMIN);
    await page.click('button[type=submit]');
    await page.waitForSelector('.notice.ok');
    await page.goto(await svc.mail.magicLink(ADMIN));
    expect(new URL(page.url()).pathname).toBe('/admin');
    expect(await page.textContent('h1')).toBe('Overview');
    expect(await page.textContent('.who')).toBe(ADMIN);
    expect(await page.textContent('#counts')).toContain('Campaigns');
    expect(await page.locator('.chart svg').count()).toBe(2);
    expect(await page.textContent('#money-chart')).toContain('Revenue (EUR): 100');
    expect(await page.textContent('#money-chart')).toContain('Commissions (EUR): 20');
    expect(await page.textContent('#totals')).toContain('20.00');
    await screenshot(page, 'admin-overview');
  });
});
