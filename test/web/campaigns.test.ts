// The admin campaign pages in a real browser: the empty list, the rule editor (rows added and removed
// without a reload, the event-type picker, the kind switch, the summary in words, field errors that
// change nothing, and the same editor with script off), a campaign's numbers against the API's, its
// partners and links, and archiving behind a confirmation. Screenshots at 1366x900 and 390x844.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { scaleDecimal } from '../../src/lib/money';
import { describeRule } from '../../src/web/terms';
import { click, identify } from '../support/chain';
import { startService, type TestService } from '../support/service';
import { invitePartner, launchBrowser, postForm, screenshot, signedInAdmin } from './browser';

setDefaultTimeout(30_000);

const ADMIN = 'boss@example.com';
const LAPTOP = { width: 1366, height: 900 };
const PHONE = { width: 390, height: 844 };

let svc: TestService;
let browser: Browser;
let admin: BrowserContext;
let page: Page;
let campaignId: string;
let createdId: string;

async function signedIn(): Promise<BrowserContext> {
  const { context, page: p } = await signedInAdmin(svc, browser, ADMIN);
  await p.close();
  return context;
}

/** A referred customer pays `amount` cents through a new link of the partner; answers the commission id. */
async function sale(partnerId: string, userId: string, amount: number): Promise<string> {
  const { clickId } = await click(svc, campaignId, partnerId);
  await identify(svc, userId, [clickId]);
  const res = await svc.api('POST', '/v1/events', { body: { userId, type: 'invoice_paid', amount, currency: 'EUR' } });
  expect(res.status).toBe(201);
  const [row] = await svc.sql`select c.id from commissions c join events e on e.id = c.event_id where e.user_id = ${userId}`;
  return row!.id;
}

/** Marks the page's window; a navigation (a reload) would lose the mark. */
const mark = (p: Page) => p.evaluate(() => ((window as unknown as { __kept: number }).__kept = 42));
const marked = (p: Page) => p.evaluate(() => (window as unknown as { __kept?: number }).__kept ?? null);

