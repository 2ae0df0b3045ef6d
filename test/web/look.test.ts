// The visual language in a real browser: every admin and portal page, with data in every status,
// at a 1366 px laptop and a 390 px phone. What a reviewer checks by eye, measured: badges, money and
// dates stay on one line, the page column uses the width, phone tables are cards with their labels,
// money shows the currency's two decimals, the header stays compact on a phone.
// Screenshots go to LOOK_SHOTS (default: a fresh folder under the system temp folder).
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { campaign, click, identify } from '../support/chain';
import { startService, type TestService } from '../support/service';
import { LOCAL_RECEIVERS, registerEndpoint } from '../support/webhooks';
import { invitePartner, launchBrowser } from './browser';

setDefaultTimeout(60_000);

const ADMIN = 'boss@example.com';
const LONG_NAME = 'Ada Lovelace-Byron, Countess of Lovelace and Ockham Park Affiliates';
const SHOTS = process.env.LOOK_SHOTS ?? mkdtempSync(join(tmpdir(), 'partnerd-look-'));
const LAPTOP = { width: 1366, height: 900 };
const PHONE = { width: 390, height: 844 };

let svc: TestService;
let browser: Browser;
let receiver: ReturnType<typeof Bun.serve>;
let admin: BrowserContext;
let partner: BrowserContext;
let adaId: string;
let campaignId: string;
let endpointId: string;
let deliveryId: string;
let accruedId: string;
let pendingPayoutId: string;
let eventId: string;

/** A referred customer pays `amount` cents: one commission (20%) for Ada; answers its id. */
async function sale(userId: string, amount: number): Promise<string> {
  const { clickId } = await click(svc, campaignId, adaId);
  await identify(svc, userId, [clickId]);
  const res = await svc.api('POST', '/v1/events', { body: { userId, type: 'invoice_paid', amount, currency: 'USD' } });
  expect(res.status).toBe(201);
  const [row] = await svc.sql`select c.id from commissions c join events e on e.id = c.event_id where e.user_id = ${userId}`;
  return row!.id;
}

