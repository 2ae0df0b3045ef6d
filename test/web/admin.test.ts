// The admin pages in a real browser: an admin signs in through the emailed link and runs the
// program section by section; each action is checked on the page and in the database.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import { campaign, click, identify } from '../support/chain';
import { startService, type TestService } from '../support/service';
import { LOCAL_RECEIVERS } from '../support/webhooks';
import { invitePartner, launchBrowser, newPage, screenshot } from './browser';
import { ADMIN_NAV } from '../../src/web/admin/kit';

// a browser round trip per step; a loaded CI machine is slow, not broken
setDefaultTimeout(30_000);

const ADMIN = 'boss@example.com';
let svc: TestService;
let browser: Browser;
let page: Page;
let campaignId: string;
let partnerId: string;

/** A referred customer pays: one accrued commission for the partner. */
async function commissionFor(partner: string, userId: string, amount = 10000): Promise<string> {
  const { clickId } = await click(svc, campaignId, partner);
  await identify(svc, userId, [clickId]);
  const res = await svc.api('POST', '/v1/events', { body: { userId, type: 'invoice_paid', amount, currency: 'EUR' } });
  expect(res.status).toBe(201);
  const [row] = await svc.sql`select c.id from commissions c join events e on e.id = c.event_id where e.user_id = ${userId}`;
  return row!.id;
}

beforeAll(async () => {
  [svc, browser] = await Promise.all([startService({ ADMIN_EMAILS: ADMIN, ...LOCAL_RECEIVERS }), launchBrowser()]);
  campaignId = await campaign(svc, { name: 'Pro plan', currency: 'EUR', rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 20 }] });
  partnerId = await invitePartner(svc, { email: 'ada@example.com', name: 'Ada Partner', campaignIds: [campaignId] });
  await commissionFor(partnerId, 'cust-1');
  ({ page } = await newPage(browser));
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

describe('sign-in and overview', () => {
  test('signed out, /admin sends the browser to the admin sign-in page', async () => {
    await page.goto(`${svc.url}/admin`);
    expect(new URL(page.url()).pathname).toBe('/admin/sign-in');
    // a field error shows beside the field
    await page.fill('input[name=email]', 'not-an-email');
    await page.click('button[type=submit]');
    expect(await page.textContent('#f-email-error')).toBe('must be an email address');
    await screenshot(page, 'admin-sign-in');
  });

  test('the emailed link signs the admin in; the overview shows the KPI cards and the chart', async () => {
    await page.fill('input[name=email]', ADMIN);
    await page.click('button[type=submit]');
    await page.waitForSelector('.notice.ok');
    await page.goto(await svc.mail.magicLink(ADMIN));
    expect(new URL(page.url()).pathname).toBe('/admin');
    expect(await page.textContent('h1')).toBe('Overview');
    expect(await page.textContent('.who')).toBe(ADMIN);
    expect(await page.textContent('#kpi-conversions .value')).toBe('1');
    // one chart, one unit
    expect(await page.locator('.chart svg').count()).toBe(1);
    // money in the one format: grouped, the currency's decimals, its code
    expect(await page.textContent('#money-chart')).toContain('Revenue: 100.00 EUR');
    expect(await page.textContent('#money-chart')).toContain('Commissions: 20.00 EUR');
    expect(await page.textContent('#kpi-commissions .value')).toBe('20.00 EUR');
    expect(await page.textContent('#todo-commissions')).toBe('1 commission waiting for approval');
    await screenshot(page, 'admin-overview');
  });
});

