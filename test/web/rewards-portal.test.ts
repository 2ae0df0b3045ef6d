// Issue 16 in the partner portal, in a real browser: the partner's current tier and what the next
// one needs (equal to what accrual then pays), terms that put the group's rates first, the
// recruiting link (Copy; a signup through it makes a recruit), and the recruits with the override
// commissions each brought. Another partner's recruits stay out of reach. Screenshots at 1366x900
// and 390x844.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { campaign, click, identify } from '../support/chain';
import { startService, type TestService } from '../support/service';
import { invitePartner, LAPTOP, launchBrowser, PHONE, screenshotBothWidths, signInThroughPortal } from './browser';

setDefaultTimeout(40_000);


let svc: TestService;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let pro: string;
let ada: string;
let bob: string;

async function sale(partnerId: string, userId: string, amount: number): Promise<void> {
  const { clickId } = await click(svc, pro, partnerId);
  await identify(svc, userId, [clickId]);
  const res = await svc.api('POST', '/v1/events', { body: { userId, type: 'invoice_paid', amount, currency: 'EUR' } });
  expect(res.status).toBe(201);
}

beforeAll(async () => {
  [svc, browser] = await Promise.all([startService({ PARTNER_SIGNUP: 'open' }), launchBrowser()]);
  pro = await campaign(svc, {
    name: 'Pro plan',
    currency: 'EUR',
    recruiterPercent: 10,
    rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 20, tiers: [{ minRevenue: '500', percent: 25 }, { minRevenue: '2000', minCustomers: 5, percent: 30 }] }],
  });
  ada = await invitePartner(svc, { email: 'ada@example.com', name: 'Ada Archer', campaignIds: [pro] });
  bob = await invitePartner(svc, { email: 'bob@example.com', name: 'Bob Baker', campaignIds: [pro] });
  context = await browser.newContext({ viewport: LAPTOP });
  page = await context.newPage();
  await signInThroughPortal(svc, page, 'ada@example.com');
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

describe('tiers on the home', () => {
  test('below every tier: the base rate, and what tier 1 needs', async () => {
    await sale(ada, 'cust-1', 30000);
    await page.goto(`${svc.url}/portal`);
    const card = page.locator(`#tiers .tier-card[data-campaign="${pro}"]`);
    expect(await card.locator('[data-tier]').textContent()).toBe('Base rate');
    expect(await card.locator('.tier-now').textContent()).toBe('Base rate 20% of every paid invoice.');
    expect(await card.locator('.hint').textContent()).toBe('Over the last 30 days: 300.00 EUR revenue from 1 new customer.');
    expect(await card.locator('.tier-next p').textContent()).toBe('Next: Tier 1, 25% of every paid invoice. It needs:');
    expect(await card.locator('.meter-text').allTextContents()).toEqual(['300.00 EUR of 500.00 EUR · 200.00 EUR to go']);
    expect(await card.locator('progress').getAttribute('value')).toBe('60');
  });

  test('tier 1 reached: the next sale pays it, and the card shows the two thresholds of tier 2', async () => {
    await sale(ada, 'cust-2', 30000);
    // the second sale was measured with 300.00 EUR before it: still the base rate
    const amounts = async () => (await svc.sql`select amount from commissions where partner_id = ${ada} order by id`).map((r) => Number(r.amount));
    expect(await amounts()).toEqual([6000, 6000]);
    await sale(ada, 'cust-3', 10000);
    // 600.00 EUR before it: tier 1's 25%
    expect(await amounts()).toEqual([6000, 6000, 2500]);
    await page.goto(`${svc.url}/portal`);
    const card = page.locator(`#tiers .tier-card[data-campaign="${pro}"]`);
    expect(await card.locator('[data-tier]').textContent()).toBe('Tier 1');
    expect(await card.locator('.tier-next p').textContent()).toBe('Next: Tier 2, 30% of every paid invoice. It needs:');
    expect(await card.locator('.meter-text').allTextContents()).toEqual(['700.00 EUR of 2,000.00 EUR · 1,300.00 EUR to go', '3 of 5 · 2 to go']);
    // the terms say the tiers too
    expect(await page.locator('#terms-title ~ ul.terms .rules li').first().textContent()).toContain('25% from 500.00 EUR revenue');
    await screenshotBothWidths(page, 'rewards-portal-home');
  });

  test("a group's rates come first in the terms", async () => {
    const group = await svc.api('POST', '/v1/groups', { body: { name: 'Stars', rules: [{ eventType: 'signup', kind: 'flat', amount: '3', campaignId: pro }] } });
    expect(group.status).toBe(201);
    expect((await svc.api('PATCH', `/v1/partners/${ada}`, { body: { groupId: group.body.id } })).status).toBe(200);
    await page.goto(`${svc.url}/portal`);
    const terms = page.locator('ul.terms > li').first();
    expect(await terms.locator('.rules li').first().textContent()).toBe('3.00 EUR for every signup.');
    expect(await terms.locator('.note').textContent()).toContain("Your partner group's rates come first");
  });
});

