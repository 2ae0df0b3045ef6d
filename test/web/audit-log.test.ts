// The audit log in a real browser: real changes (an application approved on its page, a campaign's
// rates changed over the API, a commission lowered by a Stripe partial refund and approved, a payout
// run and marked paid) are on the audit page with readable names and links; each filter narrows
// it (the GET form, no script needed), pages are keyset pages, the CSV holds exactly the filtered
// entries; the partner, commission, payout and campaign pages show their own history; a support
// member gets the shell's 403 page and no History. Screenshots at 1366 and 390 px.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import { charge, customer, deliver, invoice, stripeEvent, WEBHOOK_SECRET } from '../billing/fixtures';
import { click, identify } from '../support/chain';
import { startService, type TestService } from '../support/service';
import { ARTIFACTS, launchBrowser, signInAsAdmin } from './browser';

setDefaultTimeout(90_000);

const OWNER = 'owner@operator.example';
const SUPPORT = 'sam@operator.example';
const SIZES = { desktop: { width: 1366, height: 900 }, phone: { width: 390, height: 844 } } as const;

let svc: TestService;
let browser: Browser;
let page: Page;
let campaignId: string;
let annId: string;
let commissionId: string;
let payoutId: string;

async function shootBoth(p: Page, name: string) {
  await p.setViewportSize(SIZES.desktop);
  await p.screenshot({ path: `${ARTIFACTS}${name}-1366.png`, fullPage: true });
  await p.setViewportSize(SIZES.phone);
  await p.screenshot({ path: `${ARTIFACTS}${name}-390.png`, fullPage: true });
  expect(await p.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(SIZES.phone.width);
  await p.setViewportSize(SIZES.desktop);
}

/** The audit page's rows: [action, who, object] per row, top to bottom. */
async function rows(p: Page): Promise<{ action: string; who: string; object: string }[]> {
  return p.$$eval('#audit tbody tr', (trs) =>
    trs.map((tr) => ({
      action: tr.getAttribute('data-action') ?? '',
      who: tr.querySelector('td[data-label="Who"]')?.textContent?.trim() ?? '',
      object: tr.querySelector('td[data-label="Object"]')?.textContent?.trim() ?? '',
    })),
  );
}

/** A CSV text's rows as cells (quoted cells with commas, quotes and line breaks). */
function parseCsv(text: string): string[][] {
  const out: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') (cell += '"'), i++;
      else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') row.push(cell), (cell = '');
    else if (ch === '\n') row.push(cell), out.push(row), (row = []), (cell = '');
    else if (ch !== '\r') cell += ch;
  }
  return out;
}

beforeAll(async () => {
  [svc, browser] = await Promise.all([startService({ ADMIN_EMAILS: OWNER, STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET, MIN_PAYOUT: '0' }), launchBrowser()]);
  page = await (await browser.newContext({ viewport: SIZES.desktop })).newPage();
  await signInAsAdmin(svc, page, OWNER);
  expect((await svc.api('PATCH', '/v1/settings', { body: { partnerSignup: 'review' } })).status).toBe(200);
  const campaign = await svc.api('POST', '/v1/campaigns', {
    body: { name: 'Pro plan', destinationUrl: 'https://app.example.com/signup', currency: 'USD', rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 20 }] },
  });
  campaignId = campaign.body.id;
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