describe('partners', () => {
  test('search by email or name', async () => {
    await page.goto(`${svc.url}/admin/partners`);
    expect(await page.textContent('#partners')).toContain('Ada Partner');
    await page.fill('input[name=q]', 'ADA@exam');
    await page.click('form[role=search] button');
    expect(await page.locator('#partners tbody tr').count()).toBe(1);
    await page.fill('input[name=q]', 'nobody-like-this');
    await page.click('form[role=search] button');
    expect(await page.locator('#partners').count()).toBe(0);
    expect(await page.textContent('.empty-state .empty-title')).toBe('No partner matches');
  });

  test('create with invite: errors beside their fields, then the partner row and the invite mail', async () => {
    await page.goto(`${svc.url}/admin/partners`);
    await page.fill('input[name=name]', '');
    await page.fill('input[name=email]', 'ada@example.com');
    await page.click('button:has-text("Create partner")');
    expect(await page.textContent('#f-name-error')).toBe('required');
    await page.fill('input[name=name]', 'Second Ada');
    await page.click('button:has-text("Create partner")');
    expect(await page.textContent('#f-email-error')).toContain('already exists');
    await screenshot(page, 'admin-partners-errors');

    await page.fill('input[name=email]', 'grace@example.com');
    await page.fill('input[name=name]', 'Grace');
    // every live campaign is offered, ticked; this partner gets none
    expect(await page.isChecked(`input[name=campaignIds][value="${campaignId}"]`)).toBe(true);
    await page.uncheck(`input[name=campaignIds][value="${campaignId}"]`);
    await page.click('button:has-text("Create partner")');
    expect(await page.textContent('h1')).toBe('Grace');
    expect(await page.textContent('.notice.ok')).toBe('Partner created.');
    const [row] = await svc.sql`select id, name, activated_at from partners where email = 'grace@example.com'`;
    expect(row!.name).toBe('Grace');
    expect(row!.activated_at).toBeNull();
    expect(await svc.sql`select 1 from partner_campaigns where partner_id = ${row!.id}`).toHaveLength(0);
    expect(await svc.mail.magicLink('grace@example.com')).toContain('/auth/magic?token=');

    // a pending partner can be invited again
    const before = svc.mail.messages.length;
    await page.click('button:has-text("Send the invite again")');
    expect(await page.textContent('.notice.ok')).toBe('Invite sent.');
    await svc.mail.magicLink('grace@example.com', (m) => svc.mail.messages.indexOf(m) >= before);
  });

  test('detail shows links, commissions and payouts; revoke needs a reason; reinstate', async () => {
    await page.goto(`${svc.url}/admin/partners/${partnerId}`);
    expect(await page.textContent('h1')).toBe('Ada Partner');
    expect(await page.locator('#links tbody tr').count()).toBe(1);
    expect(await page.textContent('#commissions')).toContain('20.00 EUR');
    expect(await page.textContent('#partner-status')).toBe('Invited');

    // the revoke dialog asks the reason; the browser holds back an empty one
    await page.click('a:has-text("Revoke partner…")');
    const dialog = page.locator('dialog#revoke-dialog');
    await dialog.locator('button:has-text("Revoke Ada Partner")').click();
    expect(await dialog.isVisible()).toBe(true);
    expect((await svc.sql`select revoked_at from partners where id = ${partnerId}`)[0]!.revoked_at).toBeNull();

    await dialog.locator('input[name=reason]').fill('Spam traffic');
    await dialog.locator('button:has-text("Revoke Ada Partner")').click();
    expect(await page.textContent('#partner-status')).toBe('Revoked');
    expect(await page.textContent('.reason')).toBe('Spam traffic');
    const [revoked] = await svc.sql`select revoked_at, revoke_reason from partners where id = ${partnerId}`;
    expect(revoked!.revoked_at).not.toBeNull();
    expect(revoked!.revoke_reason).toBe('Spam traffic');
    await screenshot(page, 'admin-partner-revoked');

    await page.click('button:has-text("Reinstate")');
    expect(await page.textContent('.notice.ok')).toBe('Partner reinstated.');
    expect((await svc.sql`select revoked_at from partners where id = ${partnerId}`)[0]!.revoked_at).toBeNull();
    await screenshot(page, 'admin-partner-detail');
  });

  test('an unknown partner id is a 404 page', async () => {
    const res = await page.goto(`${svc.url}/admin/partners/ptr_nothing`);
    expect(res!.status()).toBe(404);
    expect(await page.textContent('h1')).toBe('No such partner');
  });
});