beforeAll(async () => {
  [svc, browser] = await Promise.all([startService({ ADMIN_EMAILS: ADMIN }), launchBrowser()]);
  admin = await signedIn();
  page = await admin.newPage();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

describe('campaign list', () => {
  test('no campaigns yet: an empty state with one action', async () => {
    await page.goto(`${svc.url}/admin/campaigns`);
    expect(await page.textContent('.empty-state .empty-title')).toBe('No campaigns yet');
    expect(await page.locator('.empty-state a.button').count()).toBe(1);
    expect(await page.getAttribute('.empty-state a.button', 'href')).toBe('#new');
    expect(await page.locator('#campaigns').count()).toBe(0);
    await screenshot(page, 'campaigns-empty-1366');
  });
});

let adaId: string;
let bobId: string;

describe('a campaign with traffic', () => {
  test('seed: two partners, clicks, three conversions (one reversed), custom event types', async () => {
    const res = await svc.api('POST', '/v1/campaigns', {
      body: { name: 'Pro plan', destinationUrl: 'https://app.example.com/signup', currency: 'EUR', rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 20 }] },
    });
    expect(res.status).toBe(201);
    campaignId = res.body.id;
    adaId = await invitePartner(svc, { email: 'ada@example.com', name: 'Ada Partner', campaignIds: [campaignId] });
    bobId = await invitePartner(svc, { email: 'bob@example.com', name: 'Bob Builder', campaignIds: [campaignId] });
    await sale(adaId, 'cust-1', 10000);
    await sale(adaId, 'cust-2', 5000);
    const reversed = await sale(bobId, 'cust-3', 3000);
    expect((await svc.api('POST', `/v1/commissions/${reversed}/reverse`, { body: { reason: 'refund' } })).status).toBe(200);
    await click(svc, campaignId, adaId);
    await click(svc, campaignId, bobId);
    // custom event types the editor should offer (nobody referred these users: no attribution)
    for (const type of ['seat_added', 'team_invite']) {
      expect((await svc.api('POST', '/v1/events', { body: { userId: `anon-${type}`, type } })).status).toBe(201);
    }
  });

  test('the campaign page: numbers equal the API, partners and links with theirs', async () => {
    await page.goto(`${svc.url}/admin/campaigns/${campaignId}?range=30d`);
    expect(await page.textContent('h1')).toBe('Pro plan');

    // the API's own numbers: commissions of the campaign (each names its event and value)
    const list = await svc.api('GET', `/v1/commissions?campaignId=${campaignId}&limit=200`);
    expect(list.status).toBe(200);
    const commissions = list.body.commissions as { eventId: string; eventValue: number | null; amount: string; status: string; currency: string }[];
    const events = new Map(commissions.map((c) => [c.eventId, c]));
    const minor = (text: string) => scaleDecimal(text, 2)!;
    const revenue = [...events.values()].reduce((sum, c) => sum + minor(String(c.eventValue)), 0n);
    const earned = commissions.filter((c) => c.status !== 'reversed').reduce((sum, c) => sum + minor(c.amount), 0n);
    const [{ n: clicks }] = (await svc.sql`select count(*)::int as n from clicks where campaign_id = ${campaignId}`) as unknown as [{ n: number }];
    expect({ clicks, conversions: events.size, revenue, earned }).toEqual({ clicks: 5, conversions: 3, revenue: 18000n, earned: 3000n });

    const kpi = async (id: string) => (await page.textContent(`#${id} .value`))!.trim();
    expect(await kpi('kpi-clicks')).toBe(String(clicks));
    expect(await kpi('kpi-conversions')).toBe(String(events.size));
    expect(await kpi('kpi-rate')).toBe('60.0%');
    expect(await kpi('kpi-revenue')).toBe('180.00 EUR');
    expect(await kpi('kpi-commissions')).toBe('30.00 EUR');
    expect(await kpi('kpi-epc')).toBe('6.00 EUR');
    // everything is new against the previous 30 days
    expect(await page.textContent('#kpi-clicks .change')).toBe('new vs previous 30 days');

    // partners: status and their numbers in this campaign
    const ada = page.locator(`#campaign-partners tr[data-id="${adaId}"]`);
    expect(await ada.locator('.badge').textContent()).toBe('Invited');
    expect(await ada.locator('[data-stat=clicks]').textContent()).toBe('3');
    expect(await ada.locator('[data-stat=conversions]').textContent()).toBe('2');
    expect(await ada.locator('[data-stat=revenue]').textContent()).toBe('150.00 EUR');
    expect(await ada.locator('td.money:not([data-stat])').textContent()).toBe('30.00 EUR');
    const bob = page.locator(`#campaign-partners tr[data-id="${bobId}"]`);
    expect(await bob.locator('[data-stat=conversions]').textContent()).toBe('1');
    expect(await bob.locator('td.money:not([data-stat])').textContent()).toBe('0.00 EUR');
    // the most commissions first
    expect(await page.locator('#campaign-partners tbody tr').first().getAttribute('data-id')).toBe(adaId);

    // links: one per click() above, each with its URL to copy, its partner and numbers
    const links = await svc.sql`select slug, partner_id from links where campaign_id = ${campaignId}`;
    expect(await page.locator('#campaign-links tbody tr').count()).toBe(links.length);
    const first = links[0]!;
    const row = page.locator(`#campaign-links tr[data-slug="${first.slug}"]`);
    expect(await row.locator('input').inputValue()).toBe(`${svc.url}/r/${first.slug}`);
    expect(await row.locator('[data-stat=clicks]').textContent()).toBe('1');
    expect(await row.locator('td[data-label=Partner]').textContent()).toBe(first.partner_id === adaId ? 'Ada Partner' : 'Bob Builder');
    // the sum of the links' numbers is the campaign's
    const linkClicks = (await page.locator('#campaign-links [data-stat=clicks]').allTextContents()).reduce((s, t) => s + Number(t), 0);
    expect(linkClicks).toBe(clicks);

    // the terms in words
    expect(await page.textContent('#terms li')).toBe('20% of every paid invoice.');
    await page.setViewportSize(LAPTOP);
    await screenshot(page, 'campaign-page-1366');
    await page.setViewportSize(PHONE);
    await screenshot(page, 'campaign-page-390');
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBe(0);
    await page.setViewportSize(LAPTOP);

    // a range with nothing in it: zeros, and a bad custom range says why
    await page.goto(`${svc.url}/admin/campaigns/${campaignId}?range=custom&from=2020-01-01&to=2020-01-31`);
    expect(await kpi('kpi-clicks')).toBe('0');
    expect(await kpi('kpi-epc')).toBe('–');
    await page.goto(`${svc.url}/admin/campaigns/${campaignId}?range=custom&from=2020-13-01&to=x`);
    expect(await page.textContent('#range-problem')).toBe('Enter both dates of the custom range.');
  });

  test('the list shows each campaign with its last 30 days', async () => {
    await page.goto(`${svc.url}/admin/campaigns`);
    const row = page.locator(`#campaigns tr[data-id="${campaignId}"]`);
    const stat = async (name: string) => row.locator(`[data-stat=${name}]`).textContent();
    expect(await stat('partners')).toBe('2');
    expect(await stat('clicks')).toBe('5');
    expect(await stat('conversions')).toBe('3');
    expect(await stat('revenue')).toBe('180.00 EUR');
    expect(await stat('commissions')).toBe('30.00 EUR');
    await screenshot(page, 'campaigns-list-1366');
  });
});

