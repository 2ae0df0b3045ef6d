// The whole program from the browser, both faces: the admin signs in by the emailed link, creates a
// campaign with a rule and invites a partner; the partner signs in and creates a link; a visitor
// follows it and pays; both dashboards show the commission; the admin approves it, runs a payout
// and marks it paid; the partner sees it paid. No API call but the visitor's and the app's own.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import { BROWSER_UA, clickStored } from '../support/chain';
import { startService, type TestService } from '../support/service';
import { launchBrowser, newPage, screenshot } from './browser';

// a browser round trip per step; a loaded CI machine is slow, not broken
setDefaultTimeout(30_000);

const ADMIN = 'owner@example.com';
const PARTNER = 'lin@example.com';
let svc: TestService;
let browser: Browser;
let admin: Page;
let partner: Page;

beforeAll(async () => {
  [svc, browser] = await Promise.all([startService({ ADMIN_EMAILS: ADMIN }), launchBrowser()]);
  admin = (await newPage(browser)).page;
  partner = (await newPage(browser)).page;
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

describe('the program, run from the browser', () => {
  test('the admin signs in through the emailed link', async () => {
    await admin.goto(`${svc.url}/admin`);
    await admin.fill('input[name=email]', ADMIN);
    await admin.click('button[type=submit]');
    await admin.waitForSelector('.notice.ok');
    await admin.goto(await svc.mail.magicLink(ADMIN));
    expect(await admin.textContent('h1')).toBe('Overview');
  });

  test('creates a campaign with a 20% rule on invoice_paid, then invites a partner', async () => {
    await admin.goto(`${svc.url}/admin/campaigns`);
    await admin.fill('input[name=name]', 'Pro plan');
    await admin.fill('input[name=destinationUrl]', 'https://app.example.com/signup');
    await admin.fill('input[name=currency]', 'USD');
    await admin.selectOption('select[name=r0_eventPick]', 'invoice_paid');
    await admin.fill('input[name=r0_percent]', '20');
    await admin.click('button:has-text("Create campaign")');
    expect(await admin.textContent('.notice.ok')).toBe('Campaign created.');
    await screenshot(admin, 'program-admin-campaign');

    await admin.goto(`${svc.url}/admin/partners`);
    await admin.fill('input[name=name]', 'Lin');
    await admin.fill('input[name=email]', PARTNER);
    await admin.click('button:has-text("Create partner")');
    expect(await admin.textContent('.notice.ok')).toBe('Partner created.');
    expect(await admin.textContent('.facts')).toContain('Pro plan');
  });

  test('the partner accepts the invite and creates a link', async () => {
    await partner.goto(await svc.mail.magicLink(PARTNER));
    expect(new URL(partner.url()).pathname).toBe('/portal');
    await partner.goto(`${svc.url}/portal/links`);
    await partner.fill('input[name=slug]', 'lin-pro');
    await partner.click('form[action="/portal/links"] button[type=submit]');
    expect(await partner.textContent('.notice.ok')).toContain('lin-pro');
  });

  test('a visitor follows the link, is identified and pays; both dashboards show the commission', async () => {
    const res = await fetch(`${svc.url}/r/lin-pro`, { redirect: 'manual', headers: { 'user-agent': BROWSER_UA } });
    expect(res.status).toBe(302);
    const clickId = new URL(res.headers.get('location')!).searchParams.get('pp_click')!;
    await clickStored(svc, clickId);
    const pk = await svc.publishableKey();
    expect((await svc.api('POST', '/v1/identify', { key: pk, body: { userId: 'cust_9', clickIds: [clickId] } })).status).toBe(200);
    expect((await svc.api('POST', '/v1/events', { body: { userId: 'cust_9', type: 'invoice_paid', amount: 5000, currency: 'USD' } })).status).toBe(201);

    await partner.goto(`${svc.url}/portal`);
    expect(await partner.textContent('#money tr[data-currency="USD"] [data-pending]')).toBe('10.00 USD');
    await screenshot(partner, 'program-partner-dashboard');
    await admin.goto(`${svc.url}/admin`);
    expect(await admin.textContent('#kpi-commissions .value')).toBe('10.00 USD');
    expect(await admin.textContent('#money-chart .legend')).toContain('Revenue: 50.00 USD');
    await screenshot(admin, 'program-admin-overview');
  });

  test('the admin approves it, runs a payout and marks it paid; the partner sees it paid', async () => {
    await admin.goto(`${svc.url}/admin/commissions?status=accrued`);
    await admin.check('#commissions input[name=ids]');
    await admin.click('[data-bulk-bar] button:has-text("Approve…")');
    await admin.click('button:has-text("Approve 1 commission (10.00 USD)")');
    expect(await admin.textContent('.notice.ok')).toBe('Approved 1 commission.');

    await admin.goto(`${svc.url}/admin/payouts`);
    await admin.click('a:has-text("Run payouts now…")');
    await admin.click('dialog[open] button:has-text("Pay 10.00 USD to 1 partner")');
    expect(await admin.textContent('.notice.ok')).toBe('Payout run finished: 1 payout created.');
    const pending = admin.locator('#payouts tbody tr').first();
    // a pending payout is marked paid from its row's menu, on its confirm page
    if ((await pending.locator('button.more').count()) > 0) {
      await pending.locator('button.more').click();
      await admin.click('[popover]:popover-open a:has-text("Mark paid")');
      await admin.click('dialog[open] button:has-text("Mark 10.00 USD paid")');
      expect(await admin.textContent('.notice.ok')).toBe('Payout marked paid.');
      await admin.goto(`${svc.url}/admin/payouts`);
    }
    expect(await admin.locator('#payouts tbody tr .badge').first().textContent()).toBe('Paid');
    await screenshot(admin, 'program-admin-payouts');

    await partner.goto(`${svc.url}/portal/commissions`);
    expect(await partner.textContent('#commissions tbody tr .badge')).toBe('Paid');
    await partner.goto(`${svc.url}/portal/payouts`);
    expect(await partner.textContent('#payouts tbody tr')).toContain('10.00 USD');
    expect(await partner.textContent('#payouts tbody tr .badge')).toBe('Paid');
    await screenshot(partner, 'program-partner-payouts');
  });
});