describe('errors are pages', () => {
  test('an unknown admin page or a malformed id is a 404 page in the admin shell; the API keeps JSON', async () => {
    // the shell's own 404 last: its "Go to the start page" is followed below
    const pages = { '/admin/commissions/cms_nothing': 'No such commission', [`/admin/partners/${'x'.repeat(65)}`]: 'Page not found', '/admin/nope': 'Page not found' };
    for (const [path, heading] of Object.entries(pages)) {
      const res = await page.goto(`${svc.url}${path}`);
      expect(res!.status(), path).toBe(404);
      expect(res!.headers()['content-type']).toBe('text/html; charset=utf-8');
      expect(await page.textContent('h1')).toBe(heading);
      expect(await page.textContent('.who')).toBe(ADMIN);
      expect(await page.locator('nav[aria-label=Main] a').count()).toBe(ADMIN_NAV.length);
    }
    await screenshot(page, 'admin-not-found');
    await page.click('text=Go to the start page');
    expect(await page.textContent('h1')).toBe('Overview');

    const api = await svc.api('GET', '/v1/nope');
    expect(api.status).toBe(404);
    expect(api.body).toEqual({ code: 'not_found', message: 'no such route' });
    expect((await svc.api('GET', '/v1/partners/ptn_nothing')).body.code).toBe('not_found');
  });

  test('a query the page refuses is a 400 page saying why', async () => {
    const res = await page.goto(`${svc.url}/admin/partners?q=${'x'.repeat(255)}`);
    expect(res!.status()).toBe(400);
    expect(await page.textContent('h1')).toBe('Request refused');
    // in words, by the field's on-screen name: never the validator's own text
    expect(await page.textContent('.notice.error')).toBe('Search: at most 254 characters.');
    expect(await page.textContent('.who')).toBe(ADMIN);
  });
});

describe('commissions', () => {
  let ids: string[];
  beforeAll(async () => {
    ids = [await commissionFor(partnerId, 'cust-2', 20000), await commissionFor(partnerId, 'cust-3', 30000)];
  });

  test('filter by status, partner and campaign; an unknown partner email shows beside its field', async () => {
    await page.goto(`${svc.url}/admin/commissions`);
    expect(await page.locator('#commissions tbody tr').count()).toBe(3);
    await page.selectOption('select[name=status]', 'accrued');
    await page.fill('input[name=partner]', 'ada@example.com');
    await page.selectOption('select[name=campaignId]', campaignId);
    await page.click('button:has-text("Filter")');
    expect(await page.locator('#commissions tbody tr').count()).toBe(3);
    await page.selectOption('select[name=status]', 'paid');
    await page.click('button:has-text("Filter")');
    expect(await page.textContent('.empty-state .empty-title')).toBe('No commission matches');
    await page.selectOption('select[name=status]', '');
    await page.fill('input[name=partner]', 'nobody@example.com');
    await page.click('button:has-text("Filter")');
    expect(await page.textContent('#f-partner-error')).toBe('no partner has this email');
  });

  test('bulk approve the ticked rows, after its confirmation', async () => {
    await page.goto(`${svc.url}/admin/commissions?status=accrued`);
    for (const id of ids) await page.check(`#commissions tr[data-id="${id}"] input[name=ids]`);
    await screenshot(page, 'admin-commissions');
    await page.click('[data-bulk-bar] button:has-text("Approve…")');
    expect(await page.textContent('h1')).toBe('Approve 2 commissions (100.00 EUR)');
    expect((await svc.sql`select status from commissions where id = any(${ids})`).map((r) => r.status)).toEqual(['accrued', 'accrued']);
    await page.click('button:has-text("Approve 2 commissions (100.00 EUR)")');
    expect(await page.textContent('.notice.ok')).toBe('Approved 2 commissions.');
    const rows = await svc.sql`select status from commissions where id = any(${ids})`;
    expect(rows.map((r) => r.status)).toEqual(['approved', 'approved']);
    const [t] = await svc.sql`select actor from commission_transitions where commission_id = ${ids[0]!} and to_status = 'approved'`;
    expect(t!.actor).toBe(`admin:${ADMIN}`);
    // the filter stayed: only the one still accrued is listed
    expect(await page.locator('#commissions tbody tr').count()).toBe(1);
  });

  test('approve one, reverse one in its dialog with a required reason', async () => {
    await page.goto(`${svc.url}/admin/commissions?status=accrued`);
    const [row] = await svc.sql`select id from commissions where status = 'accrued'`;
    const last = row!.id as string;
    // row actions live in the row's "⋯" menu (a popover), not in the row
    await page.click(`#commissions tr[data-id="${last}"] button.more`);
    await page.click(`[popover]:popover-open button:has-text("Approve")`);
    expect(await page.textContent('.notice.ok')).toBe('Approved 1 commission.');
    expect((await svc.sql`select status from commissions where id = ${last}`)[0]!.status).toBe('approved');

    await page.goto(`${svc.url}/admin/commissions`);
    const tr = `#commissions tr[data-id="${ids[1]}"]`;
    // reversing has no undo: the menu opens its confirmation (a dialog), which asks the reason
    await page.click(`${tr} button.more`);
    await page.click(`[popover]:popover-open a:has-text("Reverse")`);
    expect(await page.textContent('dialog[open] h2')).toBe('Reverse 60.00 EUR for Ada Partner');
    // the reason is required: the browser holds the form back
    await page.click('dialog[open] button:has-text("Reverse 60.00 EUR")');
    expect(await page.locator('dialog[open] input[name=reason]:invalid').count()).toBe(1);
    expect((await svc.sql`select status from commissions where id = ${ids[1]!}`)[0]!.status).toBe('approved');
    await page.fill('dialog[open] input[name=reason]', 'Refunded');
    await page.click('dialog[open] button:has-text("Reverse 60.00 EUR")');
    expect(await page.textContent('.notice.ok')).toBe('Commission reversed.');
    expect(await page.textContent(`${tr} .badge`)).toBe('Reversed');
    // one line per row: the reason is in the badge's title
    expect(await page.getAttribute(`${tr} .badge`, 'title')).toBe('Reversed, not paid: Refunded');
    const [rev] = await svc.sql`select status, reversal_reason from commissions where id = ${ids[1]!}`;
    expect(rev).toEqual({ status: 'reversed', reversal_reason: 'Refunded' });
    await screenshot(page, 'admin-commissions-reversed');
  });
});