describe('recruiting', () => {
  test('the recruiting link with Copy; a signup through it becomes a recruit', async () => {
    await page.goto(`${svc.url}/portal/recruits`);
    expect(await page.textContent('nav a[aria-current=page]')).toBe('Recruits');
    const link = await page.inputValue('#recruit-url');
    expect(link).toBe(`${svc.url}/portal/sign-up?ref=${ada}`);
    expect(await page.getAttribute('button[data-copy]', 'data-copy')).toBe('#recruit-url');
    expect(await page.textContent('#recruit-terms li')).toBe('Pro plan: you earn 10% of every commission your recruits earn, as your own commission.');
    expect(await page.textContent('.empty-state .empty-title')).toBe('No recruits yet');

    // someone follows the link and signs up
    const visitor = await browser.newContext({ viewport: PHONE });
    const v = await visitor.newPage();
    await v.goto(link);
    await v.fill('input[name=name]', 'Cy Cooper');
    await v.fill('input[name=email]', 'cy@example.com');
    await v.click('button:has-text("Sign up")');
    await v.waitForSelector('.done-state');
    await visitor.close();
    const [cy] = await svc.sql`select id, referred_by from partners where email = 'cy@example.com'`;
    expect(cy!.referred_by).toBe(ada);
    // a link naming nobody real signs up without a recruiter, never an error
    const other = await browser.newContext();
    const o = await other.newPage();
    await o.goto(`${svc.url}/portal/sign-up?ref=ptn_doesnotexist`);
    await o.fill('input[name=name]', 'Dee Dale');
    await o.fill('input[name=email]', 'dee@example.com');
    await o.click('button:has-text("Sign up")');
    await o.waitForSelector('.done-state');
    await other.close();
    expect((await svc.sql`select referred_by from partners where email = 'dee@example.com'`)[0]!.referred_by).toBeNull();

    // Cy sells: Ada earns 10% of Cy's commission, shown beside Cy
    await svc.sql`insert into partner_campaigns (partner_id, campaign_id) select ${cy!.id}, ${pro} where not exists (select 1 from partner_campaigns where partner_id = ${cy!.id} and campaign_id = ${pro})`;
    await sale(cy!.id, 'cust-cy', 10000);
    const [override] = await svc.sql`select amount from commissions where partner_id = ${ada} and event_type = 'recruit_override'`;
    expect(Number(override!.amount)).toBe(200);
    await page.reload();
    const row = page.locator(`#recruits tr[data-id="${cy!.id}"]`);
    expect(await row.locator('td.lead').textContent()).toBe('Cy Cooper');
    expect(await row.locator('[data-stat=earnings]').textContent()).toBe('2.00 EUR');
    // no email of the recruit on the page
    expect(await page.content()).not.toContain('cy@example.com');
    await screenshotBothWidths(page, 'rewards-portal-recruits');
  });

  test("another partner sees its own recruiting link and none of Ada's recruits", async () => {
    const other = await browser.newContext({ viewport: LAPTOP });
    const p = await other.newPage();
    await signInThroughPortal(svc, p, 'bob@example.com');
    await p.goto(`${svc.url}/portal/recruits`);
    expect(await p.inputValue('#recruit-url')).toBe(`${svc.url}/portal/sign-up?ref=${bob}`);
    expect(await p.locator('#recruits tbody tr').count()).toBe(0);
    expect(await p.content()).not.toContain('Cy Cooper');
    await other.close();
  });
});
