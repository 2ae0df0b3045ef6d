// Issue 16 in the admin, in a real browser on data built over the API: partner groups (list, create,
// edit, bad input that saves nothing), moving partners into a group (bulk, confirmed; and on the
// partner's page), a recruiter set and cleared, which rules paid each commission and the recruit
// overrides, tiers and the recruiter percent in the campaign rule editor, and the preview step
// (per partner current vs would-earn, equal to the API's preview; nothing written until saved).
// Screenshots at 1366x900 and 390x844.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { campaign, click, identify } from '../support/chain';
import { startService, type TestService } from '../support/service';
import { invitePartner, LAPTOP, launchBrowser, postForm, screenshot, screenshotBothWidths } from './browser';

setDefaultTimeout(40_000);

const ADMIN = 'boss@example.com';

let svc: TestService;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let pro: string;
let ada: string;
let bob: string;
let cy: string;
let groupId: string;

/** A referred customer of `partnerId` pays `amount` cents: answers the event id. */
async function sale(partnerId: string, userId: string, amount: number): Promise<string> {
  const { clickId } = await click(svc, pro, partnerId);
  await identify(svc, userId, [clickId]);
  const res = await svc.api('POST', '/v1/events', { body: { userId, type: 'invoice_paid', amount, currency: 'EUR' } });
  expect(res.status).toBe(201);
  return res.body.id;
}

const groupOf = async (id: string) => ((await svc.sql`select group_id from partners where id = ${id}`)[0]!.group_id as string | null) ?? null;
const recruiterOf = async (id: string) => ((await svc.sql`select referred_by from partners where id = ${id}`)[0]!.referred_by as string | null) ?? null;

beforeAll(async () => {
  [svc, browser] = await Promise.all([startService({ ADMIN_EMAILS: ADMIN }), launchBrowser()]);
  context = await browser.newContext({ viewport: LAPTOP });
  page = await context.newPage();
  await page.goto(`${svc.url}/admin/sign-in`);
  await page.fill('input[name=email]', ADMIN);
  await page.click('button[type=submit]');
  await page.waitForSelector('.notice.ok');
  await page.goto(await svc.mail.magicLink(ADMIN));
  pro = await campaign(svc, { name: 'Pro plan', currency: 'EUR', rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 20 }] });
  ada = await invitePartner(svc, { email: 'ada@example.com', name: 'Ada Archer', campaignIds: [pro] });
  bob = await invitePartner(svc, { email: 'bob@example.com', name: 'Bob Baker', campaignIds: [pro] });
  cy = await invitePartner(svc, { email: 'cy@example.com', name: 'Cy Cooper', campaignIds: [pro] });
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