describe('payouts', () => {
  test('run now, mark paid with a reference, and the CSV export', async () => {
    await page.goto(`${svc.url}/admin/payouts`);
    expect(await page.textContent('.empty-state .empty-title')).toBe('No payouts yet');
    // the run is confirmed first, with what it pays
    await page.click('a:has-text("Run payouts now…")');
    expect(await page.textContent('dialog[open] h2')).toBe('Pay 60.00 EUR to 1 partner');
    expect(await svc.sql`select 1 from payouts`).toHaveLength(0);
    await page.click('dialog[open] button:has-text("Pay 60.00 EUR to 1 partner")');
    expect(await page.textContent('.notice.ok')).toBe('Payout run finished: 1 payout created.');
    const [payout] = await svc.sql`select id, status, amount, currency from payouts where partner_id = ${partnerId}`;
    expect(payout).toMatchObject({ status: 'pending', amount: 6000n, currency: 'EUR' });
    const tr = `#payouts tr[data-id="${payout!.id}"]`;
    expect(await page.textContent(tr)).toContain('60.00 EUR');
    expect(await page.textContent(tr)).toContain('Ada Partner');
    await screenshot(page, 'admin-payouts');

    await page.click(`${tr} button.more`);
    await page.click('[popover]:popover-open a:has-text("Mark paid")');
    expect(await page.textContent('dialog[open] h2')).toBe('Mark 60.00 EUR paid to Ada Partner');
    await page.fill('dialog[open] input[name=reference]', 'SEPA-2026-11');
    await page.click('dialog[open] button:has-text("Mark 60.00 EUR paid")');
    // the payout's own page says so
    expect(await page.textContent('.notice.ok')).toBe('Payout marked paid.');
    expect(await page.textContent('#payout-status')).toBe('Paid');
    const [paid] = await svc.sql`select status, provider_reference, settled_by from payouts where id = ${payout!.id}`;
    expect(paid).toEqual({ status: 'paid', provider_reference: 'SEPA-2026-11', settled_by: `admin:${ADMIN}` });
    await page.goto(`${svc.url}/admin/payouts`);
    expect(await page.textContent(tr)).toContain('SEPA-2026-11');

    // the export link opens with the admin's session
    const href = await page.getAttribute('#csv', 'href');
    const csv = await page.evaluate(async (path) => (await fetch(path!)).text(), href);
    expect(csv.split('\n')[0]).toContain('payout_id');
    expect(csv).toContain(payout!.id);

    // nothing left to pay: the confirmation and the next run say so
    await page.click('a:has-text("Run payouts now…")');
    expect(await page.textContent('dialog[open] #run-nothing')).toContain('Nothing is due');
    await page.click('dialog[open] button:has-text("Run anyway")');
    expect(await page.textContent('.notice.ok')).toBe('Payout run finished: nothing was due.');
  });
});

