// Promotion codes in a real browser: the admin's codes sections on a partner's page and a campaign's
// page (numbers against the database, create with field errors that change nothing, archive behind a
// confirmation, the same without script), the event page naming the code, and the partner's own
// codes page in the portal. Screenshots at 1366x900 and 390x844.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startService, type TestService } from '../support/service';
import { ARTIFACTS, invitePartner, launchBrowser, postForm, screenshot, signedInAdmin, signInThroughPortal } from './browser';

setDefaultTimeout(30_000);

const ADMIN = 'boss@example.com';
const LAPTOP = { width: 1366, height: 900 };
const PHONE = { width: 390, height: 844 };

let svc: TestService;
let browser: Browser;
let admin: BrowserContext;
let page: Page;
let campaignId: string;
let host: string; // the podcaster
let writer: string; // another partner of the campaign
let codeId: string;
let eventId: string;

async function signedIn(): Promise<BrowserContext> {
  const { context, page: p } = await signedInAdmin(svc, browser, ADMIN);
  await p.close();
  return context;
}

const codeRow = (p: Page, code: string) => p.locator(`#codes-table tr[data-code="${code}"]`);
const cell = async (p: Page, code: string, stat: string) => (await codeRow(p, code).locator(`[data-stat=${stat}]`).textContent())?.trim();
const codeCount = async () => (await svc.sql`select count(*)::int as n from promotion_codes`)[0]!.n as number;

beforeAll(async () => {
  svc = await startService({ ADMIN_EMAILS: ADMIN });
  browser = await launchBrowser();
  const res = await svc.api('POST', '/v1/campaigns', {
    body: { name: 'Pro plan', destinationUrl: 'https://app.example.com/', currency: 'USD', rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 20 }] },
  });
  campaignId = res.body.id;
  host = await invitePartner(svc, { email: 'host@example.com', name: 'Hannah Host', campaignIds: [campaignId] });
  writer = await invitePartner(svc, { email: 'writer@example.com', name: 'Walt Writer', campaignIds: [campaignId] });
  codeId = (await svc.api('POST', '/v1/codes', { body: { code: 'PODCAST20', partnerId: host, campaignId } })).body.id;
  // two customers came through the code; the first paid twice
  for (const [user, amount] of [['cust-a', 5000], ['cust-a', 2500], ['cust-b', 1000]] as const) {
    const paid = await svc.api('POST', '/v1/events', { body: { userId: user, type: 'invoice_paid', amount, currency: 'USD', couponCode: 'podcast20' } });
    expect(paid.status).toBe(201);
    eventId = paid.body.id;
  }
  admin = await signedIn();
  page = await admin.newPage();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

