// The partner portal's home in a real browser (issue 12): its numbers equal the API's, the terms are
// the campaign's rules in words (the partner's snapshot's when it has one), the next payout estimate is
// what a payout run then pays, and the lists say what comes next with "1–N of total" footers.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import type { Rule } from '../../src/modules/campaigns/rules';
import { describeRule } from '../../src/web/terms';
import { buildDestination } from '../../src/web/portal/builder';
import { describeSchedule, nextPayoutRun, payoutTermsText } from '../../src/web/portal/terms';
import { BROWSER_UA, campaign, clickStored } from '../support/chain';
import { startService, type TestService } from '../support/service';
import { launchBrowser, screenshot } from './browser';

setDefaultTimeout(30_000);

const USD_RULES: Rule[] = [
  { eventType: 'invoice_paid', kind: 'percent', percent: 20 },
  { eventType: 'signup', kind: 'flat', amount: '2.50', maxOccurrences: 1 },
];
const EUR_RULES: Rule[] = [{ eventType: 'invoice_paid', kind: 'percent', percent: 10, durationDays: 365 }];
const SNAPSHOT_RULES: Rule[] = [{ eventType: 'invoice_paid', kind: 'percent', percent: 30 }];

let svc: TestService;
let browser: Browser;
let page: Page;
let usd: string;
let eur: string;
let ann: string;
let annKey: string;
let sam: string;

type ApiCommission = { id: string; status: string; amount: string; currency: string; createdAt: string };

async function signIn(email: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1366, height: 900 } });
  const p = await context.newPage();
  await p.goto(await svc.mail.magicLink(email));
  expect(new URL(p.url()).pathname).toBe('/portal');
  return p;
}

/** A visitor follows a new link of the partner's, is identified as `userId`, and does `events`. */
async function customer(partnerId: string, campaignId: string, userId: string, events: { type: string; amount?: number; currency?: string }[]) {
  const link = await svc.api('POST', '/v1/links', { body: { partnerId, campaignId } });
  expect(link.status).toBe(201);
  const res = await fetch(`${svc.url}/r/${link.body.slug}`, { redirect: 'manual', headers: { 'user-agent': BROWSER_UA } });
  const clickId = new URL(res.headers.get('location')!).searchParams.get('pp_click')!;
  await clickStored(svc, clickId);
  expect((await svc.api('POST', '/v1/identify', { key: await svc.publishableKey(), body: { userId, clickIds: [clickId] } })).status).toBe(200);
  for (const e of events) expect((await svc.api('POST', '/v1/events', { body: { userId, ...e } })).status).toBe(201);
}

async function commissionsOf(key: string): Promise<ApiCommission[]> {
  const res = await svc.api('GET', '/v1/commissions?limit=100', { key });
  expect(res.status).toBe(200);
  return res.body.commissions;
}

