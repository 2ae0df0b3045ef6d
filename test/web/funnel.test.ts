// The funnel and converted totals in a real browser (issue 31): the overview, a partner's page, a
// campaign's, a link's traffic page and the portal show clicks -> leads -> customers -> revenue
// with the rates between steps as text; with REPORTING_CURRENCY, money in several currencies shows
// its converted total labelled "converted to EUR at <date> rates" beside each currency's figure;
// a partner sees only its own funnel (1366 and 390 px, and with scripts off).
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import { campaign, partner } from '../support/chain';
import { click as clickAt, daysAgo, identify } from '../support/fixtures';
import { startService, type TestService } from '../support/service';
import { ARTIFACTS, launchBrowser, newPage, screenshot, signInAsAdmin, signInThroughPortal } from './browser';

setDefaultTimeout(60_000);

const ADMIN = 'boss@example.com';
const isoDay = (d: Date) => d.toISOString().slice(0, 10);

let svc: TestService;
let browser: Browser;
let admin: Page;
let usd: string;
let eur: string;
let ann: string;
let bob: string;

async function event(body: Record<string, unknown>): Promise<void> {
  const res = await svc.api('POST', '/v1/events', { body });
  expect(res.status).toBe(201);
}

/** A click some days ago that becomes a lead and then a customer with a sale. */
async function customer(partnerId: string, campaignId: string, userId: string, days: number, sale: { amount: number; currency: string } | null) {
  const c = await clickAt(svc.sql, { partnerId, campaignId, at: daysAgo(days) });
  await identify(svc.sql, userId, [c]);
  await event({ userId, type: 'signup', occurredAt: daysAgo(days - 0.1).toISOString() });
  if (sale) await event({ userId, type: 'purchase', ...sale, occurredAt: daysAgo(days - 0.2).toISOString() });
}

/** The whole page, and the funnel alone up close. */
async function shots(page: Page, name: string) {
  await screenshot(page, name);
  await page.locator('#funnel').screenshot({ path: `${ARTIFACTS}${name}-funnel.png` });
}

/** The funnel as a reader sees it: each step's number and rate text, and the overall line. */
async function funnelText(page: Page) {
  const step = async (name: string) => ({
    value: (await page.textContent(`#funnel [data-step=${name}] .funnel-value`))!.trim(),
    rate: (await page.textContent(`#funnel [data-step=${name}] .funnel-rate`))!.trim(),
  });
  return {
    clicks: await step('clicks'),
    leads: await step('leads'),
    customers: await step('customers'),
    revenue: await step('revenue'),
    overall: (await page.textContent('#funnel-overall'))!.trim(),
  };
}