describe('groups', () => {
  test('no groups yet: the empty state, Groups in the navigation', async () => {
    await page.goto(`${svc.url}/admin/groups`);
    expect(await page.textContent('nav a[aria-current=page]')).toBe('Groups');
    expect(await page.textContent('.empty-state .empty-title')).toBe('No groups yet');
    expect(await page.getAttribute('.empty-state a.button', 'href')).toBe('#new');
  });

  test('bad input shows beside its field and creates nothing', async () => {
    await page.goto(`${svc.url}/admin/groups`);
    await page.fill('input[name=holdbackDays]', 'soon');
    await page.selectOption('select[name=r0_eventPick]', 'invoice_paid');
    await page.fill('input[name=r0_percent]', '30');
    // a tier that names what it pays but no threshold
    await page.click('[data-rule-row="0"] .rule-tiers summary');
    // a new rule has no tier row until one is asked for; the script adds it in place
    expect(await page.locator('[data-rule-row="0"] [data-tier-row]').count()).toBe(0);
    await page.click('[data-rule-row="0"] [data-add-tier]');
    expect(await page.locator('[data-rule-row="0"] [data-tier-row]').count()).toBe(1);
    await page.fill('input[name=r0_t0_percent]', '40');
    await page.click('button:has-text("Create group")');
    expect(await page.textContent('#f-name-error')).toBe('required');
    expect(await page.textContent('#f-holdbackDays-error')).toBe("a whole number of days, 0 to 3650 (empty: the campaign's)");
    expect(await page.textContent('#f-r0_t0_minRevenue-error')).toBe('give a revenue or a number of new customers (or both)');
    expect(await page.getAttribute('#f-r0_t0_minRevenue', 'aria-invalid')).toBe('true');
    expect(await page.textContent('.notice.error')).toContain('nothing was saved');
    // what was typed is kept
    expect(await page.inputValue('input[name=r0_percent]')).toBe('30');
    expect(await svc.sql`select 1 from partner_groups`).toHaveLength(0);
    await screenshot(page, 'rewards-group-errors-1366');
  });

  test('create: a rule for one campaign with a tier; the list shows it in words', async () => {
    await page.fill('input[name=name]', 'Top affiliates');
    await page.fill('input[name=holdbackDays]', '14');
    await page.selectOption('select[name=r0_campaignId]', pro);
    await page.fill('input[name=r0_t0_minRevenue]', '100');
    await page.fill('input[name=r0_periodDays]', '60');
    await page.click('button:has-text("Create group")');
    expect(await page.textContent('.notice.ok')).toBe('Group created.');
    const [row] = await svc.sql`select id, name, rules, holdback_days from partner_groups`;
    groupId = row!.id;
    expect(new URL(page.url()).pathname).toBe(`/admin/groups/${groupId}`);
    expect({ name: row!.name, holdback: row!.holdback_days, rules: row!.rules }).toEqual({
      name: 'Top affiliates',
      holdback: 14,
      rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 30, campaignId: pro, periodDays: 60, tiers: [{ minRevenue: '100', percent: 40 }] }],
    });
    // the API answers the same group
    const api = await svc.api('GET', `/v1/groups/${groupId}`);
    expect(api.body.rules).toEqual(row!.rules);
    expect(await page.textContent('#rule-summary li')).toBe(
      'In Pro plan: 30% of every paid invoice; 40% from 100.00 EUR revenue (measured over the last 60 days).',
    );

    await page.goto(`${svc.url}/admin/groups`);
    const item = page.locator(`#groups tr[data-id="${groupId}"]`);
    expect(await item.locator('td.lead').textContent()).toBe('Top affiliates');
    expect(await item.locator('[data-stat=partners]').textContent()).toBe('0');
    expect(await item.locator('[data-stat=rules] .trunc').getAttribute('title')).toBe(
      'In Pro plan: 30% of every paid invoice; 40% from 100.00 EUR revenue (measured over the last 60 days)',
    );
    await screenshotBothWidths(page, 'rewards-groups');
  });

  test('edit: a rule for every campaign added with script, the summary follows, a bad percent saves nothing', async () => {
    await page.goto(`${svc.url}/admin/groups/${groupId}`);
    await page.click('button:has-text("Add another rule")');
    const last = (await page.locator('#rules [data-rule-row]').last().getAttribute('data-rule-row'))!;
    await page.selectOption(`select[name=r${last}_eventPick]`, 'signup');
    await page.selectOption(`select[name=r${last}_kind]`, 'flat');
    await page.fill(`input[name=r${last}_amount]`, '5');
    await page.locator('#rule-summary li[data-rule="1"]:has-text("5.00")').waitFor();
    expect(await page.textContent('#rule-summary li[data-rule="1"] > span')).toBe('In every campaign: 5.00 (campaign currency) for every signup.');
    await page.fill('input[name=r0_percent]', '130');
    await page.click('button:has-text("Save group")');
    expect(await page.textContent('#f-r0_percent-error')).toBe('more than 0 and at most 100');
    expect((await svc.sql`select rules from partner_groups where id = ${groupId}`)[0]!.rules).toHaveLength(1);
    await page.fill('input[name=r0_percent]', '30');
    await page.click('button:has-text("Save group")');
    expect(await page.textContent('.notice.ok')).toBe('Group saved.');
    const [row] = await svc.sql`select rules from partner_groups where id = ${groupId}`;
    expect(row!.rules[1]).toEqual({ eventType: 'signup', kind: 'flat', amount: '5' });
    await screenshotBothWidths(page, 'rewards-group-edit');
  });

  test('without script: "Add another tier" posts back with one more empty tier row, typing kept; empty tier rows are ignored on save', async () => {
    const before = (await svc.sql`select rules from partner_groups where id = ${groupId}`)[0]!.rules;
    const plain = await browser.newContext({ viewport: LAPTOP, javaScriptEnabled: false, storageState: await context.storageState() });
    const p = await plain.newPage();
    await p.goto(`${svc.url}/admin/groups/${groupId}`);
    // the tiered rule shows its tier and no empty row; the rule without tiers shows none
    expect(await p.locator('[data-rule-row="0"] [data-tier-row]').count()).toBe(1);
    expect(await p.locator('[data-rule-row="1"] [data-tier-row]').count()).toBe(0);
    await p.fill('input[name=name]', 'Top affiliates (edited)');
    await p.click('[data-rule-row="1"] .rule-tiers summary');
    await p.click('[data-rule-row="1"] [data-add-tier]');
    expect(await p.locator('[data-rule-row="1"] [data-tier-row]').count()).toBe(1);
    expect(await p.inputValue('input[name=name]')).toBe('Top affiliates (edited)');
    await p.fill('input[name=r1_t0_minCustomers]', '2');
    await p.fill('input[name=r1_t0_amount]', '8');
    // a second one, left empty
    await p.click('[data-rule-row="1"] [data-add-tier]');
    expect(await p.locator('[data-rule-row="1"] [data-tier-row]').count()).toBe(2);
    expect(await p.inputValue('input[name=r1_t0_minCustomers]')).toBe('2');
    expect(await p.locator('[data-rule-row="0"] [data-tier-row]').count()).toBe(1);
    // nothing saved by asking for rows
    expect((await svc.sql`select name from partner_groups where id = ${groupId}`)[0]!.name).toBe('Top affiliates');
    await p.click('button:has-text("Save group")');
    expect(await p.textContent('.notice.ok')).toBe('Group saved.');
    const [row] = await svc.sql`select name, rules from partner_groups where id = ${groupId}`;
    expect(row!.name).toBe('Top affiliates (edited)');
    expect(row!.rules[1]).toEqual({ eventType: 'signup', kind: 'flat', amount: '5', tiers: [{ minCustomers: 2, amount: '8' }] });
    expect(row!.rules[0]).toEqual(before[0]);
    // saved: the tiers as saved, no empty row
    expect(await p.locator('[data-rule-row="1"] [data-tier-row]').count()).toBe(1);
    await plain.close();
    // back as the later tests expect it
    expect((await svc.api('PATCH', `/v1/groups/${groupId}`, { body: { name: 'Top affiliates', rules: before } })).status).toBe(200);
  });
});