/** "1,234.50 USD" from a sum of the API's decimal strings (exact: cents as integers). */
function sumText(amounts: string[], currency: string): string {
  const cents = amounts.reduce((a, s) => a + BigInt(s.replace('.', '')), 0n);
  const whole = (cents / 100n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${whole}.${(cents % 100n).toString().padStart(2, '0')} ${currency}`;
}

beforeAll(async () => {
  [svc, browser] = await Promise.all([startService({ MIN_PAYOUT: '5', PAYOUT_CRON: '0 6 1 * *', HOLDBACK_DAYS: '30' }), launchBrowser()]);
  usd = await campaign(svc, { name: 'Pro plan', rules: USD_RULES, holdbackDays: 14 });
  eur = await campaign(svc, { name: 'Euro plan', currency: 'EUR', rules: EUR_RULES });
  const created = await svc.api('POST', '/v1/partners', { body: { email: 'ann@example.com', name: 'Ann Archer', campaignIds: [usd, eur] } });
  ann = created.body.id;
  annKey = await svc.partnerKey(ann);
  const snap = await svc.api('POST', '/v1/partners', {
    body: { email: 'sam@example.com', name: 'Sam Snapshot', campaignIds: [usd], commissionSnapshot: { rules: SNAPSHOT_RULES, holdbackDays: 7 } },
  });
  expect(snap.status).toBe(201);
  sam = snap.body.id;

  // Ann: 10.00 USD approved and paid, then reversed (an open clawback of 10.00); 20.00 USD approved;
  // 2.50 USD pending; 3.00 EUR approved (under the 5.00 minimum)
  await customer(ann, usd, 'u1', [{ type: 'invoice_paid', amount: 5000, currency: 'USD' }]);
  const [first] = await commissionsOf(annKey);
  expect((await svc.api('POST', `/v1/commissions/${first!.id}/approve`)).status).toBe(200);
  expect((await svc.api('POST', '/v1/payouts/run')).status).toBe(200);
  expect((await svc.api('POST', `/v1/commissions/${first!.id}/reverse`, { body: { reason: 'refund' } })).status).toBe(200);
  await customer(ann, usd, 'u2', [
    { type: 'invoice_paid', amount: 10000, currency: 'USD' },
    { type: 'signup' },
  ]);
  await customer(ann, eur, 'u3', [{ type: 'invoice_paid', amount: 3000, currency: 'EUR' }]);
  for (const c of await commissionsOf(annKey)) {
    if (c.status === 'accrued' && (c.amount === '20.00' || c.currency === 'EUR')) expect((await svc.api('POST', `/v1/commissions/${c.id}/approve`)).status).toBe(200);
  }
  page = await signIn('ann@example.com');
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

describe('portal home', () => {
  test('money per currency equals the API: pending, approved, paid, and the next payout by the run\'s rule', async () => {
    const api = await commissionsOf(annKey);
    expect(api).toHaveLength(4);
    await page.goto(`${svc.url}/portal`);
    for (const currency of ['USD', 'EUR']) {
      const of = (status: string) => sumText(api.filter((c) => c.currency === currency && c.status === status).map((c) => c.amount), currency);
      const row = page.locator(`#money tr[data-currency="${currency}"]`);
      expect(await row.locator('[data-pending]').textContent()).toBe(of('accrued'));
      expect(await row.locator('[data-approved]').textContent()).toBe(of('approved'));
      expect(await row.locator('[data-paid]').textContent()).toBe(of('paid'));
    }
    const when = nextPayoutRun('0 6 1 * *')!.toISOString().slice(0, 10);
    // 20.00 approved minus the 10.00 clawback of the reversed paid commission
    expect(await page.textContent('#money tr[data-currency="USD"] .next-payout')).toBe(`10.00 USD on ${when}`);
    expect(await page.textContent('#money tr[data-currency="EUR"] .next-payout')).toBe('Waiting: 3.00 EUR of the 5.00 EUR minimum');
    await screenshot(page, 'portal-home-1366');
  });

  test('the KPI cards equal the API over the range, with earnings per click', async () => {
    await page.goto(`${svc.url}/portal?range=30d`);
    const api = await commissionsOf(annKey);
    const earned = api.filter((c) => c.currency === 'USD' && c.status !== 'reversed').map((c) => c.amount);
    expect(await page.textContent('#kpi-earnings .value')).toBe(sumText(earned, 'USD'));
    const [clicks] = await svc.sql`select count(*)::int as n from clicks where partner_id = ${ann}`;
    expect(await page.textContent('#kpi-clicks .value')).toBe(String(clicks!.n));
    expect(await page.textContent('#kpi-conversions .value')).toBe('3'); // three customers (u2's second event is not a conversion: docs/analytics.md)
    // 22.50 USD over 3 clicks: 7.50 USD a click
    expect(clicks!.n).toBe(3);
    expect(await page.textContent('#kpi-epc .value')).toBe('7.50 USD');
    expect(await page.textContent('#kpi-earnings .change')).toBe('new vs previous 30 days');
    // the chart's total in words equals the card; one unit: money in the main currency
    expect(await page.textContent('.chart .legend')).toBe(`Earnings: ${sumText(earned, 'USD')}`);
    // a range with nothing in it says so; a broken custom range falls back with the reason shown
    await page.goto(`${svc.url}/portal?range=custom&from=2020-01-01&to=2020-01-31`);
    expect(await page.textContent('#kpi-earnings .value')).toBe('0.00 USD');
    expect(await page.textContent('.chart-empty')).toContain('No data in this period');
    const bad = await page.goto(`${svc.url}/portal?range=custom&from=2020-02-30&to=x`);
    expect(bad!.status()).toBe(200);
    expect(await page.textContent('#range-problem')).toContain('Enter both dates');
  });

  test('the terms are the campaigns\' rules in words, with holdback and the payout schedule and minimum', async () => {
    await page.goto(`${svc.url}/portal`);
    const pro = page.locator(`#terms li[data-campaign="${usd}"]`);
    const sentences = (await pro.locator('.rules li').allTextContents()).map((s) => s.replace(/\.$/, '').toLowerCase());
    expect(sentences).toEqual(USD_RULES.map((r) => describeRule(r, 'USD').toLowerCase()));
    expect(await pro.locator('.holdback').textContent()).toBe('Commissions are approved 14 days after the conversion, unless it is refunded first.');
    const euro = page.locator(`#terms li[data-campaign="${eur}"]`);
    expect((await euro.locator('.rules li').textContent())!.toLowerCase()).toBe(`${describeRule(EUR_RULES[0]!, 'EUR')}.`.toLowerCase());
    // no holdback on the campaign: HOLDBACK_DAYS
    expect(await euro.locator('.holdback').textContent()).toContain('30 days');
    expect(await page.textContent('#payout-terms')).toBe('Paid on the 1st of each month at 06:00 UTC once your approved balance reaches 5.00 EUR or 5.00 USD (in that currency).');
  });

  test('a partner with a commission snapshot sees the snapshot\'s terms, not the campaign\'s', async () => {
    const p = await signIn('sam@example.com');
    const terms = p.locator(`#terms li[data-campaign="${usd}"]`);
    expect(await terms.locator('.rules li').allTextContents()).toEqual([`${describeRule(SNAPSHOT_RULES[0]!, 'USD')}.`.replace(/^./, (c) => c.toUpperCase())]);
    expect(await terms.locator('.holdback').textContent()).toBe('Commissions are approved 7 days after the conversion, unless it is refunded first.');
    expect(await terms.locator('.note').textContent()).toContain('Your own terms');
    // the API's snapshot is what the page reads
    const snap = await svc.api('GET', `/v1/partners/${sam}/commission-snapshot`);
    expect(snap.status).toBe(200);
    expect(snap.body.rules).toEqual(SNAPSHOT_RULES);
    await p.context().close();
  });

  test('the last 10 commissions with "View all"; the lists say what comes next, one line a row, with 1–N of total', async () => {
    await page.goto(`${svc.url}/portal`);
    expect(await page.locator('#latest tbody tr').count()).toBe(4);
    await page.click('text=View all');
    expect(new URL(page.url()).pathname).toBe('/portal/commissions');
    expect(await page.textContent('.pager .range-count')).toBe('1–4 of 4');
    const api = await commissionsOf(annKey);
    const pending = api.find((c) => c.status === 'accrued')!;
    const due = new Date(Date.parse(pending.createdAt) + 14 * 86_400_000).toISOString().slice(0, 10);
    const row = page.locator(`#commissions tr[data-id="${pending.id}"]`);
    expect(await row.locator('.next').textContent()).toBe(`Approved on ${due} when the holdback ends`);
    expect(await row.locator('.badge').getAttribute('title')).toBe(`Approved on ${due} when the holdback ends`);
    const when = nextPayoutRun('0 6 1 * *')!.toISOString().slice(0, 10);
    const approvedUsd = api.find((c) => c.status === 'approved' && c.currency === 'USD')!;
    expect(await page.locator(`#commissions tr[data-id="${approvedUsd.id}"] .next`).textContent()).toBe(`Paid in the payout of ${when}`);
    const approvedEur = api.find((c) => c.status === 'approved' && c.currency === 'EUR')!;
    expect(await page.locator(`#commissions tr[data-id="${approvedEur.id}"] .next`).textContent()).toBe('Waits for the 5.00 EUR minimum payout');
    // one line per row: every row as tall as the first
    const heights = await page.locator('#commissions tbody tr').evaluateAll((rows) => rows.map((r) => Math.round(r.getBoundingClientRect().height)));
    expect(new Set(heights).size).toBe(1);
    expect(heights[0]).toBeLessThan(60);
    await screenshot(page, 'portal-commissions-1366');

    await page.goto(`${svc.url}/portal/payouts`);
    const payouts = await svc.api('GET', `/v1/payouts?partnerId=${ann}`);
    expect(await page.textContent('.pager .range-count')).toBe(`1–${payouts.body.payouts.length} of ${payouts.body.payouts.length}`);
    for (const p of payouts.body.payouts) expect(await page.textContent(`#payouts tr[data-id="${p.id}"] td.money`)).toBe(`${p.amount} ${p.currency}`);
    await screenshot(page, 'portal-payouts-1366');
    // a page number past the end, or nonsense, is no error
    expect((await page.goto(`${svc.url}/portal/commissions?page=999`))!.status()).toBe(200);
    expect((await page.goto(`${svc.url}/portal/commissions?page=abc`))!.status()).toBe(200);
  });

  test('the next payout estimate equals what the payout run then pays', async () => {
    await page.goto(`${svc.url}/portal`);
    const estimate = await page.textContent('#money tr[data-currency="USD"] .next-payout');
    const run = await svc.api('POST', '/v1/payouts/run');
    expect(run.status).toBe(200);
    const mine = run.body.payouts.filter((p: { partnerId: string }) => p.partnerId === ann);
    expect(mine).toHaveLength(1); // USD only: EUR is under the minimum
    expect(estimate).toStartWith(`${mine[0].amount} ${mine[0].currency} on `);
    await page.goto(`${svc.url}/portal`);
    expect(await page.textContent('#money tr[data-currency="USD"] .next-payout')).toBe('Nothing approved to pay yet');
  });

  test('phone screenshots: nothing wider than the screen', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    await context.addCookies(await page.context().cookies());
    const phone = await context.newPage();
    for (const path of ['/portal', '/portal/commissions', '/portal/payouts']) {
      await phone.goto(`${svc.url}${path}`);
      expect({ path, fits: await phone.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth) }).toEqual({ path, fits: true });
      await screenshot(phone, `portal-home-390${path.replaceAll('/', '-')}`);
    }
    await phone.context().close();
  });
});