async function signedIn(email: string, landing: string): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: LAPTOP });
  const page = await context.newPage();
  const before = svc.mail.messages.length;
  await page.goto(`${svc.url}${landing}/sign-in`);
  await page.fill('input[name=email]', email);
  await page.click('button[type=submit]');
  await page.waitForSelector('.notice.ok');
  await page.goto(await svc.mail.magicLink(email, (m) => svc.mail.messages.indexOf(m) >= before));
  await page.close();
  return context;
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  console.log(`look.test screenshots: ${SHOTS}`);
  receiver = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('receiver <b>down</b> for maintenance', { status: 500 }) });
  // TRUST_PROXY: customers identify from their own address (chain.ts), not the one the partner signs in from
  [svc, browser] = await Promise.all([startService({ ADMIN_EMAILS: ADMIN, ...LOCAL_RECEIVERS, TRUST_PROXY: '1' }), launchBrowser()]);
  campaignId = await campaign(svc, { name: 'Pro plan for teams, annual billing with the long-name discount', holdbackDays: 30, rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 20 }] });
  await campaign(svc, { name: 'Starter', rules: [{ eventType: 'signup', kind: 'flat', amount: '5' }] });
  adaId = await invitePartner(svc, { email: 'ada@example.com', name: LONG_NAME, campaignIds: [campaignId] });
  await invitePartner(svc, { email: 'grace.hopper.with.a.long.address@engineering.example.com', name: 'Grace Hopper', campaignIds: [campaignId] });
  const revoked = await invitePartner(svc, { email: 'mallory@example.com', name: 'Mallory', campaignIds: [campaignId] });
  expect((await svc.api('POST', `/v1/partners/${revoked}/revoke`, { body: { reason: 'Fake traffic' } })).status).toBe(200);

  [admin, partner] = await Promise.all([signedIn(ADMIN, '/admin'), signedIn('ada@example.com', '/portal')]);

  // commissions in every status: paid (and a paid payout), approved (in a pending payout), accrued, reversed
  const paid = [await sale('cust-1', 135700), await sale('cust-2', 4999)];
  for (const id of paid) expect((await svc.api('POST', `/v1/commissions/${id}/approve`)).status).toBe(200);
  const first = await svc.api('POST', '/v1/payouts/run');
  expect(first.status).toBe(200);
  expect((await svc.api('POST', `/v1/payouts/${first.body.payouts[0].id}/mark-paid`, { body: { reference: 'SEPA-2026-11-000123' } })).status).toBe(200);
  const approved = await sale('cust-3', 1234567);
  expect((await svc.api('POST', `/v1/commissions/${approved}/approve`)).status).toBe(200);
  const second = await svc.api('POST', '/v1/payouts/run');
  pendingPayoutId = second.body.payouts[0].id;
  accruedId = await sale('cust-4', 9900);
  eventId = (await svc.sql`select event_id from commissions where id = ${accruedId}`)[0]!.event_id;
  const reversed = await sale('cust-5', 20000);
  expect((await svc.api('POST', `/v1/commissions/${reversed}/reverse`, { body: { reason: 'Refunded within 14 days after a support ticket about billing' } })).status).toBe(200);

  // a webhook endpoint with a failed delivery, and an API key
  ({ id: endpointId } = await registerEndpoint(svc, `${receiver.url}hooks/partnerd/billing-service-with-a-long-path`, ['*'], 'Billing'));
  const sent = await svc.api('POST', `/webhooks/${endpointId}/test`);
  expect(sent.status).toBeLessThan(300);
  deliveryId = sent.body.id;
  await svc.deliverWebhooks();
  expect((await svc.api('POST', '/v1/api-keys', { body: { name: 'Billing backend', scopes: ['events:write', 'partners:read', 'commissions:read'] } })).status).toBe(201);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await svc?.stop();
  receiver?.stop(true);
});

const adminPages = () => [
  '/admin',
  '/admin/partners',
  `/admin/partners/${adaId}`,
  '/admin/commissions',
  `/admin/commissions/${accruedId}/reverse`,
  '/admin/payouts',
  `/admin/payouts/${pendingPayoutId}/mark-paid`,
  `/admin/payouts/${pendingPayoutId}`,
  '/admin/payouts/run',
  '/admin/events',
  `/admin/events/${eventId}`,
  '/admin/campaigns',
  `/admin/campaigns/${campaignId}`,
  `/admin/campaigns/${campaignId}/edit`,
  '/admin/webhooks',
  `/admin/webhooks/${endpointId}`,
  `/admin/webhooks/${endpointId}/deliveries/${deliveryId}`,
  '/admin/api-keys',
  '/admin/settings',
];
const portalPages = ['/portal', '/portal/links', '/portal/commissions', '/portal/payouts', '/portal/profile'];

/** Lines of text an element takes: distinct tops of its text's boxes. */
type Measure = { what: string; text: string; lines: number };

function measure(page: Page): Promise<Measure[]> {
  return page.evaluate(() => {
    const lines = (el: Element) => {
      const range = document.createRange();
      range.selectNodeContents(el);
      const tops = new Set(Array.from(range.getClientRects()).filter((r) => r.width > 0).map((r) => Math.round(r.top)));
      return tops.size;
    };
    const out: { what: string; text: string; lines: number }[] = [];
    for (const el of Array.from(document.querySelectorAll('.badge'))) out.push({ what: 'badge', text: el.textContent!, lines: lines(el) });
    for (const el of Array.from(document.querySelectorAll('td.money'))) out.push({ what: 'money', text: el.textContent!, lines: lines(el) });
    for (const el of Array.from(document.querySelectorAll('td[data-label="Date"], td[data-label="Created"], td[data-label="Paid"], td[data-label="When"]')))
      if (el.textContent) out.push({ what: 'date', text: el.textContent!, lines: lines(el) });
    return out;
  });
}