describe('partners and groups', () => {
  test('bulk move: tick, choose the group, confirm; nothing moves before', async () => {
    await page.goto(`${svc.url}/admin/partners`);
    await page.check(`#partners tr[data-id="${ada}"] input[name=ids]`);
    await page.check(`#partners tr[data-id="${bob}"] input[name=ids]`);
    expect(await page.textContent('#bulk-bar [data-bulk-count]')).toBe('2 selected');
    await page.selectOption('#bulk-group', groupId);
    await screenshotBothWidths(page, 'rewards-partners-bulk-move');
    await page.click('#bulk-bar button:has-text("Move to group…")');
    expect(await page.textContent('h1')).toBe('Move 2 partners to Top affiliates');
    expect(await page.locator('#bulk-targets li').count()).toBe(2);
    expect([await groupOf(ada), await groupOf(bob)]).toEqual([null, null]);
    // a post without the confirmation moves nobody
    const csrf = await page.inputValue('input[name=_csrf]');
    const bare = await postForm(page, '/admin/partners/bulk-move', { _csrf: csrf, ids: ada, groupId });
    expect(bare.status).toBe(200);
    expect(await groupOf(ada)).toBeNull();
    // nothing ticked, or a group that does not exist: refused with the reason, nobody moved
    const none = await postForm(page, '/admin/partners/bulk-move', { _csrf: csrf, groupId });
    expect(none.status).toBe(400);
    expect(none.text).toContain('Tick the partners to move first.');
    const gone = await postForm(page, '/admin/partners/bulk-move', { _csrf: csrf, ids: ada, groupId: 'grp_gone', confirmed: '1' });
    expect(gone.status).toBe(400);
    expect(gone.text).toContain('that group no longer exists');
    expect(await groupOf(ada)).toBeNull();
    await screenshotBothWidths(page, 'rewards-partners-move-confirm');
    await page.click('button:has-text("Move 2 partners")');
    expect(await page.textContent('.notice.ok')).toBe('Moved 2 partners.');
    expect([await groupOf(ada), await groupOf(bob), await groupOf(cy)]).toEqual([groupId, groupId, null]);
    // the group column, the group filter, and "no group"
    expect(await page.textContent(`#partners tr[data-id="${ada}"] [data-stat=group]`)).toBe('Top affiliates');
    expect(await page.textContent(`#partners tr[data-id="${cy}"] [data-stat=group]`)).toBe('–');
    await page.selectOption('select[name=group]', groupId);
    await page.click('form.partner-filter button:has-text("Filter")');
    const ids = async () => (await page.locator('#partners tbody tr').evaluateAll((rs) => rs.map((r) => r.getAttribute('data-id')))).sort();
    expect(await ids()).toEqual([ada, bob].sort());
    await page.goto(`${svc.url}/admin/partners?group=none`);
    expect(await ids()).toEqual([cy]);
    // an unknown group in the URL is no filter, never an error
    await page.goto(`${svc.url}/admin/partners?group=grp_nope`);
    expect((await ids()).length).toBe(3);
    await page.goto(`${svc.url}/admin/groups`);
    expect(await page.textContent(`#groups tr[data-id="${groupId}"] [data-stat=partners]`)).toBe('2');
  });

  test("the partner page: its group, a recruiter set by email, bad recruiters refused, cleared", async () => {
    await page.goto(`${svc.url}/admin/partners/${cy}`);
    expect(await page.textContent('#partner-group')).toBe("none (each campaign's rules)");
    expect(await page.textContent('#partner-recruiter')).toBe('nobody');
    // nobody with that email: said beside the field, nothing saved
    await page.fill('input[name=recruiter]', 'nobody@example.com');
    await page.selectOption('select[name=groupId]', groupId);
    await page.click('#edit-form button:has-text("Save changes")');
    expect(await page.textContent('#f-recruiter-error')).toBe('no partner has this email or id');
    expect([await groupOf(cy), await recruiterOf(cy)]).toEqual([null, null]);
    // its own recruiter: the API's refusal beside the field
    await page.fill('input[name=recruiter]', 'cy@example.com');
    await page.click('#edit-form button:has-text("Save changes")');
    expect(await page.textContent('#f-recruiter-error')).toBe('a partner cannot be its own recruiter');
    expect([await groupOf(cy), await recruiterOf(cy)]).toEqual([null, null]);
    await screenshot(page, 'rewards-partner-errors-1366');
    await page.fill('input[name=recruiter]', 'ada@example.com');
    await page.selectOption('select[name=groupId]', '');
    await page.click('#edit-form button:has-text("Save changes")');
    expect(await page.textContent('.notice.ok')).toBe('Changes saved.');
    expect([await groupOf(cy), await recruiterOf(cy)]).toEqual([null, ada]);
    expect(await page.textContent('#partner-recruiter')).toBe('Ada Archer');
    // Ada (recruited Cy) cannot then be recruited by Cy: a loop
    await page.goto(`${svc.url}/admin/partners/${ada}`);
    expect(await page.textContent('#partner-group')).toBe('Top affiliates');
    await page.fill('input[name=recruiter]', 'cy@example.com');
    await page.click('#edit-form button:has-text("Save changes")');
    expect(await page.textContent('#f-recruiter-error')).toBe('that partner was recruited by this one');
    expect(await recruiterOf(ada)).toBeNull();
    // Bob: recruited by Ada, then cleared
    await page.goto(`${svc.url}/admin/partners/${bob}`);
    await page.fill('input[name=recruiter]', ada);
    await page.click('#edit-form button:has-text("Save changes")');
    expect(await recruiterOf(bob)).toBe(ada);
    await page.fill('input[name=recruiter]', '');
    await page.click('#edit-form button:has-text("Save changes")');
    expect(await recruiterOf(bob)).toBeNull();
    expect(await groupOf(bob)).toBe(groupId);
  });
});