describe('signup page', () => {
  test('shows the live campaigns\' terms and the payout terms above the form; closed stays closed', async () => {
    expect((await svc.api('PATCH', '/v1/settings', { body: { partnerSignup: 'open' } })).status).toBe(200);
    const context = await browser.newContext({ viewport: { width: 1366, height: 900 } });
    const p = await context.newPage();
    await p.goto(`${svc.url}/portal/sign-up`);
    const pro = p.locator(`.pitch li[data-campaign="${usd}"]`);
    expect((await pro.locator('.rules li').allTextContents()).map((s) => s.replace(/\.$/, '').toLowerCase())).toEqual(USD_RULES.map((r) => describeRule(r, 'USD').toLowerCase()));
    expect(await p.textContent('.pitch #payout-terms')).toContain('once your approved balance reaches 5.00 EUR or 5.00 USD');
    // the pitch comes before the form
    const order = await p.evaluate(() => {
      const pitch = document.querySelector('.pitch')!;
      const form = document.querySelector('form[action="/portal/sign-up"]')!;
      return pitch.compareDocumentPosition(form) & Node.DOCUMENT_POSITION_FOLLOWING;
    });
    expect(order).toBeGreaterThan(0);
    await screenshot(p, 'portal-sign-up-1366');
    await p.setViewportSize({ width: 390, height: 844 });
    await screenshot(p, 'portal-sign-up-390');

    expect((await svc.api('PATCH', '/v1/settings', { body: { partnerSignup: 'closed' } })).status).toBe(200);
    const closed = await p.goto(`${svc.url}/portal/sign-up`);
    expect(closed!.status()).toBe(404);
    expect(await p.textContent('h1')).toBe('Signup is closed');
    expect(await p.locator('.pitch').count()).toBe(0);
    await context.close();
  });
});