describe('admin: the partner page', () => {
  test("lists the partner's codes with customers, conversions, revenue and commissions from the database", async () => {
    await page.goto(`${svc.url}/admin/partners/${host}`);
    expect(await page.textContent('#codes-title')).toBe('Promotion codes');
    const [numbers] = await svc.sql`
      select count(distinct a.user_id)::int as customers, count(*)::int as conversions, sum(e.amount)::bigint as revenue,
             (select sum(amount)::bigint from commissions c where c.attribution_id = any(array_agg(a.id))) as commissions
      from attributions a join events e on e.id = a.event_id where a.code_id = ${codeId}`;
    expect(numbers).toEqual({ customers: 2, conversions: 3, revenue: 8500n, commissions: 1700n });
    expect(await codeRow(page, 'PODCAST20').locator('code').textContent()).toBe('PODCAST20');
    expect(await cell(page, 'PODCAST20', 'customers')).toBe('2');
    // three sales by two customers: the column says Sales, not Conversions (docs/analytics.md)
    expect(await page.locator('#codes-table thead th').allTextContents()).toContain('Sales');
    expect(await cell(page, 'PODCAST20', 'sales')).toBe('3');
    expect(await cell(page, 'PODCAST20', 'revenue')).toBe('85.00 USD');
    expect(await cell(page, 'PODCAST20', 'commissions')).toBe('17.00 USD');
    expect(await codeRow(page, 'PODCAST20').locator('.badge').textContent()).toBe('Active');
    await page.locator('#codes').scrollIntoViewIfNeeded();
    await screenshot(page, 'codes-partner-1366');
  });

  test('creating a code: a bad code and a duplicate ignoring case show their error beside the field and write nothing', async () => {
    await page.goto(`${svc.url}/admin/partners/${host}`);
    const before = await codeCount();
    await page.fill('#codes input[name=code]', 'two words');
    await page.click('#codes button:has-text("Create code")');
    expect(await page.textContent('h1')).toBe('New promotion code');
    expect(await page.textContent('#f-code-error')).toBe('may only contain A-Z a-z 0-9 _ -');
    expect(await page.inputValue('input[name=code]')).toBe('two words');
    await page.fill('input[name=code]', 'Podcast20');
    await page.click('button:has-text("Create code")');
    expect(await page.textContent('#f-code-error')).toBe('is taken');
    expect(await codeCount()).toBe(before);

    await page.fill('input[name=code]', 'NEWSHOW');
    await page.click('button:has-text("Create code")');
    expect(new URL(page.url()).pathname).toBe(`/admin/partners/${host}`);
    expect(await page.textContent('#codes .notice.ok')).toContain('Promotion code created');
    expect(await cell(page, 'NEWSHOW', 'customers')).toBe('0');
    expect(await cell(page, 'NEWSHOW', 'revenue')).toBe('0.00 USD');
    expect([...(await svc.sql`select partner_id, campaign_id, archived_at from promotion_codes where code = 'NEWSHOW'`)]).toEqual([
      { partner_id: host, campaign_id: campaignId, archived_at: null },
    ]);
  });

  test('archiving asks first; nothing changes until confirmed; unarchiving without script goes through the confirm page', async () => {
    await page.goto(`${svc.url}/admin/partners/${host}`);
    const archivedAt = async () => (await svc.sql`select archived_at from promotion_codes where id = ${codeId}`)[0]!.archived_at;
    await codeRow(page, 'PODCAST20').locator('a:has-text("Archive…")').click();
    const dialog = page.locator(`dialog#code-dialog-${codeId}`);
    expect(await dialog.isVisible()).toBe(true);
    expect(await dialog.locator('h2').textContent()).toBe('Archive PODCAST20');
    await screenshot(page, 'codes-archive-dialog-1366');
    await dialog.locator('button:has-text("Cancel")').click();
    expect(await dialog.isVisible()).toBe(false);
    expect(await archivedAt()).toBeNull();

    const csrf = await page.getAttribute('input[name=_csrf]', 'value');
    const bare = await postForm(page, `/admin/codes/${codeId}/archive?from=partner`, { _csrf: csrf! });
    expect(bare.status).toBe(200);
    expect(bare.text).toContain('Archive PODCAST20');
    expect(await archivedAt()).toBeNull();

    await codeRow(page, 'PODCAST20').locator('a:has-text("Archive…")').click();
    await dialog.locator('button:has-text("Archive code")').click();
    expect(await page.textContent('#codes .notice.ok')).toContain('Promotion code archived');
    expect(await codeRow(page, 'PODCAST20').locator('.badge').textContent()).toBe('Archived');
    expect(await archivedAt()).not.toBeNull();

    const context = await browser.newContext({ viewport: PHONE, javaScriptEnabled: false, storageState: await admin.storageState() });
    const plain = await context.newPage();
    await plain.goto(`${svc.url}/admin/partners/${host}`);
    await codeRow(plain, 'PODCAST20').locator('a:has-text("Unarchive…")').click();
    expect(new URL(plain.url()).pathname).toBe(`/admin/codes/${codeId}/archive`);
    expect(await plain.textContent('h1')).toBe('Unarchive PODCAST20');
    await screenshot(plain, 'codes-unarchive-confirm-390');
    await plain.click('button:has-text("Unarchive code")');
    expect(new URL(plain.url()).pathname).toBe(`/admin/partners/${host}`);
    expect(await codeRow(plain, 'PODCAST20').locator('.badge').textContent()).toBe('Active');
    expect(await archivedAt()).toBeNull();
    await plain.locator('#codes').scrollIntoViewIfNeeded();
    await screenshot(plain, 'codes-partner-390');
    await plain.locator('#codes').screenshot({ path: `${ARTIFACTS}codes-partner-390-section.png` });
    await context.close();
  });
});