describe('which rules paid, and recruit overrides', () => {
  let cyEvent: string;

  test('a group member earns the group rate, a recruit earns its recruiter an override; the pages say which', async () => {
    expect((await svc.api('PATCH', `/v1/campaigns/${pro}`, { body: { recruiterPercent: 10 } })).status).toBe(200);
    await sale(ada, 'cust-ada', 10000);
    cyEvent = await sale(cy, 'cust-cy', 20000);
    const rows = await svc.sql`select partner_id, event_type, amount, rule_source, source_commission_id from commissions order by id`;
    // Ada: the group's 30% of 100.00; Cy: the campaign's 20% of 200.00 and Ada's 10% of that
    expect(rows.map((r) => [r.partner_id, r.event_type, Number(r.amount), r.rule_source])).toEqual([
      [ada, 'invoice_paid', 3000, 'group'],
      [cy, 'invoice_paid', 4000, 'campaign'],
      [ada, 'recruit_override', 400, 'campaign'],
    ]);

    await page.goto(`${svc.url}/admin/commissions`);
    const sources = await page.locator('#commissions tbody tr').evaluateAll((trs) =>
      trs.map((tr) => (tr.querySelector('td[data-label=Event]') as HTMLElement).innerText.replace(/\s+/g, ' ').trim()),
    );
    expect(sources.sort()).toEqual(['Recruit override of Cy Cooper', 'invoice_paid campaign rules', 'invoice_paid group rules'].sort());
    expect(await page.getAttribute('[data-rule-source=group]', 'title')).toContain("rules of the partner's group");
    await screenshotBothWidths(page, 'rewards-commissions');

    // the event page: both of Cy's sale's commissions, the override naming its recruit
    await page.goto(`${svc.url}/admin/events/${cyEvent}`);
    expect(await page.locator('#commissions .override').textContent()).toBe('Recruit override of Cy Cooper');
    expect(await page.getAttribute('#commissions .override a', 'href')).toBe(`/admin/partners/${cy}`);

    // Ada's page: Cy among its recruits with the override earned, and the override in its commissions
    await page.goto(`${svc.url}/admin/partners/${ada}`);
    const recruit = page.locator(`#recruits-table tr[data-id="${cy}"]`);
    expect(await recruit.locator('td.lead').textContent()).toBe('Cy Cooper');
    expect(await recruit.locator('[data-stat=earnings]').textContent()).toBe('4.00 EUR');
    expect(await page.locator('#commissions .override').textContent()).toBe('Recruit override of Cy Cooper');
    await screenshotBothWidths(page, 'rewards-partner-page');

    // reversing Cy's commission reverses the override: the recruit's earnings drop out
    const [cyCommission] = await svc.sql`select id from commissions where partner_id = ${cy}`;
    expect((await svc.api('POST', `/v1/commissions/${cyCommission!.id}/reverse`, { body: { reason: 'refund' } })).status).toBe(200);
    await page.reload();
    expect(await page.locator(`#recruits-table tr[data-id="${cy}"] [data-stat=earnings]`).textContent()).toBe('nothing yet');
  });
});