describe('real changes reach the audit page', () => {
  test('an application approved on its page, a rate change, a partial refund, an approval, a payout run and paid', async () => {
    // Ann applies in the portal; the owner approves her in the applications queue
    const visitor = await (await browser.newContext({ viewport: SIZES.desktop })).newPage();
    await visitor.goto(`${svc.url}/portal/sign-up`);
    await visitor.fill('input[name=name]', 'Ann Archer');
    await visitor.fill('input[name=email]', 'ann@example.com');
    await visitor.click('form[action="/portal/sign-up"] button[type=submit]');
    await visitor.waitForLoadState();
    await visitor.context().close();
    const [ann] = await svc.sql<{ id: string }[]>`select id from partners where email = 'ann@example.com'`;
    annId = ann!.id;
    await page.goto(`${svc.url}/admin/applications`);
    await page.click(`#application-${annId} a[data-dialog="approve-${annId}"]`);
    await page.locator(`dialog#approve-${annId} button[type=submit]:not([formmethod])`).click();
    await page.waitForSelector('.notice.ok');
    await svc.api('PATCH', `/v1/partners/${annId}`, { body: { campaignIds: [campaignId] } });
    // the campaign's rate goes from 20% to 25%
    expect((await svc.api('PATCH', `/v1/campaigns/${campaignId}`, { body: { rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 25 }] } })).status).toBe(200);
    // a sale through Ann's link, then a refund of a quarter of it: Stripe lowers her commission
    const { clickId } = await click(svc, campaignId, annId);
    await identify(svc, 'u_audit', [clickId]);
    await deliver(svc.url, stripeEvent('customer.updated', customer('cus_audit', 'u_audit')));
    await deliver(svc.url, stripeEvent('invoice.paid', invoice('in_audit', 'cus_audit', 10000, { paymentIntent: 'pi_audit' })));
    const [row] = await svc.sql<{ id: string }[]>`select id from commissions where user_id = 'u_audit'`;
    commissionId = row!.id;
    await deliver(svc.url, stripeEvent('charge.refunded', charge('ch_audit', 'pi_audit', 10000, 2500)));
    expect((await svc.api('POST', `/v1/commissions/${commissionId}/approve`)).status).toBe(200);
    const run = await svc.api('POST', '/v1/payouts/run');
    payoutId = run.body.payouts[0].id;
    expect((await svc.api('POST', `/v1/payouts/${payoutId}/mark-paid`, { body: { reference: 'tx-1' } })).status).toBe(200);

    await page.goto(`${svc.url}/admin`);
    await page.click('nav.nav a:has-text("Audit log")');
    await page.waitForURL(/\/admin\/audit$/);
    const list = await rows(page);
    const actions = list.map((r) => r.action);
    // newest first
    expect(new Set(actions.slice(0, 3))).toEqual(new Set(['commission.paid', 'payout.paid', 'payout.run']));
    for (const action of ['partner.approved', 'campaign.updated', 'commission.reduced', 'commission.approved']) expect(actions).toContain(action);
    // who, in words: the owner by email, Stripe as a provider, the admin key by its name
    const approved = list.find((r) => r.action === 'partner.approved')!;
    expect(approved.who).toContain('Team member');
    expect(approved.who).toContain(OWNER);
    expect(approved.object).toContain('Ann Archer');
    expect(list.find((r) => r.action === 'commission.reduced')!.who).toContain('Provider');
    expect(list.find((r) => r.action === 'commission.reduced')!.who).toContain('stripe');
    expect(list.find((r) => r.action === 'campaign.updated')!.who).toContain('API key');
    // before -> after of the changed fields, and the object linked to its page
    const reduced = page.locator('#audit tr[data-action="commission.reduced"]');
    expect(await reduced.locator('td[data-label="Changes"]').textContent()).toMatch(/amount\s*2500\s*→\s*1875/);
    expect(await reduced.locator('td[data-label="Object"] a').getAttribute('href')).toBe(`/admin/commissions/${commissionId}`);
    const rate = await page.locator('#audit tr[data-action="campaign.updated"] td[data-label="Changes"]').textContent();
    expect(rate).toContain('"percent":20');
    expect(rate).toContain('"percent":25');
    await page.locator('#audit tr[data-action="partner.approved"] td[data-label="Object"] a').click();
    await page.waitForURL(new RegExp(`/admin/partners/${annId}$`));
  });

  test('secrets read "[redacted]" on the page, as stored', async () => {
    const hook = await svc.api('POST', '/v1/webhooks', { body: { url: 'https://hooks.example.com/in', events: ['*'] } });
    await svc.api('POST', `/v1/webhooks/${hook.body.endpoint.id}/rotate-secret`);
    await page.goto(`${svc.url}/admin/audit?action=webhook_endpoint.secret_rotated`);
    const text = await page.textContent('#audit tbody');
    expect(text).toContain('[redacted]');
    expect(text).not.toContain(hook.body.secret);
  });
});