describe('campaigns', () => {
  let id: string;

  test('create with the rule editor: errors beside their fields, then the rules as saved', async () => {
    await page.goto(`${svc.url}/admin/campaigns`);
    expect(await page.textContent('#campaigns')).toContain('Pro plan');
    await page.fill('input[name=name]', 'Enterprise');
    await page.fill('input[name=destinationUrl]', 'nope');
    await page.fill('input[name=currency]', 'EUR');
    await page.selectOption('select[name=r0_eventPick]', 'invoice_paid');
    await page.fill('input[name=r0_percent]', '150');
    await page.click('button:has-text("Create campaign")');
    expect(await page.textContent('#f-destinationUrl-error')).toBe('must be an absolute http or https URL');
    expect(await page.textContent('#f-r0_percent-error')).toBe('more than 0 and at most 100');

    await page.fill('input[name=destinationUrl]', 'https://app.example.com/enterprise');
    await page.fill('input[name=r0_percent]', '25');
    await page.fill('input[name=r0_maxOccurrences]', '12');
    await page.click('button:has-text("Add another rule")');
    // a flat rule without an amount: the API's own rule check answers beside the amount field
    await page.selectOption('select[name=r1_eventPick]', '__other');
    await page.fill('input[name=r1_eventType]', 'seat_added');
    await page.selectOption('select[name=r1_kind]', 'flat');
    await page.fill('input[name=r1_durationDays]', '365');
    await page.click('[data-rule-row="1"] .rule-match summary');
    await page.fill('textarea[name=r1_match]', 'plan=pro\nannual=true\nseats=3');
    await page.click('button:has-text("Create campaign")');
    expect(await page.textContent('#f-r1_amount-error')).toBe('required for flat rules');
    expect(await svc.sql`select 1 from campaigns where name = 'Enterprise'`).toHaveLength(0);
    await screenshot(page, 'admin-campaign-errors');

    await page.fill('input[name=r1_amount]', '5');
    await page.click('button:has-text("Create campaign")');
    expect(await page.textContent('.notice.ok')).toBe('Campaign created.');
    const [row] = await svc.sql`select id, currency, destination_url, rules from campaigns where name = 'Enterprise'`;
    id = row!.id;
    expect(row!.currency).toBe('EUR');
    expect(row!.rules).toEqual([
      { eventType: 'invoice_paid', kind: 'percent', percent: 25, maxOccurrences: 12 },
      { eventType: 'seat_added', kind: 'flat', amount: '5', durationDays: 365, match: { plan: 'pro', annual: true, seats: 3 } },
    ]);
    await screenshot(page, 'admin-campaign');
    // the editor shows the saved rules again
    await page.goto(`${svc.url}/admin/campaigns/${id}/edit`);
    expect(await page.inputValue('select[name=r1_eventPick]')).toBe('seat_added');
    // (jsonb keeps its own key order)
    expect((await page.inputValue('textarea[name=r1_match]')).split('\n').sort()).toEqual(['annual=true', 'plan=pro', 'seats=3']);
  });

  test('edit: remove a rule and save; archive and unarchive, each confirmed', async () => {
    await page.goto(`${svc.url}/admin/campaigns/${id}/edit`);
    await page.click('[data-rule-row="0"] [data-remove-rule]');
    await page.click('button:has-text("Save campaign")');
    expect(await page.textContent('.notice.ok')).toBe('Campaign saved.');
    const [row] = await svc.sql`select rules from campaigns where id = ${id}`;
    expect(row!.rules.map((r: { eventType: string }) => r.eventType)).toEqual(['seat_added']);

    await page.click('a[data-dialog=archive-dialog]');
    await page.click('dialog#archive-dialog button:has-text("Archive campaign")');
    expect(await page.textContent('#campaign-status')).toBe('Archived');
    expect((await svc.sql`select archived_at from campaigns where id = ${id}`)[0]!.archived_at).not.toBeNull();
    await page.click('a[data-dialog=archive-dialog]');
    await page.click('dialog#archive-dialog button:has-text("Unarchive campaign")');
    expect(await page.textContent('#campaign-status')).toBe('Live');
    expect((await svc.sql`select archived_at from campaigns where id = ${id}`)[0]!.archived_at).toBeNull();
  });
});

