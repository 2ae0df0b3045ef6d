// The payout run when payouts are due but every one is held by the partner's payout method (a change
// within PAYOUT_METHOD_HOLD_HOURS, a Stripe account not ready): the run page and the payouts list do
// not say "Nothing is due"; they say how many partners and how much are held and why, and link to
// who. Once one partner can be paid, the list says what is due and how many are held. Chromium,
// screenshots at 1366 and 390 px.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import type { Browser } from 'playwright-core';
import { insertCampaign, insertCommission } from '../support/lifecycle-fixtures';
import { startService, type TestService } from '../support/service';
import { startStripeStandIn, type StripeStandIn } from '../support/stripe-standin';
import { invitePartner, launchBrowser, screenshot, signedInAdmin } from './browser';

const ADMIN = 'held@example.com';
let svc: TestService;
let browser: Browser;
let stripe: StripeStandIn;
let paula: string;
let stan: string;

beforeAll(async () => {
  stripe = await startStripeStandIn();
  [svc, browser] = await Promise.all([
    startService({ ADMIN_EMAILS: ADMIN, STRIPE_SECRET_KEY: 'sk_test_held', STRIPE_API_URL: stripe.url, PAYOUT_METHOD_HOLD_HOURS: '24' }),
    launchBrowser(),
  ]);
  const usd = await insertCampaign(svc.sql, { currency: 'USD' });
  const eur = await insertCampaign(svc.sql, { currency: 'EUR' });
  // Paula just changed to PayPal (held for 24 hours); Stan chose Stripe and has not finished onboarding
  paula = await invitePartner(svc, { email: 'paula@example.com', name: 'Paula <Payee>' });
  stan = await invitePartner(svc, { email: 'stan@example.com', name: 'Stan Stripe' });
  expect((await svc.api('PUT', `/v1/partners/${paula}/payout-method`, { body: { type: 'paypal', email: 'paula.pp@example.com' } })).status).toBe(200);
  await svc.sql`
    insert into payout_methods (partner_id, type, stripe_account_id, ready, changed_at, held_until, changed_by)
    values (${stan}, 'stripe', 'acct_notready0001', false, now() - interval '3 days', null, 'test')`;
  await insertCommission(svc.sql, { partnerId: paula, campaignId: usd, amount: 4200, status: 'approved' });
  await insertCommission(svc.sql, { partnerId: stan, campaignId: eur, amount: 1000, currency: 'EUR', status: 'approved' });
}, 60_000);
afterAll(async () => {
  await browser.close();
  await svc.stop();
  stripe.stop();
});

/** A signed-in admin's browser at this width. */
const admin = (width: number) => signedInAdmin(svc, browser, ADMIN, width);

const WHY = 'Why: payout method changed (1 partner); Stripe account not ready: onboarding not finished (1 partner)';

test('every due payout held: the run page and the list say how many, how much and why, and link to who', async () => {
  for (const width of [1366, 390]) {
    const { context, page } = await admin(width);
    await page.goto(`${svc.url}/admin/payouts/run`);
    const body = (await page.textContent('main'))!;
    expect(body).not.toContain('Nothing is due');
    expect(await page.isVisible('#run-nothing')).toBe(false);
    const said = (await page.textContent('#run-all-held'))!;
    expect(said).toContain('Nothing can be paid now: 2 partners are owed 10.00 EUR + 42.00 USD, but every one is held by their payout method');
    expect(said).toContain(WHY);
    // no button that would pay nothing
    expect(await page.locator('form[action="/admin/payouts/run"] button[type=submit]').count()).toBe(0);
    await page.click('#run-all-held a');
    expect(page.url()).toEndWith('/admin/payouts/run#run-held');
    expect(await page.isVisible('#run-held')).toBe(true);
    const paulaLine = (await page.textContent(`#run-held [data-held="${paula}"]`))!;
    expect(paulaLine).toContain('Paula <Payee>: 42.00 USD');
    expect(paulaLine).toContain('payout method changed; held until');
    expect(await page.textContent(`#run-held [data-held="${stan}"]`)).toContain('Stan Stripe: 10.00 EUR — Stripe account not ready: onboarding not finished');
    expect(await page.getAttribute(`#run-held [data-held="${stan}"] a`, 'href')).toBe(`/admin/partners/${stan}`);
    await screenshot(page, `payouts-all-held-run-${width}`);

    await page.goto(`${svc.url}/admin/payouts`);
    const hint = (await page.textContent('#next-run'))!;
    expect(hint).not.toContain('Nothing is due');
    expect(hint).toContain('Nothing can be paid now: 2 partners are owed');
    expect(hint).toContain(WHY);
    await screenshot(page, `payouts-all-held-list-${width}`);
    await page.click('#next-run a');
    await page.waitForURL(/\/admin\/payouts\/run#run-held$/);
    expect(await page.isVisible(`#run-held [data-held="${paula}"]`)).toBe(true);
    await context.close();
  }
}, 120_000);

test('one partner payable, one held: the list says what is due and links to the held one', async () => {
  await svc.sql`update payout_methods set held_until = null where partner_id = ${paula}`;
  const { context, page } = await admin(1366);
  await page.goto(`${svc.url}/admin/payouts`);
  const hint = (await page.textContent('#next-run'))!;
  expect(hint).toContain('Due now: 42.00');
  expect(hint).toContain('1 partner held');
  expect(await page.getAttribute('#next-run a', 'href')).toBe('/admin/payouts/run#run-held');
  await page.goto(`${svc.url}/admin/payouts/run`);
  expect(await page.isVisible('#run-all-held')).toBe(false);
  expect(await page.textContent('#run-held')).toContain('left for a later run');
  await context.close();
}, 60_000);