async function walk(context: BrowserContext, paths: string[], size: { width: number; height: number }, check: (page: Page, path: string) => Promise<void>) {
  const page = await context.newPage();
  await page.setViewportSize(size);
  for (const path of paths) {
    const res = await page.goto(`${svc.url}${path}`);
    expect({ path, status: res!.status() }).toEqual({ path, status: 200 });
    const name = path.replace(/\/[a-z]+_[A-Za-z0-9]+/g, '-id').replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '');
    // Chromium sometimes cannot capture a tall page while the machine is loaded ("Unable to capture
    // screenshot"): that is the browser's hiccup, not the page's, so it gets a second try
    const shot = { path: join(SHOTS, `${name}-${size.width}.png`), fullPage: true };
    await page.screenshot(shot).catch(() => Bun.sleep(500).then(() => page.screenshot(shot)));
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect({ path, overflow }).toEqual({ path, overflow: 0 });
    const wrapped = (await measure(page)).filter((m) => m.lines !== 1);
    expect({ path, wrapped }).toEqual({ path, wrapped: [] });
    await check(page, path);
  }
  await page.close();
}

describe('laptop, 1366 x 900', () => {
  const laptop = async (page: Page, path: string) => {
    // the page column uses the width: side nav 240, padding 2 x 24, nothing else lost
    const column = await page.evaluate(() => document.querySelector('.page')!.getBoundingClientRect().width);
    expect({ path, wide: column >= 1366 - 240 - 48 - 20 }).toEqual({ path, wide: true });
    expect(await page.isVisible('nav[aria-label=Main]')).toBe(true);
    // tables fit without scrolling sideways, one line per row
    const tables = await page.evaluate(() =>
      Array.from(document.querySelectorAll('.table-wrap')).map((w) => ({
        scrolls: w.scrollWidth > w.clientWidth + 1,
        // an audit row (the History sections) lists each changed field on its own line: only its width counts
        history: w.querySelector('table.audit') !== null,
        tallest: Math.max(0, ...Array.from(w.querySelectorAll('tbody tr')).map((tr) => tr.getBoundingClientRect().height)),
      })),
    );
    for (const t of tables) expect({ path, scrolls: t.scrolls, oneLine: t.history || t.tallest <= 60 }).toEqual({ path, scrolls: false, oneLine: true });
    // tables have a caption and header scopes
    const bare = await page.evaluate(() => Array.from(document.querySelectorAll('table')).filter((t) => !t.caption || t.querySelector('thead th:not([scope])')).length);
    expect({ path, bare }).toEqual({ path, bare: 0 });
    // no form inside a table row
    expect({ path, forms: await page.locator('tr form').count() }).toEqual({ path, forms: 0 });
  };

  test('admin pages', () => walk(admin, adminPages(), LAPTOP, laptop));
  test('portal pages', () => walk(partner, portalPages, LAPTOP, laptop));

  test('money shows the currency decimals everywhere; long names end in an ellipsis with the full name in title', async () => {
    const page = await admin.newPage();
    await page.setViewportSize(LAPTOP);
    await page.goto(`${svc.url}/admin/commissions`);
    const money = await page.locator('#commissions td.money').allTextContents();
    expect(money.length).toBe(5);
    for (const m of money) expect(m).toMatch(/^\d{1,3}(,\d{3})*\.\d{2} USD$/);
    expect(money).toContain('271.40 USD');
    expect(money).toContain('2,469.13 USD');
    const name = page.locator(`#commissions tbody tr:first-child td.lead a`);
    expect(await name.getAttribute('title')).toBe(LONG_NAME);
    expect(await name.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
    // a badge says what comes next
    const pending = page.locator(`#commissions tr[data-id="${accruedId}"] .badge`);
    expect(await pending.textContent()).toBe('Pending');
    expect(await pending.getAttribute('title')).toMatch(/^Pending: approved on \d{4}-\d{2}-\d{2} when the 30-day holdback ends/);
    await page.goto(`${svc.url}/admin`);
    // earned in the last 30 days: every commission but the reversed one (271.40 + 10.00 + 2,469.13 + 19.80)
    expect(await page.textContent('#kpi-commissions .value')).toBe('2,770.33 USD');
    expect(await page.textContent('#money-chart .legend')).toContain('Commissions: 2,770.33 USD');
    await page.close();
  });

  test('the "⋯" menu opens without script and closes with Esc', async () => {
    const context = await browser.newContext({ viewport: LAPTOP, javaScriptEnabled: false, storageState: await admin.storageState() });
    const page = await context.newPage();
    await page.goto(`${svc.url}/admin/commissions`);
    const menu = page.locator(`[popover]#cm-${accruedId}`);
    expect(await menu.isVisible()).toBe(false);
    await page.click(`#commissions tr[data-id="${accruedId}"] button.more`);
    expect(await menu.isVisible()).toBe(true);
    expect(await menu.locator('button:has-text("Approve")').isVisible()).toBe(true);
    await page.screenshot({ path: join(SHOTS, 'admin-commissions-menu-1366.png') });
    await page.keyboard.press('Escape');
    expect(await menu.isVisible()).toBe(false);
    await context.close();
  });
});

describe('phone, 390 x 844', () => {
  const phone = async (page: Page, path: string) => {
    // a compact top bar, not a 200 px header
    const bar = await page.evaluate(() => document.querySelector('.bar')!.getBoundingClientRect().height);
    expect({ path, compact: bar <= 64 }).toEqual({ path, compact: true });
    expect(await page.isVisible('nav[aria-label=Main]')).toBe(false);
    // tables are cards: no header row shown, every labelled cell shows its label (the lead cell,
    // the money and the status badge at the top of the card speak for themselves)
    const cells = await page.evaluate(() =>
      Array.from(document.querySelectorAll('table.stack td[data-label]:not(.money):not(.badge-cell):not(:empty)')).map((td) => ({
        label: td.getAttribute('data-label'),
        shown: getComputedStyle(td, '::before').content,
      })),
    );
    for (const c of cells) expect({ path, shown: c.shown }).toEqual({ path, shown: `"${c.label}"` });
    const heads = await page.evaluate(() => Array.from(document.querySelectorAll('table.stack thead')).map((h) => h.getBoundingClientRect().height));
    for (const h of heads) expect(h).toBeLessThanOrEqual(1);
    // touch targets
    const small = await page.evaluate(() =>
      Array.from(document.querySelectorAll('main button, .bar summary, button.more'))
        .filter((b) => b.getBoundingClientRect().height > 0 && b.getBoundingClientRect().height < 44)
        .map((b) => b.textContent),
    );
    expect({ path, small }).toEqual({ path, small: [] });
  };

  test('admin pages', () => walk(admin, adminPages(), PHONE, phone));
  test('portal pages', () => walk(partner, portalPages, PHONE, phone));

  test('the menu opens without script', async () => {
    const context = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true, javaScriptEnabled: false, storageState: await admin.storageState() });
    const page = await context.newPage();
    await page.goto(`${svc.url}/admin/payouts`);
    await page.tap('.bar summary');
    expect(await page.isVisible('nav[aria-label=Main] a[href="/admin/webhooks"]')).toBe(true);
    await page.screenshot({ path: join(SHOTS, 'admin-phone-menu-open-390.png') });
    await Promise.all([page.waitForURL(`${svc.url}/admin/webhooks`), page.tap('nav[aria-label=Main] a[href="/admin/webhooks"]')]);
    expect(await page.textContent('h1')).toBe('Webhooks');
    await context.close();
  });
});