describe('recruits that applied', () => {
  test("Ada's page and the campaign page show each recruit's own status: an application waiting is Applied, a declined one Declined, not Invited", async () => {
    expect((await svc.api('PATCH', '/v1/settings', { body: { partnerSignup: 'review' } })).status).toBe(200);
    // two people apply through Ada's recruiting link; one of them is declined
    for (const email of ['dee@example.com', 'eve@example.com']) {
      const res = await svc.api('POST', '/auth/signup', { key: null, body: { email, name: email.slice(0, 3), ref: ada } });
      expect(res.status).toBe(202);
    }
    const applicant = async (email: string) => (await svc.sql`select id from partners where email = ${email}`)[0]!.id as string;
    const [dee, eve] = [await applicant('dee@example.com'), await applicant('eve@example.com')];
    expect((await svc.api('POST', `/v1/partners/${eve}/decline`, { body: { reason: 'not a fit' } })).status).toBe(200);
    expect((await svc.api('PATCH', '/v1/settings', { body: { partnerSignup: 'closed' } })).status).toBe(200);

    await page.goto(`${svc.url}/admin/partners/${ada}`);
    const badge = (id: string) => page.locator(`#recruits-table tr[data-id="${id}"] [data-label=Status] .badge`);
    expect([await badge(dee).textContent(), await badge(eve).textContent()]).toEqual(['Applied', 'Declined']);
    // the same words on the campaign page, which lists the campaign's partners, and on the partner's own page
    await page.goto(`${svc.url}/admin/campaigns/${pro}`);
    const held = (id: string) => page.locator(`#campaign-partners tr[data-id="${id}"] [data-label=Status] .badge`);
    expect([await held(dee).textContent(), await held(eve).textContent()]).toEqual(['Applied', 'Declined']);
    await page.goto(`${svc.url}/admin/partners/${dee}`);
    expect(await page.textContent('#partner-status')).toBe('Applied');
    await page.goto(`${svc.url}/admin/partners/${ada}#recruits`);
    await screenshotBothWidths(page, 'rewards-recruit-statuses');
  });
});