describe('filters, pages and the CSV', () => {
  test('each filter from the GET form narrows the list', async () => {
    await page.goto(`${svc.url}/admin/audit`);
    // who
    await page.fill('#f-actor', OWNER);
    await page.click('form.audit-filters button[type=submit]');
    await page.waitForURL(/actor=/);
    expect(new Set((await rows(page)).map((r) => r.who.includes(OWNER)))).toEqual(new Set([true]));
    // kind of actor
    await page.goto(`${svc.url}/admin/audit`);
    await page.selectOption('#f-actorType', 'provider');
    await page.click('form.audit-filters button[type=submit]');
    await page.waitForURL(/actorType=provider/);
    expect((await rows(page)).map((r) => r.action)).toContain('commission.reduced');
    expect((await rows(page)).every((r) => r.who.startsWith('Provider'))).toBe(true);
    // what: one action, and every action on a noun
    await page.goto(`${svc.url}/admin/audit`);
    await page.selectOption('#f-action', 'commission.reduced');
    await page.click('form.audit-filters button[type=submit]');
    await page.waitForURL(/action=commission\.reduced/);
    expect((await rows(page)).map((r) => r.action)).toEqual(['commission.reduced']);
    await page.selectOption('#f-action', 'payout.');
    await page.click('form.audit-filters button[type=submit]');
    await page.waitForURL(/action=payout\./);
    expect((await rows(page)).map((r) => r.action)).toEqual(['payout.paid', 'payout.run']);
    // which object: its kind, and one object by id
    await page.goto(`${svc.url}/admin/audit`);
    await page.selectOption('#f-targetType', 'campaign');
    await page.click('form.audit-filters button[type=submit]');
    await page.waitForURL(/targetType=campaign/);
    expect(new Set((await rows(page)).map((r) => r.action.split('.')[0]))).toEqual(new Set(['campaign']));
    await page.goto(`${svc.url}/admin/audit`);
    await page.fill('#f-targetId', annId);
    await page.click('form.audit-filters button[type=submit]');
    await page.waitForURL(new RegExp(`targetId=${annId}`));
    const ann = (await rows(page)).map((r) => r.action);
    expect(ann[ann.length - 1]).toBe('partner.created');
    expect(ann).toContain('partner.approved');
    // dates: the day of the run holds it, the day after the last entry nothing ("no match", with Clear
    // filters); both days come from the entries, so a run that crosses midnight UTC still agrees
    const [at] = await svc.sql<{ ran: Date; last: Date }[]>`select (select max(at) from audit_log where action = 'payout.run') as ran, (select max(at) from audit_log) as last`;
    const today = at!.ran.toISOString().slice(0, 10);
    const tomorrow = new Date(at!.last.getTime() + 86_400_000).toISOString().slice(0, 10);
    await page.goto(`${svc.url}/admin/audit?from=${today}&to=${today}&action=payout.run`);
    expect((await rows(page)).map((r) => r.action)).toEqual(['payout.run']);
    await page.goto(`${svc.url}/admin/audit`);
    await page.fill('#f-from', tomorrow);
    await page.click('form.audit-filters button[type=submit]');
    await page.waitForURL(/from=/);
    expect(await page.textContent('.empty-state')).toContain('No entry matches');
    // a range that ends before it starts: the error beside the field, nothing listed
    const bad = await page.goto(`${svc.url}/admin/audit?from=${tomorrow}&to=${today}`);
    expect(bad!.status()).toBe(400);
    expect(await page.textContent('.field.invalid')).toContain('on or after the first day');
    expect(await page.locator('#audit').count()).toBe(0);
    // a kind of actor that does not exist, a page link that is not one: said, never a 500
    expect((await page.goto(`${svc.url}/admin/audit?actorType=robot`))!.status()).toBe(400);
    expect(await page.textContent('.field.invalid')).toContain('one of admin, key, partner, job, provider');
    expect((await page.goto(`${svc.url}/admin/audit?cursor=nope`))!.status()).toBe(400);
    expect(await page.textContent('.notice.error')).toContain('start again from the newest entries');
    expect((await page.goto(`${svc.url}/admin/audit.csv?to=2026-02-30`))!.status()).toBe(400);
  });

  test('keyset pages: 50 entries, then "Older entries" continues where the page ended', async () => {
    for (let i = 0; i < 55; i++) expect((await svc.api('PATCH', `/v1/partners/${annId}`, { body: { name: `Ann Archer ${i}` } })).status).toBe(200);
    await page.goto(`${svc.url}/admin/audit?targetId=${annId}`);
    const first = await page.$$eval('#audit tbody tr', (trs) => trs.map((tr) => tr.getAttribute('data-id')!));
    expect(first).toHaveLength(50);
    await page.click('text=Older entries');
    await page.waitForURL(/cursor=/);
    expect(page.url()).toContain(`targetId=${annId}`);
    const second = await page.$$eval('#audit tbody tr', (trs) => trs.map((tr) => tr.getAttribute('data-id')!));
    const all = (await svc.sql<{ id: string }[]>`select id from audit_log where target_id = ${annId} order by id desc`).map((r) => r.id);
    expect([...first, ...second]).toEqual(all);
    expect(await page.locator('text=Older entries').count()).toBe(0);
    await page.click('#newest');
    expect(await page.$$eval('#audit tbody tr', (trs) => trs.length)).toBe(50);
  });

  test('the CSV is the filtered entries, newest first, with names beside the ids', async () => {
    await page.goto(`${svc.url}/admin/audit?action=commission.`);
    const shown = await page.$$eval('#audit tbody tr', (trs) => trs.map((tr) => tr.getAttribute('data-id')!));
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#csv')]);
    expect(download.suggestedFilename()).toBe('audit-log.csv');
    const [header, ...lines] = parseCsv(await Bun.file((await download.path())!).text());
    expect(header).toEqual(['id', 'at', 'actor_type', 'actor_id', 'actor_name', 'action', 'target_type', 'target_id', 'target_name', 'changes', 'ip', 'user_agent', 'request_id']);
    const col = (name: string) => header!.indexOf(name);
    expect(lines.map((l) => l[col('id')])).toEqual(shown);
    expect(lines.map((l) => l[col('action')])).toEqual(['commission.paid', 'commission.approved', 'commission.reduced']);
    const reduced = lines.find((l) => l[col('action')] === 'commission.reduced')!;
    expect(reduced[col('actor_type')]).toBe('provider');
    expect(reduced[col('actor_id')]).toBe('stripe');
    expect(reduced[col('target_id')]).toBe(commissionId);
    expect(reduced[col('target_name')]).toMatch(/^Commission of Ann Archer/);
    expect(JSON.parse(reduced[col('changes')]!)).toMatchObject({ amount: ['2500', '1875'] });
    // the same rows the table has
    const db = await svc.sql<{ id: string }[]>`select id from audit_log where action like 'commission.%' order by id desc`;
    expect(lines.map((l) => l[col('id')])).toEqual(db.map((r) => r.id));
  });

  test('the audit page at 1366 and 390 px', async () => {
    await page.goto(`${svc.url}/admin/audit?action=commission.`);
    await shootBoth(page, 'admin-audit-log');
  });
});