describe('settings', () => {
  test('attribution model and window, signup open or closed', async () => {
    await page.goto(`${svc.url}/admin/settings`);
    await page.selectOption('select[name=attributionModel]', 'linear');
    await page.fill('input[name=attributionWindowDays]', '0');
    await page.selectOption('select[name=partnerSignup]', 'open');
    await page.click('button:has-text("Save settings")');
    expect(await page.textContent('#f-attributionWindowDays-error')).toBe('a whole number of days, 1 to 3650');
    expect((await svc.sql`select attribution_model from settings`)[0]!.attribution_model).toBe('last_click');
    // the form keeps what was typed
    expect(await page.inputValue('select[name=attributionModel]')).toBe('linear');

    await page.fill('input[name=attributionWindowDays]', '45');
    await page.click('button:has-text("Save settings")');
    expect(await page.textContent('.notice.ok')).toContain('Settings saved.');
    const [row] = await svc.sql`select attribution_model, attribution_window_days, partner_signup from settings`;
    expect(row).toEqual({ attribution_model: 'linear', attribution_window_days: 45, partner_signup: 'open' });
    expect((await fetch(`${svc.url}/portal/sign-up`)).status).toBe(200);
    await screenshot(page, 'admin-settings');

    await page.selectOption('select[name=partnerSignup]', 'closed');
    await page.click('button:has-text("Save settings")');
    expect((await svc.sql`select partner_signup from settings`)[0]!.partner_signup).toBe('closed');
    expect((await fetch(`${svc.url}/portal/sign-up`)).status).toBe(404);
  });
});

describe('webhooks', () => {
  let receiver: ReturnType<typeof Bun.serve>;
  const received: { headers: Headers; body: string }[] = [];
  let answer = 500;
  beforeAll(() => {
    receiver = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      async fetch(req) {
        received.push({ headers: req.headers, body: await req.text() });
        return new Response(answer === 200 ? 'thanks' : 'receiver <b>down</b>', { status: answer });
      },
    });
  });
  afterAll(() => receiver?.stop(true));

  test('create: errors beside their fields, then the secret shown once', async () => {
    await page.goto(`${svc.url}/admin/webhooks`);
    await page.fill('input[name=url]', 'ftp://example.com/hook');
    await page.click('button:has-text("Create endpoint")');
    expect(await page.textContent('#events-error')).toBe('choose at least one event, or all events');
    await page.check('input[name=events][value="webhook.test"]');
    await page.check('input[name=events][value="payout.created"]');
    await page.click('button:has-text("Create endpoint")');
    expect(await page.textContent('#f-url-error')).toBeTruthy();
    expect(await svc.sql`select 1 from webhook_endpoints`).toHaveLength(0);

    await page.fill('input[name=url]', `${receiver.url}hook`);
    await page.fill('input[name=label]', 'Billing');
    await page.click('button:has-text("Create endpoint")');
    const secret = await page.inputValue('#secret');
    const [row] = await svc.sql`select url, events, label, secret from webhook_endpoints`;
    expect(row).toEqual({ url: `${receiver.url}hook`, events: ['payout.created', 'webhook.test'].sort(), label: 'Billing', secret });
    await screenshot(page, 'admin-webhook-created');
    // shown once: the list drawn again has no secret
    await page.goto(`${svc.url}/admin/webhooks`);
    expect(await page.locator('#secret').count()).toBe(0);
    expect(await page.content()).not.toContain(secret);
    expect(await page.textContent('#endpoints')).toContain('Billing');
  });

  test('send test, the delivery log with status and response, retry, pause', async () => {
    await page.goto(`${svc.url}/admin/webhooks`);
    await page.click('#endpoints a');
    await page.click('button:has-text("Send test")');
    expect(await page.textContent('.notice.ok')).toContain('Test sent');
    expect(received).toHaveLength(1);
    expect(JSON.parse(received[0]!.body).event).toBe('webhook.test');
    const first = page.locator('#deliveries tbody tr').first();
    expect(await first.locator('.badge').textContent()).toBe('Failed');
    expect(await first.textContent()).toContain('500');
    // the response body and Retry are in the row's menu
    await first.locator('button.more').click();
    expect(await page.locator('[popover]:popover-open pre.response').textContent()).toBe('receiver <b>down</b>');

    answer = 200;
    await page.locator('[popover]:popover-open button:has-text("Retry")').click();
    expect(await page.textContent('.notice.ok')).toContain('Sent again');
    expect(received).toHaveLength(2);
    const rows = await svc.sql`select status, attempt, response_status, retry_of from webhook_deliveries order by id`;
    expect(rows.map((r) => [r.status, r.attempt, r.response_status])).toEqual([
      ['failed', 1, 500],
      ['succeeded', 2, 200],
    ]);
    expect(await page.locator('#deliveries tbody tr').first().locator('.badge').textContent()).toBe('Succeeded');
    await screenshot(page, 'admin-webhook-log');

    await page.click('button:has-text("Pause endpoint")');
    expect(await page.textContent('#endpoint-status')).toBe('Paused');
    expect((await svc.sql`select active from webhook_endpoints`)[0]!.active).toBe(false);
  });
});

