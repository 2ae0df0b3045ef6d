// The payout rails in the browser: a partner chooses PayPal, then Stripe (onboarding at the Stripe
// stand-in, back to the return page), and sees where the next payout goes and when; the admin sees
// the method on the partner page, the run preview by rail with who is held and why, the upload
// buttons, and a payout's rail, reference and answer. Screenshots at 1366 and 390 px.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { deliver, stripeEvent, WEBHOOK_SECRET } from '../billing/fixtures';
import { insertCampaign, insertCommission } from '../support/lifecycle-fixtures';
import { startService, type TestService } from '../support/service';
import { startStripeStandIn, type StripeStandIn } from '../support/stripe-standin';
import { invitePartner, launchBrowser, screenshot, signInThroughPortal } from './browser';

const ADMIN = 'boss@example.com';
let svc: TestService;
let browser: Browser;
let stripe: StripeStandIn;

beforeAll(async () => {
  stripe = await startStripeStandIn();
  [svc, browser] = await Promise.all([
    startService({ ADMIN_EMAILS: ADMIN, STRIPE_SECRET_KEY: 'sk_test_web', STRIPE_API_URL: stripe.url, STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET }),
    launchBrowser(),
  ]);
}, 60_000);
afterAll(async () => {
  await browser.close();
  await svc.stop();
  stripe.stop();
});

async function context(width: number): Promise<BrowserContext> {
  return browser.newContext(width < 500 ? { viewport: { width, height: 844 }, isMobile: true, hasTouch: true } : { viewport: { width, height: 900 } });
}

async function adminContext(width: number): Promise<BrowserContext> {
  const c = await context(width);
  const p = await c.newPage();
  await p.goto(`${svc.url}/admin/sign-in`);
  await p.fill('input[name=email]', ADMIN);
  await p.click('button[type=submit]');
  await p.waitForSelector('.notice.ok');
  await p.goto(await svc.mail.magicLink(ADMIN));
  await p.close();
  return c;
}

test('a partner chooses PayPal, then Stripe through onboarding; the admin sees methods, holds and rails', async () => {
  const campaignId = await insertCampaign(svc.sql, { currency: 'USD' });
  const email = 'paula@example.com';
  const partnerId = await invitePartner(svc, { email, name: 'Paula Payee' });
  await insertCommission(svc.sql, { partnerId, campaignId, amount: 4200, status: 'approved' });

  for (const width of [1366, 390]) {
    const c = await context(width);
    const page: Page = await c.newPage();
    await signInThroughPortal(svc, page, email);
    await page.goto(`${svc.url}/portal/payouts`);
    if (width === 1366) expect(await page.textContent('#payout-method-summary')).toContain('You have not chosen how you are paid');
    await page.click('text=Change how you are paid');
    await page.check('input[name=type][value=paypal]');
    await page.fill('input[name=email]', width === 1366 ? 'paula.pp@example.com' : 'paula.pp2@example.com');
    await page.click('#payout-method button[type=submit]');
    await page.waitForSelector('.notice.ok');
    const sentence = (await page.textContent('#next-payout'))!;
    expect(sentence).toContain('Your next payout goes by PayPal to paula.pp');
    expect(sentence).toContain('Payouts wait until');
    await screenshot(page, `payout-method-paypal-${width}`);
    await c.close();
  }
  expect((await svc.api('GET', `/v1/partners/${partnerId}/payout-method`)).body).toMatchObject({ type: 'paypal', email: 'p***@example.com' });

  // Stripe: off to Stripe's onboarding (the stand-in's address), back through the return page
  const c = await context(1366);
  const page = await c.newPage();
  await signInThroughPortal(svc, page, email);
  await page.goto(`${svc.url}/portal/payouts/method`);
  await page.check('input[name=type][value=stripe]');
  let onboarding = '';
  await page.route('https://connect.stripe.test/**', (route) => {
    onboarding = route.request().url();
    return route.fulfill({ status: 200, contentType: 'text/html', body: '<h1>Stripe onboarding</h1>' });
  });
  await page.click('#payout-method button[type=submit]');
  await page.waitForSelector('.notice.ok');
  expect(await page.textContent('.notice.ok')).toContain('Continue the setup on Stripe');
  await screenshot(page, 'payout-method-stripe-start-1366');
  await page.click('text=Continue Stripe setup');
  await page.waitForSelector('h1:has-text("Stripe onboarding")');
  expect(onboarding).toContain('/setup/e/acct_');
  const accountId = (await svc.api('GET', `/v1/partners/${partnerId}/payout-method`)).body.stripeAccountId as string;
  await page.goto(`${svc.url}/portal/payouts/stripe/return`);
  expect(await page.textContent('.notice')).toContain('Stripe has not finished');
  expect(await page.textContent('#next-payout')).toContain('not ready');
  await screenshot(page, 'payout-method-stripe-pending-1366');
  stripe.accounts.get(accountId)!.payoutsEnabled = true;
  await page.goto(`${svc.url}/portal/payouts/stripe/return`);
  expect(await page.textContent('.notice.ok')).toContain('Your Stripe account is ready');
  await c.close();

  // the admin: the partner's method, the run preview with the hold, upload buttons
  for (const width of [1366, 390]) {
    const admin = await adminContext(width);
    const p = await admin.newPage();
    await p.goto(`${svc.url}/admin/partners/${partnerId}`);
    const method = (await p.textContent('#payout-method'))!;
    expect(method).toContain(`Stripe (${accountId}), ready`);
    expect(method).toContain('held until');
    await screenshot(p, `payout-rails-admin-partner-${width}`);
    await p.goto(`${svc.url}/admin/payouts/run`);
    expect(await p.textContent('#run-held')).toContain('Paula Payee: 42.00');
    await screenshot(p, `payout-rails-admin-run-held-${width}`);
    await p.goto(`${svc.url}/admin/payouts`);
    expect(await p.isVisible('#csv-wise')).toBe(true);
    expect(await p.isVisible('#csv-paypal')).toBe(true);
    await admin.close();
  }

  // the hold passes: the run pays through Stripe; the payout page shows rail, reference and answer
  await svc.sql`update payout_methods set held_until = null where partner_id = ${partnerId}`;
  await deliver(svc.url, stripeEvent('account.updated', { id: accountId, object: 'account', payouts_enabled: true }));
  const admin = await adminContext(1366);
  const p = await admin.newPage();
  await p.goto(`${svc.url}/admin/payouts/run`);
  expect(await p.textContent('#run-rails')).toContain('By rail: Stripe 1 payout');
  await screenshot(p, 'payout-rails-admin-run-1366');
  const run = await svc.api('POST', '/v1/payouts/run');
  const payout = run.body.payouts.find((x: { partnerId: string }) => x.partnerId === partnerId);
  expect(payout).toMatchObject({ status: 'paid', provider: 'stripe' });
  await p.goto(`${svc.url}/admin/payouts/${payout.id}`);
  expect(await p.textContent('#payout-rail')).toContain('Stripe');
  expect(await p.textContent('#payout-answer')).toContain(`transfer ${payout.providerReference} to ${accountId}`);
  await screenshot(p, 'payout-rails-admin-payout-1366');
  await admin.close();
}, 120_000);