describe("each object's history", () => {
  test('the partner, commission, payout and campaign pages show their own recent changes and link to the full log', async () => {
    const pages: [string, string, string][] = [
      [`/admin/partners/${annId}`, 'partner.approved', annId],
      [`/admin/commissions/${commissionId}`, 'commission.reduced', commissionId],
      [`/admin/payouts/${payoutId}`, 'payout.run', payoutId],
      [`/admin/campaigns/${campaignId}`, 'campaign.updated', campaignId],
    ];
    for (const [path, action, id] of pages) {
      await page.goto(svc.url + path);
      const history = page.locator('#history');
      expect(await history.locator('h2').textContent()).toBe('History');
      const actions = await history.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-action')));
      if (id !== annId) expect(actions).toContain(action);
      expect(actions.length).toBeGreaterThan(0);
      expect(actions.length).toBeLessThanOrEqual(10);
      const ids = await history.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-id')!));
      const own = (await svc.sql<{ id: string }[]>`select id from audit_log where target_id = ${id} order by id desc limit 10`).map((r) => r.id);
      expect(ids).toEqual(own);
      expect(await history.locator('#history-all').getAttribute('href')).toBe(`/admin/audit?targetId=${encodeURIComponent(id)}`);
      if (id === annId) await history.screenshot({ path: `${ARTIFACTS}admin-partner-history-1366.png` });
    }
    // the commission's page, opened from its row's menu on the list: its facts and its history,
    // Stripe's reduction with before and after
    await page.goto(`${svc.url}/admin/commissions`);
    await page.click(`#commissions tr[data-id="${commissionId}"] button.more`);
    await page.locator('.pop:popover-open a:has-text("Open the commission")').click();
    await page.waitForURL(new RegExp(`/admin/commissions/${commissionId}$`));
    expect(await page.textContent('h1')).toBe('18.75 USD for Ann Archer 54');
    expect(await page.textContent('#history tr[data-action="commission.reduced"]')).toMatch(/stripe[\s\S]*amount\s*2500\s*→\s*1875/);
    await shootBoth(page, 'admin-commission-history');
    await page.click('#history-all');
    await page.waitForURL(/targetId=/);
    const hrefs = await page.$$eval('#audit td[data-label="Object"] a', (as) => as.map((a) => a.getAttribute('href')));
    expect(hrefs.length).toBeGreaterThan(0);
    expect(new Set(hrefs)).toEqual(new Set([`/admin/commissions/${commissionId}`]));
  });
});

describe('who may read it', () => {
  test('a support member has no Audit log in the nav, gets the 403 page, and sees no History on a partner', async () => {
    const invited = await svc.api('POST', '/v1/team', { body: { email: SUPPORT, role: 'support' } });
    expect(invited.status).toBeLessThan(300);
    const support = await (await browser.newContext({ viewport: SIZES.desktop })).newPage();
    await support.goto(await svc.mail.magicLink(SUPPORT));
    await support.waitForURL(/\/admin$/);
    expect(await support.textContent('nav.nav')).not.toContain('Audit log');
    for (const path of ['/admin/audit', `/admin/audit.csv`, `/admin/audit?targetId=${annId}`]) {
      const res = await support.goto(svc.url + path);
      expect(res!.status()).toBe(403);
      expect(await support.textContent('main')).toContain('Your role (support) may not open this page or make this change.');
    }
    await support.goto(`${svc.url}/admin/partners/${annId}`);
    expect(await support.textContent('h1')).toContain('Ann Archer');
    expect(await support.locator('#history').count()).toBe(0);
    await support.context().close();
  });
});