beforeAll(async () => {
  [svc, browser] = await Promise.all([startService({ ADMIN_EMAILS: ADMIN, REPORTING_CURRENCY: 'EUR' }), launchBrowser()]);
  const rules = [{ eventType: 'purchase', kind: 'percent', percent: 10 }];
  usd = await campaign(svc, { name: 'Pro plan', rules });
  eur = await campaign(svc, { name: 'Euro plan', rules, currency: 'EUR' });
  ann = await partner(svc, 'ann@example.com', [usd, eur]);
  bob = await partner(svc, 'bob@example.com', [usd]);
  // a rate for every day of the last two weeks: 1 EUR = 1.25 USD
  for (let d = 0; d <= 14; d++) {
    const res = await svc.api('PUT', '/v1/fx-rates', { body: { date: isoDay(daysAgo(d)), base: 'EUR', rates: { USD: 1.25 } } });
    expect(res.status).toBe(200);
  }
  // Ann: 4 clicks, 3 leads, 2 customers paying $100.00 and €50.00
  await customer(ann, usd, 'ann-1', 5, { amount: 10000, currency: 'USD' });
  await customer(ann, eur, 'ann-2', 3, { amount: 5000, currency: 'EUR' });
  await customer(ann, usd, 'ann-3', 2, null);
  await clickAt(svc.sql, { partnerId: ann, campaignId: usd });
  // Bob: 2 clicks, 1 lead who buys for $500.00: never in Ann's portal
  await customer(bob, usd, 'bob-1', 4, { amount: 50000, currency: 'USD' });
  await clickAt(svc.sql, { partnerId: bob, campaignId: usd });

  admin = (await newPage(browser)).page;
  await admin.setViewportSize({ width: 1366, height: 900 });
  await signInAsAdmin(svc, admin, ADMIN);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

describe('admin', () => {
  test('the overview: the program funnel, its rates, revenue converted to EUR with each currency', async () => {
    await admin.goto(`${svc.url}/admin?range=30d`);
    const f = await funnelText(admin);
    expect(f.clicks.value).toBe('6');
    expect(f.leads).toEqual({ value: '4', rate: '66.7% of clicks' });
    // a customer's referral starts at its first attributed event: the signup
    expect(f.customers).toEqual({ value: '4', rate: '100.0% of leads' });
    // 600.00 USD at 1.25 = 480.00 EUR, plus 50.00 EUR
    expect(f.revenue.value).toBe('530.00 EUR');
    expect(await admin.textContent('#funnel .funnel-converted')).toContain('converted to EUR at');
    expect(await admin.$$eval('#funnel .funnel-currencies li', (li) => li.map((x) => x.textContent!.trim()))).toEqual(['600.00 USD', '50.00 EUR']);
    expect(f.overall).toBe('Over the range: 66.7% of clicks became customers (4 of 6).');
    await shots(admin, 'funnel-overview-1366');
  });

  test("a partner's page: Ann's funnel, and converted totals beside the per-currency money", async () => {
    await admin.goto(`${svc.url}/admin/partners/${ann}?range=30d`);
    const f = await funnelText(admin);
    expect([f.clicks.value, f.leads.value, f.customers.value]).toEqual(['4', '3', '3']);
    expect(f.leads.rate).toBe('75.0% of clicks');
    expect(f.revenue.value).toBe('130.00 EUR');
    const revenue = (await admin.textContent('#converted-revenue'))!;
    expect(revenue).toMatch(/Revenue: 130\.00 EUR converted to EUR at \d{4}-\d{2}-\d{2} rates/);
    expect(revenue).toContain('100.00 USD');
    expect(revenue).toContain('50.00 EUR');
    // commissions earned: 10.00 USD -> 8.00 EUR, plus 5.00 EUR; the money table stays per currency
    expect(await admin.textContent('#converted-commissions .converted-value')).toBe('13.00 EUR');
    expect(await admin.$$eval('#money tbody tr', (trs) => trs.map((tr) => tr.getAttribute('data-currency')))).toEqual(['EUR', 'USD']);
    await shots(admin, 'funnel-partner-1366');
  });

  test("a campaign's page and a link's traffic page: their own funnels", async () => {
    await admin.goto(`${svc.url}/admin/campaigns/${eur}?range=30d`);
    let f = await funnelText(admin);
    expect([f.clicks.value, f.leads.value, f.customers.value, f.revenue.value]).toEqual(['1', '1', '1', '50.00 EUR']);
    const [link] = await svc.sql<{ id: string }[]>`select id from links where partner_id = ${bob}`;
    await admin.goto(`${svc.url}/admin/traffic?range=30d&linkId=${link!.id}`);
    f = await funnelText(admin);
    expect([f.clicks.value, f.leads.value, f.customers.value]).toEqual(['2', '1', '1']);
    expect(f.revenue.value).toBe('400.00 EUR');
  });

  test('at 390 px the steps stack two by two and every number stays readable', async () => {
    const { context, page } = await newPage(browser, { phone: true });
    await signInAsAdmin(svc, page, ADMIN);
    await page.goto(`${svc.url}/admin?range=30d`);
    expect((await funnelText(page)).clicks.value).toBe('6');
    await shots(page, 'funnel-overview-390');
    await page.goto(`${svc.url}/admin/partners/${ann}?range=30d`);
    await shots(page, 'funnel-partner-390');
    await context.close();
  });
});

describe('portal', () => {
  test("Ann sees her own funnel and earnings converted, never Bob's numbers", async () => {
    const { context, page } = await newPage(browser);
    await page.setViewportSize({ width: 1366, height: 900 });
    await signInThroughPortal(svc, page, 'ann@example.com');
    await page.goto(`${svc.url}/portal?range=30d`);
    const f = await funnelText(page);
    expect([f.clicks.value, f.leads.value, f.customers.value, f.revenue.value]).toEqual(['4', '3', '3', '130.00 EUR']);
    const body = (await page.textContent('main'))!;
    expect(body).not.toContain('500.00 USD');
    expect(body).not.toContain('400.00 EUR');
    expect(await page.textContent('#converted-earnings .converted-value')).toBe('13.00 EUR');
    expect(await page.textContent('#converted-earnings')).toMatch(/converted to EUR at \d{4}-\d{2}-\d{2}/);
    await shots(page, 'funnel-portal-1366');
    // another partner's link is not found, and its funnel never shows
    const [link] = await svc.sql<{ id: string }[]>`select id from links where partner_id = ${bob}`;
    const res = await page.goto(`${svc.url}/portal/traffic?range=30d&linkId=${link!.id}`);
    expect(res!.status()).toBe(404);
    expect(await page.$('#funnel')).toBeNull();
    await page.goto(`${svc.url}/portal/traffic?range=30d`);
    expect((await funnelText(page)).clicks.value).toBe('4');
    await context.close();
  });

  test('at 390 px, with scripts off: the same numbers as text', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, javaScriptEnabled: false });
    const page = await context.newPage();
    await signInThroughPortal(svc, page, 'ann@example.com');
    await page.goto(`${svc.url}/portal?range=30d`);
    const f = await funnelText(page);
    expect([f.clicks.value, f.leads.value, f.customers.value, f.revenue.value]).toEqual(['4', '3', '3', '130.00 EUR']);
    await shots(page, 'funnel-portal-390');
    await context.close();
  });
});