describe('API keys', () => {
  test('create with scopes (shown once, and it works), revoke', async () => {
    await page.goto(`${svc.url}/admin/api-keys`);
    await page.fill('input[name=name]', 'Billing backend');
    await page.click('button:has-text("Create key")');
    expect(await page.textContent('#scopes-error')).toBe('a scoped key needs at least one scope');
    await page.check('input[name=scopes][value="events:write"]');
    await page.check('input[name=scopes][value="partners:read"]');
    await page.click('button:has-text("Create key")');
    const key = await page.inputValue('#new-key');
    expect(key).toMatch(/^sk_/);
    const [row] = await svc.sql`select id, scopes from api_keys where name = 'Billing backend' and revoked_at is null`;
    expect(row!.scopes).toEqual(['events:write', 'partners:read']);
    expect((await svc.api('GET', '/v1/partners', { key })).status).toBe(200);
    expect((await svc.api('GET', '/v1/campaigns', { key })).status).toBe(403);
    await screenshot(page, 'admin-api-key-created');

    await page.goto(`${svc.url}/admin/api-keys`);
    expect(await page.content()).not.toContain(key);
    await page.click(`#keys tr[data-id="${row!.id}"] button.more`);
    await page.click('[popover]:popover-open button:has-text("Revoke key")');
    expect(await page.textContent('.notice.ok')).toContain('Key revoked');
    expect((await svc.sql`select revoked_at from api_keys where id = ${row!.id}`)[0]!.revoked_at).not.toBeNull();
    expect((await svc.api('GET', '/v1/partners', { key })).status).toBe(401);
  });
});

describe('phone and keyboard', () => {
  test('every admin page fits a phone screen; the skip link and the nav are reachable by keyboard', async () => {
    const { context, page: phone } = await newPage(browser, { phone: true });
    await context.addCookies(await page.context().cookies());
    const [endpoint] = await svc.sql`select id from webhook_endpoints`;
    for (const path of ['/admin', '/admin/partners', `/admin/partners/${partnerId}`, '/admin/commissions', '/admin/payouts', '/admin/events', `/admin/campaigns/${campaignId}`, `/admin/campaigns/${campaignId}/edit`, '/admin/settings', `/admin/webhooks/${endpoint!.id}`, '/admin/api-keys']) {
      const res = await phone.goto(`${svc.url}${path}`);
      expect(res!.status()).toBe(200);
      const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect({ path, overflow }).toEqual({ path, overflow: 0 });
      await screenshot(phone, `admin-phone${path.replace(/[^a-z0-9]+/gi, '-')}`);
    }
    await context.close();

    await page.goto(`${svc.url}/admin`);
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('href'))).toBe('/admin');
  });
});