describe('the rule editor', () => {
  test('rows are added and removed without a reload; the picker offers known types unless Other; the kind shows only its field', async () => {
    await page.goto(`${svc.url}/admin/campaigns`);
    await mark(page);
    const rows = page.locator('#rules [data-rule-row]');
    expect(await rows.count()).toBe(1);
    await page.click('button:has-text("Add another rule")');
    expect(await rows.count()).toBe(2);
    await page.click('button:has-text("Add another rule")');
    expect(await rows.count()).toBe(3);
    expect(await marked(page)).toBe(42);
    expect(await page.inputValue('input[name=ruleCount]')).toBe('3');

    // the picker: standard types, then the custom ones seen, then Other
    const options = await page.locator('select[name=r1_eventPick] option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
    expect(options).toEqual(['', 'signup', 'trial_started', 'subscription_created', 'invoice_paid', 'seat_added', 'team_invite', '__other']);
    const custom = page.locator('[data-rule-row="1"] [data-event-other]');
    expect(await custom.isVisible()).toBe(false);
    await page.selectOption('select[name=r1_eventPick]', '__other');
    expect(await custom.isVisible()).toBe(true);
    await page.selectOption('select[name=r1_eventPick]', 'seat_added');
    expect(await custom.isVisible()).toBe(false);

    // the kind shows only its own amount field
    const percent = page.locator('[data-rule-row="1"] [data-kind-field=percent]');
    const amount = page.locator('[data-rule-row="1"] [data-kind-field=flat]');
    expect([await percent.isVisible(), await amount.isVisible()]).toEqual([true, false]);
    await page.selectOption('select[name=r1_kind]', 'flat');
    expect([await percent.isVisible(), await amount.isVisible()]).toEqual([false, true]);

    // remove the middle row: the others stay, numbered again, still no reload
    await page.click('[data-rule-row="1"] [data-remove-rule]');
    expect(await rows.count()).toBe(2);
    expect(await page.locator('#rules legend').allTextContents()).toEqual(['Rule 1', 'Rule 2']);
    expect(await marked(page)).toBe(42);
    await screenshot(page, 'campaign-editor-1366');
  });

  test('bad values show beside their fields and create nothing; then the saved rules are what the summary says', async () => {
    await page.fill('input[name=name]', 'Enterprise');
    await page.fill('input[name=destinationUrl]', 'nope');
    await page.fill('input[name=currency]', 'EUR');
    await page.selectOption('select[name=r0_eventPick]', 'invoice_paid');
    await page.fill('input[name=r0_percent]', '150');
    // row 2 (form row r2): flat without an amount
    await page.selectOption('select[name=r2_eventPick]', 'seat_added');
    await page.selectOption('select[name=r2_kind]', 'flat');
    await page.click('button:has-text("Create campaign")');
    expect(await page.textContent('#f-destinationUrl-error')).toBe('must be an absolute http or https URL');
    expect(await page.textContent('#f-r0_percent-error')).toBe('more than 0 and at most 100');
    expect(await page.getAttribute('#f-r0_percent', 'aria-invalid')).toBe('true');
    expect(await svc.sql`select 1 from campaigns where name = 'Enterprise'`).toHaveLength(0);
    // the removed row is gone; the rows after it are renumbered
    expect(await page.inputValue('select[name=r1_eventPick]')).toBe('seat_added');
    await page.fill('input[name=destinationUrl]', 'https://app.example.com/enterprise');
    await page.fill('input[name=r0_percent]', '25');
    await page.click('button:has-text("Create campaign")');
    expect(await page.textContent('#f-r1_amount-error')).toBe('required for flat rules');
    expect(await svc.sql`select 1 from campaigns where name = 'Enterprise'`).toHaveLength(0);
    await screenshot(page, 'campaign-editor-errors-1366');

    await page.fill('input[name=r1_amount]', '5');
    await page.fill('input[name=r1_durationDays]', '365');
    await page.click('[data-rule-row="1"] .rule-match summary');
    await page.fill('textarea[name=r1_match]', 'plan=pro');
    // a third rule for paid invoices never pays: the first one always matches first
    await page.click('button:has-text("Add another rule")');
    const last = (await page.locator('#rules [data-rule-row]').last().getAttribute('data-rule-row'))!;
    await page.selectOption(`select[name=r${last}_eventPick]`, 'invoice_paid');
    await page.fill(`input[name=r${last}_percent]`, '10');
    // the summary in words follows the typing (htmx redraws it from the form), warning included
    await page.locator('#rule-summary .warn').waitFor();
    expect(await page.locator('#rule-summary li').count()).toBe(3);
    expect(await page.textContent('#rule-summary li[data-rule="2"] > span')).toBe('10% of every paid invoice.');
    expect(await marked(page)).toBeNull(); // (the page was redrawn by the error answers above)
    await page.click('button:has-text("Create campaign")');
    expect(await page.textContent('.notice.ok')).toBe('Campaign created.');
    const [row] = await svc.sql`select id, rules from campaigns where name = 'Enterprise'`;
    createdId = row!.id;
    expect(new URL(page.url()).pathname).toBe(`/admin/campaigns/${createdId}`);
    expect(row!.rules).toEqual([
      { eventType: 'invoice_paid', kind: 'percent', percent: 25 },
      { eventType: 'seat_added', kind: 'flat', amount: '5', durationDays: 365, match: { plan: 'pro' } },
      { eventType: 'invoice_paid', kind: 'percent', percent: 10 },
    ]);
    // the summary says exactly the saved rules, and warns about the one that never pays
    const said = await page.locator('#terms li > span').allTextContents();
    const expected = row!.rules.map((r: never) => describeRule(r, 'EUR')).map((t: string) => `${t[0]!.toUpperCase()}${t.slice(1)}.`);
    expect(said).toEqual(expected);
    expect(await page.locator('#terms li[data-rule="2"] .warn').textContent()).toContain('Never pays');
    expect(await page.locator('#terms .warn').count()).toBe(1);

    // the editor shows the same summary of the saved rules
    await page.click('a:has-text("Edit campaign")');
    expect(await page.locator('#rule-summary li > span').allTextContents()).toEqual(expected);
    expect(await page.inputValue('select[name=r1_eventPick]')).toBe('seat_added');
    expect(await page.inputValue('input[name=r1_amount]')).toBe('5');
    await screenshot(page, 'campaign-edit-1366');
    await page.setViewportSize(PHONE);
    await screenshot(page, 'campaign-edit-390');
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBe(0);
    await page.setViewportSize(LAPTOP);

    // removing the rule that never pays takes its warning out of the summary, without a reload
    await mark(page);
    await page.click('[data-rule-row="2"] [data-remove-rule]');
    await page.locator('#rule-summary .warn').waitFor({ state: 'detached' });
    expect(await page.locator('#rule-summary li').count()).toBe(2);
    expect(await marked(page)).toBe(42);
    expect(await svc.sql`select 1 from campaigns where id = ${createdId} and jsonb_array_length(rules) = 3`).toHaveLength(1);
  });

  test('with script off the editor still saves: Add another rule redraws, a custom name, the other amount ignored, a rule removed', async () => {
    const context = await browser.newContext({ viewport: LAPTOP, javaScriptEnabled: false, storageState: await admin.storageState() });
    const plain = await context.newPage();
    await plain.goto(`${svc.url}/admin/campaigns/${createdId}/edit`);
    // the saved rules only, no empty row; "Add another rule" redraws the form with one
    expect(await plain.locator('#rules [data-rule-row]').count()).toBe(3);
    await plain.click('button:has-text("Add another rule")');
    // both amount fields and the custom name show without script
    expect(await plain.locator('#rules [data-rule-row]').count()).toBe(4);
    expect(await plain.isVisible('input[name=r3_amount]')).toBe(true);
    expect(await plain.isVisible('input[name=r3_percent]')).toBe(true);
    expect(await plain.isVisible('input[name=r3_eventType]')).toBe(true);
    await plain.selectOption('select[name=r3_eventPick]', '__other');
    await plain.fill('input[name=r3_eventType]', 'team_invite_sent');
    await plain.fill('input[name=r3_percent]', '5');
    await plain.fill('input[name=r3_amount]', '7');
    await plain.click('button:has-text("Add another rule")');
    // the form came back with one more row and what was typed
    expect(await plain.locator('#rules [data-rule-row]').count()).toBe(5);
    expect(await plain.inputValue('input[name=r3_eventType]')).toBe('team_invite_sent');
    expect(await svc.sql`select 1 from campaigns where id = ${createdId} and jsonb_array_length(rules) = 4`).toHaveLength(0);
    await plain.check('input[name=r2_remove]');
    await plain.click('button:has-text("Save campaign")');
    expect(await plain.textContent('.notice.ok')).toBe('Campaign saved.');
    const [row] = await svc.sql`select rules from campaigns where id = ${createdId}`;
    expect(row!.rules).toEqual([
      { eventType: 'invoice_paid', kind: 'percent', percent: 25 },
      { eventType: 'seat_added', kind: 'flat', amount: '5', durationDays: 365, match: { plan: 'pro' } },
      { eventType: 'team_invite_sent', kind: 'percent', percent: 5 },
    ]);
    await screenshot(plain, 'campaign-page-noscript-1366');

    // a bad value on an existing campaign: shown beside its field, the saved rules untouched
    await plain.goto(`${svc.url}/admin/campaigns/${createdId}/edit`);
    await plain.fill('input[name=r0_percent]', '0');
    await plain.fill('input[name=holdbackDays]', 'soon');
    await plain.click('button:has-text("Save campaign")');
    expect(await plain.textContent('#f-r0_percent-error')).toBe('more than 0 and at most 100');
    expect(await plain.textContent('#f-holdbackDays-error')).toBe('a whole number of days, 0 to 3650 (empty: the default)');
    expect((await svc.sql`select rules from campaigns where id = ${createdId}`)[0]!.rules).toEqual(row!.rules);
    await context.close();
  });
});

describe('archive', () => {
  test('archiving asks first (a dialog); nothing changes until confirmed; without script a confirm page', async () => {
    await page.goto(`${svc.url}/admin/campaigns/${createdId}`);
    await page.click('a[data-dialog=archive-dialog]');
    const dialog = page.locator('dialog#archive-dialog');
    expect(await dialog.isVisible()).toBe(true);
    expect(await dialog.locator('h2').textContent()).toBe('Archive Enterprise');
    await screenshot(page, 'campaign-archive-dialog-1366');
    expect((await svc.sql`select archived_at from campaigns where id = ${createdId}`)[0]!.archived_at).toBeNull();
    await dialog.locator('button:has-text("Cancel")').click();
    expect(await dialog.isVisible()).toBe(false);
    expect((await svc.sql`select archived_at from campaigns where id = ${createdId}`)[0]!.archived_at).toBeNull();

    // a post without the confirmation changes nothing
    const csrf = await page.getAttribute('input[name=_csrf]', 'value');
    const bare = await postForm(page, `/admin/campaigns/${createdId}/archive`, { _csrf: csrf! });
    expect(bare.status).toBe(200);
    expect(bare.text).toContain('Archive Enterprise');
    expect((await svc.sql`select archived_at from campaigns where id = ${createdId}`)[0]!.archived_at).toBeNull();

    await page.click('a[data-dialog=archive-dialog]');
    await dialog.locator('button:has-text("Archive campaign")').click();
    expect(await page.textContent('.notice.ok')).toBe('Campaign archived: partners can no longer create links for it.');
    expect(await page.textContent('#campaign-status')).toBe('Archived');
    expect((await svc.sql`select archived_at from campaigns where id = ${createdId}`)[0]!.archived_at).not.toBeNull();

    const context = await browser.newContext({ viewport: PHONE, javaScriptEnabled: false, storageState: await admin.storageState() });
    const plain = await context.newPage();
    await plain.goto(`${svc.url}/admin/campaigns/${createdId}`);
    await plain.click('a:has-text("Unarchive")');
    expect(new URL(plain.url()).pathname).toBe(`/admin/campaigns/${createdId}/archive`);
    expect(await plain.textContent('h1')).toBe('Unarchive Enterprise');
    await screenshot(plain, 'campaign-unarchive-confirm-390');
    expect((await svc.sql`select archived_at from campaigns where id = ${createdId}`)[0]!.archived_at).not.toBeNull();
    await plain.click('button:has-text("Unarchive campaign")');
    expect(await plain.textContent('#campaign-status')).toBe('Live');
    expect((await svc.sql`select archived_at from campaigns where id = ${createdId}`)[0]!.archived_at).toBeNull();
    await context.close();
  });
});