describe('admin: the campaign page and the event page', () => {
  test("the campaign's codes name their partners; a code for another partner of the campaign is created there", async () => {
    await page.goto(`${svc.url}/admin/campaigns/${campaignId}`);
    expect(await codeRow(page, 'PODCAST20').locator('td[data-label=Partner]').textContent()).toBe('Hannah Host');
    await page.fill('#codes input[name=code]', 'WRITER-5');
    await page.selectOption('#codes select[name=partnerId]', writer);
    await page.click('#codes button:has-text("Create code")');
    expect(new URL(page.url()).pathname).toBe(`/admin/campaigns/${campaignId}`);
    expect(await codeRow(page, 'WRITER-5').locator('td[data-label=Partner]').textContent()).toBe('Walt Writer');
    expect((await svc.sql`select partner_id from promotion_codes where code = 'WRITER-5'`)[0]!.partner_id).toBe(writer);
    await page.locator('#codes').scrollIntoViewIfNeeded();
    await screenshot(page, 'codes-campaign-1366');
  });

  test('an event credited through a code shows the code where a click would be', async () => {
    await page.goto(`${svc.url}/admin/events/${eventId}`);
    expect((await page.textContent('#attributions td[data-label="Click or code"]'))?.replace(/\s+/g, ' ').trim()).toBe('Code PODCAST20');
    expect((await page.textContent('#touches td[data-label="Click or code"]'))?.replace(/\s+/g, ' ').trim()).toBe('Code PODCAST20');
  });
});

describe('portal: the partner\'s codes', () => {
  let portal: BrowserContext;
  let p: Page;
  beforeAll(async () => {
    portal = await browser.newContext({ viewport: LAPTOP });
    p = await portal.newPage();
    await signInThroughPortal(svc, p, 'host@example.com');
  });
  afterAll(() => portal?.close());

  test('its codes only, with customers, conversions and earnings', async () => {
    await p.goto(`${svc.url}/portal/codes`);
    expect(await p.textContent('h1')).toBe('Your promotion codes');
    expect(await p.locator('nav a[href="/portal/codes"]').count()).toBeGreaterThan(0);
    expect(await cell(p, 'PODCAST20', 'customers')).toBe('2');
    expect(await p.locator('#codes-table thead th').allTextContents()).toContain('Sales');
    expect(await p.locator('#codes-table thead th').allTextContents()).not.toContain('Conversions');
    expect(await cell(p, 'PODCAST20', 'sales')).toBe('3');
    expect(await cell(p, 'PODCAST20', 'earnings')).toBe('17.00 USD');
    expect(await codeRow(p, 'WRITER-5').count()).toBe(0);
    await screenshot(p, 'codes-portal-1366');
  });

  test('creating one: a bad code shows the error and writes nothing; a good one is listed', async () => {
    await p.goto(`${svc.url}/portal/codes`);
    const before = await codeCount();
    await p.fill('input[name=code]', 'ab');
    await p.click('button:has-text("Create code")');
    expect(await p.textContent('#f-code-error')).toBe('must be 3-40 characters long');
    expect(await codeCount()).toBe(before);
    await p.fill('input[name=code]', 'HANNAH-LIVE');
    await p.click('button:has-text("Create code")');
    expect(await p.textContent('.notice.ok')).toContain('Code HANNAH-LIVE created');
    expect(await cell(p, 'HANNAH-LIVE', 'customers')).toBe('0');
    expect((await svc.sql`select partner_id from promotion_codes where code = 'HANNAH-LIVE'`)[0]!.partner_id).toBe(host);
  });

  test('a campaign it does not hold is refused beside the campaign field (a forged form)', async () => {
    const other = (await svc.api('POST', '/v1/campaigns', { body: { name: 'Secret', destinationUrl: 'https://app.example.com/', currency: 'USD' } })).body.id;
    await p.goto(`${svc.url}/portal/codes`);
    const before = await codeCount();
    const csrf = await p.getAttribute('input[name=_csrf]', 'value');
    const res = await postForm(p, '/portal/codes', { _csrf: csrf!, code: 'SNEAKY', campaignId: other });
    expect(res.status).toBe(403);
    expect(res.text).toContain('does not hold this campaign');
    expect(await codeCount()).toBe(before);
  });

  test('on a phone the table becomes cards', async () => {
    const phone = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true, storageState: await portal.storageState() });
    const small = await phone.newPage();
    await small.goto(`${svc.url}/portal/codes`);
    expect(await cell(small, 'PODCAST20', 'earnings')).toBe('17.00 USD');
    const width = await small.evaluate(() => document.documentElement.scrollWidth);
    expect(width).toBeLessThanOrEqual(390);
    await screenshot(small, 'codes-portal-390');
    await small.locator('main').screenshot({ path: `${ARTIFACTS}codes-portal-390-main.png` });
    await phone.close();
  });
});
