// The admin's Stripe coupon field for a campaign's codes (shown only with STRIPE_SECRET_KEY), in a
// real browser against a local stand-in for Stripe's API: saving the coupon, creating a synced code
// from the campaign page, and Stripe's refusal shown on the form with nothing created.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import { startService, type TestService } from '../support/service';
import { invitePartner, launchBrowser, screenshot, signedInAdmin } from './browser';

setDefaultTimeout(30_000);

const ADMIN = 'boss@example.com';
let svc: TestService;
let fake: ReturnType<typeof Bun.serve>;
let browser: Browser;
let page: Page;
let campaignId: string;
let refuseNext = false;
const created: Record<string, string>[] = [];

beforeAll(async () => {
  fake = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(request) {
      const form = Object.fromEntries(new URLSearchParams(await request.text()));
      if (refuseNext) {
        refuseNext = false;
        return Response.json({ error: { type: 'invalid_request_error', message: 'An active promotion code with this code already exists.' } }, { status: 400 });
      }
      created.push(form);
      return Response.json({ id: `promo_web_${created.length}`, object: 'promotion_code', code: form.code, active: true });
    },
  });
  svc = await startService({ ADMIN_EMAILS: ADMIN, STRIPE_SECRET_KEY: 'sk_test_web', STRIPE_API_URL: `http://127.0.0.1:${fake.port}` });
  browser = await launchBrowser();
  campaignId = (await svc.api('POST', '/v1/campaigns', { body: { name: 'Pro plan', destinationUrl: 'https://app.example.com/', currency: 'USD' } })).body.id;
  await invitePartner(svc, { email: 'host@example.com', name: 'Hannah Host', campaignIds: [campaignId] });
  ({ page } = await signedInAdmin(svc, browser, ADMIN));
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
  fake?.stop(true);
});

const coupon = async () => (await svc.sql`select stripe_coupon_id from campaigns where id = ${campaignId}`)[0]!.stripe_coupon_id;

describe('Stripe coupon of a campaign', () => {
  test('a bad id is refused beside the field and changes nothing; a good one is saved', async () => {
    await page.goto(`${svc.url}/admin/campaigns/${campaignId}`);
    expect(await page.textContent('#stripe-coupon-title')).toBe('Sync to Stripe');
    await page.fill('input[name=stripeCouponId]', 'co show');
    await page.click('button:has-text("Save coupon")');
    expect(await page.textContent('#f-stripeCouponId-error')).toContain('letters, digits');
    expect(await coupon()).toBeNull();
    await page.fill('input[name=stripeCouponId]', 'co_show20');
    await page.click('button:has-text("Save coupon")');
    expect(await page.textContent('#codes .notice.ok')).toContain('Stripe coupon saved');
    expect(await coupon()).toBe('co_show20');
    expect(await page.inputValue('input[name=stripeCouponId]')).toBe('co_show20');
  });

  test('a code created on the page is created in Stripe too; a refusal shows on the form and creates nothing', async () => {
    await page.goto(`${svc.url}/admin/campaigns/${campaignId}`);
    await page.fill('#codes input[name=code]', 'SYNCED20');
    await page.click('#codes button:has-text("Create code")');
    expect(await page.textContent('#codes .notice.ok')).toContain('Promotion code created');
    expect(created.at(-1)).toMatchObject({ code: 'SYNCED20', 'promotion[coupon]': 'co_show20' });
    expect((await svc.sql`select stripe_promotion_code_id from promotion_codes where code = 'SYNCED20'`)[0]!.stripe_promotion_code_id).toMatch(/^promo_web_/);

    refuseNext = true;
    await page.fill('#codes input[name=code]', 'REFUSED20');
    await page.click('#codes button:has-text("Create code")');
    expect(await page.textContent('.code-form .notice.error')).toContain('already exists');
    expect(await page.inputValue('input[name=code]')).toBe('REFUSED20');
    expect(await svc.sql`select 1 from promotion_codes where code = 'REFUSED20'`).toHaveLength(0);
    await screenshot(page, 'codes-stripe-refused-1366');
  });
});