describe('payout schedule in words', () => {
  test.each([
    ['0 6 1 * *', 'on the 1st of each month at 06:00 UTC'],
    ['30 9 15 * *', 'on the 15th of each month at 09:30 UTC'],
    ['0 0 22 * *', 'on the 22nd of each month at 00:00 UTC'],
    ['0 0 L * *', 'on the last day of each month at 00:00 UTC'],
    ['0 12 * * 1', 'every Monday at 12:00 UTC'],
    ['0 12 * * fri', 'every Friday at 12:00 UTC'],
    ['0 7 * * 1-5', 'every weekday (Monday to Friday) at 07:00 UTC'],
    ['15 3 * * *', 'every day at 03:15 UTC'],
    ['5 * * * *', 'every hour at minute 5'],
    ['0 6 1,15 * *', 'on the schedule "0 6 1,15 * *" (UTC)'],
    ['0 0 6 1 1 *', 'on the schedule "0 0 6 1 1 *" (UTC)'],
  ])('%s -> %s', (cron, words) => expect(describeSchedule(cron)).toBe(words));

  test('the minimum: none, one currency, several; the next run from croner', () => {
    expect(payoutTermsText('0 6 1 * *', '0', ['USD'])).toBe('Paid on the 1st of each month at 06:00 UTC, whatever your approved balance.');
    expect(payoutTermsText('0 6 1 * *', '50', ['USD'])).toBe('Paid on the 1st of each month at 06:00 UTC once your approved balance reaches 50.00 USD.');
    expect(payoutTermsText('0 6 1 * *', '1000', ['JPY', 'USD'])).toBe(
      'Paid on the 1st of each month at 06:00 UTC once your approved balance reaches 1,000 JPY or 1,000.00 USD (in that currency).',
    );
    expect(nextPayoutRun('0 6 1 * *', new Date('2026-11-24T10:00:00Z'))!.toISOString()).toBe('2026-12-01T06:00:00.000Z');
  });

  test('the builder\'s rule: a path, a bare page, the site\'s address, UTM over an existing query', () => {
    const base = 'https://shop.example/landing?ref=p#plans';
    expect(buildDestination(base, { page: '', utm: {} })).toEqual({ url: null, problem: null });
    expect(buildDestination(base, { page: '/pricing', utm: {} }).url).toBe('https://shop.example/pricing');
    expect(buildDestination(base, { page: 'pricing', utm: { utm_term: 'a b' } }).url).toBe('https://shop.example/pricing?utm_term=a+b');
    expect(buildDestination(base, { page: 'shop.example/x', utm: {} }).url).toBe('https://shop.example/x');
    expect(buildDestination(base, { page: '', utm: { utm_source: 'yt', utm_medium: ' ' } }).url).toBe('https://shop.example/landing?ref=p&utm_source=yt#plans');
    expect(buildDestination(base, { page: '/a?utm_source=old', utm: { utm_source: 'new' } }).url).toBe('https://shop.example/a?utm_source=new');
    // another host is built as typed; the API refuses it (deepLinkProblem)
    expect(buildDestination(base, { page: 'https://evil.example/', utm: {} }).url).toBe('https://evil.example/');
  });
});
