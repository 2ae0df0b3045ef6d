// The billing parts of the admin pages in a real browser: which providers are connected and the
// address to paste into each provider's dashboard (settings), and an event page explaining a
// commission lowered by a partial refund. Screenshots at 1366x900 and 390x844.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import { charge, customer, deliver, invoice, stripeEvent, WEBHOOK_SECRET } from '../billing/fixtures';
import { referredUser } from '../support/chain';
import type { TestService } from '../support/service';
import { screenshot, startWithAdmin } from './browser';

setDefaultTimeout(30_000);

const ADMIN = 'billing-admin@example.com';
const LAPTOP = { width: 1366, height: 900 };
const PHONE = { width: 390, height: 844 };

let svc: TestService;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  ({ svc, browser, page } = await startWithAdmin({ ADMIN_EMAILS: ADMIN, STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET, LEMONSQUEEZY_WEBHOOK_SECRET: 'ls-secret-for-tests' }, ADMIN));
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

const text = async (selector: string) => ((await page.textContent(selector)) ?? '').replace(/\s+/g, ' ').trim();

describe('overview: the billing step of the setup checklist', () => {
  test('is ticked when a provider is connected', async () => {
    // first: once the other steps are done too, the finished checklist goes away
    await page.goto(`${svc.url}/admin`);
    expect(await page.getAttribute('#step-billing', 'data-done')).toBe('true');
  });
});

describe('settings: billing providers', () => {
  test('before anything arrived: connected providers, the addresses to paste, nothing received', async () => {
    await page.goto(`${svc.url}/admin/settings`);
    expect(await text('#provider-stripe h3')).toBe('Stripe Connected');
    expect(await text('#provider-lemonsqueezy h3')).toBe('Lemon Squeezy Connected');
    expect(await text('#provider-paddle h3')).toBe('Paddle Billing Not connected');
    expect(await page.inputValue('#hook-stripe')).toBe(`${svc.config.baseUrl}/webhooks/stripe`);
    expect(await page.inputValue('#hook-paddle')).toBe(`${svc.config.baseUrl}/webhooks/paddle`);
    expect(await text('#provider-paddle .facts')).toContain('PADDLE_WEBHOOK_SECRET is not set.');
    expect(await text('#provider-stripe .facts')).toContain('invoice.paid');
    expect(await text('#provider-stripe .facts')).toContain('Nothing yet.');
  });

  test('after a payment and a partial refund: what arrived, per provider', async () => {
    await referredUser(svc, { rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 20 }], userId: 'u_settings' });
    await deliver(svc.url, stripeEvent('customer.updated', customer('cus_settings', 'u_settings')));
    await deliver(svc.url, stripeEvent('invoice.paid', invoice('in_settings', 'cus_settings', 10000, { paymentIntent: 'pi_settings' })));
    await deliver(svc.url, stripeEvent('charge.refunded', charge('ch_settings', 'pi_settings', 10000, 2500)));
    await page.goto(`${svc.url}/admin/settings`);
    expect(await text('#provider-stripe dd:last-of-type')).toMatch(/^1 conversion, the latest \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC; 1 refund or dispute$/);
    expect(await text('#provider-lemonsqueezy .facts')).toContain('Nothing yet.');
    await screenshot(page, 'billing-settings-laptop');
    await page.setViewportSize(PHONE);
    await screenshot(page, 'billing-settings-phone');
    // nothing wider than the phone
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    await page.setViewportSize(LAPTOP);
  });

});

describe('event page: a commission lowered by a partial refund', () => {
  test('shows the amount change, why and by whom', async () => {
    const [event] = await svc.sql<{ id: string }[]>`select id from events where user_id = 'u_settings' and type = 'invoice_paid'`;
    await page.goto(`${svc.url}/admin/events/${event!.id}`);
    const row = await text('#amount-changes tbody tr');
    expect(row).toContain('20.00 USD');
    expect(row).toContain('15.00 USD');
    expect(row).toContain('partial refund: 25.00 of 100.00 USD refunded');
    expect(row).toContain('provider:stripe');
    await screenshot(page, 'billing-event-laptop');
    await page.setViewportSize(PHONE);
    await screenshot(page, 'billing-event-phone');
    await page.setViewportSize(LAPTOP);
  });
});

describe('settings: copying', () => {
  test('Copy puts the webhook address on the clipboard', async () => {
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: svc.url });
    await page.goto(`${svc.url}/admin/settings`);
    await page.click('#provider-stripe button[data-copy]');
    await page.waitForFunction(() => document.querySelector('#provider-stripe button[data-copy]')?.textContent?.trim() === 'Copied');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`${svc.config.baseUrl}/webhooks/stripe`);
  });
});