describe('the campaign rule editor: tiers, recruiter percent, preview', () => {
  test('a tier row, the recruiter percent; bad values beside their fields, nothing saved', async () => {
    await page.goto(`${svc.url}/admin/campaigns/${pro}/edit`);
    expect(await page.inputValue('input[name=recruiterPercent]')).toBe('10');
    await page.fill('input[name=recruiterPercent]', '150');
    await page.click('[data-rule-row="0"] .rule-tiers summary');
    await page.click('[data-rule-row="0"] [data-add-tier]');
    await page.fill('input[name=r0_t0_minCustomers]', 'two');
    await page.fill('input[name=r0_t0_percent]', '25');
    await page.click('button:has-text("Save campaign")');
    expect(await page.textContent('#f-recruiterPercent-error')).toBe('a percent more than 0 and at most 100 (empty: off)');
    expect(await page.textContent('#f-r0_t0_minCustomers-error')).toBe('must be a whole number');
    const [row] = await svc.sql`select rules, recruiter_percent from campaigns where id = ${pro}`;
    expect({ rules: row!.rules, percent: Number(row!.recruiter_percent) }).toEqual({ rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 20 }], percent: 10 });
    await screenshot(page, 'rewards-campaign-tier-errors-1366');
  });

  test('the preview: per partner current vs would earn, equal to the API; back keeps the form; save writes exactly it', async () => {
    await page.goto(`${svc.url}/admin/campaigns/${pro}/edit`);
    await page.fill('input[name=r0_percent]', '25');
    await page.click('[data-rule-row="0"] .rule-tiers summary');
    await page.click('[data-rule-row="0"] [data-add-tier]');
    await page.fill('input[name=r0_t0_minRevenue]', '150');
    await page.fill('input[name=r0_t0_percent]', '35');
    await page.fill('input[name=recruiterPercent]', '12.5');
    // the summary in words follows the typing, tiers included
    await page.locator('#rule-summary li:has-text("35% from 150.00 EUR revenue")').waitFor();
    await screenshotBothWidths(page, 'rewards-campaign-tiers');
    await page.click('#preview-button');
    expect(await page.textContent('h1')).toBe('Preview the new rules of Pro plan');
    const draft = [{ eventType: 'invoice_paid', kind: 'percent', percent: 25, tiers: [{ minRevenue: '150', percent: 35 }] }];
    const api = await svc.api('POST', `/v1/campaigns/${pro}/preview`, { body: { rules: draft, days: 30 } });
    expect(api.status).toBe(200);
    const shown = await page.locator('#preview-partners tbody tr').evaluateAll((trs) =>
      trs.map((tr) => ({
        partnerId: tr.getAttribute('data-id'),
        current: tr.querySelector('[data-stat=current]')!.textContent,
        preview: tr.querySelector('[data-stat=preview]')!.textContent,
        difference: tr.querySelector('[data-stat=difference]')!.textContent,
      })),
    );
    const money = (s: string) => `${Number(s).toFixed(2)} EUR`;
    const signed = (s: string) => (Number(s) > 0 ? `+${money(s)}` : money(s));
    expect(shown).toEqual(api.body.partners.map((p: Record<string, string>) => ({ partnerId: p.partnerId, current: money(p.current!), preview: money(p.preview!), difference: signed(p.difference!) })));
    expect(shown.length).toBeGreaterThan(0);
    expect(await page.textContent('#preview-difference .value')).toBe(signed(api.body.total.difference));
    expect(await page.textContent('#preview-current .value')).toBe(money(api.body.total.current));
    expect(await page.textContent('#preview-terms li')).toBe('25% of every paid invoice; 35% from 150.00 EUR revenue (measured over the last 30 days).');
    // nothing written by the preview
    expect((await svc.sql`select rules from campaigns where id = ${pro}`)[0]!.rules).toEqual([{ eventType: 'invoice_paid', kind: 'percent', percent: 20 }]);
    await screenshotBothWidths(page, 'rewards-preview');

    // back to editing: the form as typed
    await page.click('button:has-text("Back to editing")');
    expect(await page.inputValue('input[name=r0_percent]')).toBe('25');
    expect(await page.inputValue('input[name=r0_t0_minRevenue]')).toBe('150');
    expect(await page.inputValue('input[name=recruiterPercent]')).toBe('12.5');
    // a bad number of days is refused beside its field
    await page.fill('input[name=previewDays]', '400');
    await page.click('#preview-button');
    expect(await page.textContent('#f-previewDays-error')).toBe('a whole number of days, 1 to 365');
    await page.fill('input[name=previewDays]', '7');
    await page.click('#preview-button');
    expect(await page.textContent('#preview-partners caption')).toContain('last 7 days');
    await page.click('#preview-form button:has-text("Save campaign")');
    expect(await page.textContent('.notice.ok')).toBe('Campaign saved.');
    const [row] = await svc.sql`select rules, recruiter_percent from campaigns where id = ${pro}`;
    expect({ rules: row!.rules, percent: Number(row!.recruiter_percent) }).toEqual({ rules: draft, percent: 12.5 });
    expect(await page.textContent('#terms li')).toBe('25% of every paid invoice; 35% from 150.00 EUR revenue (measured over the last 30 days).');
  });

  test('without script the editor still previews and saves', async () => {
    const plain = await browser.newContext({ viewport: LAPTOP, javaScriptEnabled: false, storageState: await context.storageState() });
    const p = await plain.newPage();
    await p.goto(`${svc.url}/admin/campaigns/${pro}/edit`);
    // the saved tier and no empty tier row until "Add another tier", which posts the form back and
    // keeps what was typed
    expect(await p.inputValue('input[name=r0_t0_minRevenue]')).toBe('150');
    expect(await p.locator('[data-rule-row="0"] [data-tier-row]').count()).toBe(1);
    await p.fill('input[name=r0_percent]', '26');
    await p.click('[data-rule-row="0"] [data-add-tier]');
    expect(await p.locator('[data-rule-row="0"] [data-tier-row]').count()).toBe(2);
    expect(await p.inputValue('input[name=r0_percent]')).toBe('26');
    expect(await p.inputValue('input[name=r0_t1_minCustomers]')).toBe('');
    expect((await svc.sql`select rules from campaigns where id = ${pro}`)[0]!.rules[0].percent).toBe(25);
    await p.fill('input[name=r0_percent]', '25');
    await p.fill('input[name=r0_t1_minCustomers]', '3');
    // one more, left empty: skipped
    await p.click('[data-rule-row="0"] [data-add-tier]');
    expect(await p.inputValue('input[name=r0_t1_minCustomers]')).toBe('3');
    await p.fill('input[name=r0_t1_percent]', '40');
    await p.click('#preview-button');
    expect(await p.textContent('#preview-terms li')).toContain('40% from 3 new customers');
    await p.click('#preview-form button:has-text("Save campaign")');
    expect((await svc.sql`select rules from campaigns where id = ${pro}`)[0]!.rules[0].tiers).toEqual([
      { minRevenue: '150', percent: 35 },
      { minCustomers: 3, percent: 40 },
    ]);
    await plain.close();
  });
});

describe('markup', () => {
  test('a group name with markup renders as text on every page that shows it', async () => {
    const name = '<img src=x onerror="window.__pwned=1"><b>Stars</b>';
    const res = await svc.api('POST', '/v1/groups', { body: { name } });
    expect(res.status).toBe(201);
    expect((await svc.api('PATCH', `/v1/partners/${bob}`, { body: { groupId: res.body.id } })).status).toBe(200);
    for (const path of ['/admin/groups', `/admin/groups/${res.body.id}`, '/admin/partners', `/admin/partners/${bob}`]) {
      await page.goto(`${svc.url}${path}`);
      expect({ path, img: await page.locator('main img[src=x], main b').count() }).toEqual({ path, img: 0 });
      expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned ?? null)).toBeNull();
      expect(await page.locator(`main :text("${'<b>Stars</b>'}")`).count()).toBeGreaterThan(0);
    }
  });
});
