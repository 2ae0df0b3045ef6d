// Traffic breakdowns in a real browser: clicks from known addresses, agents, referrers and sub-IDs
// land in their buckets on the admin's traffic page (whole program, a partner, a link, a campaign)
// and in the portal, where a partner sees only its own traffic (1366 and 390 px).
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import { BROWSER_UA, campaign, identify, partner } from '../support/chain';
import { startService, type TestService } from '../support/service';
import { ARTIFACTS, launchBrowser, newPage, signInAsAdmin, signInThroughPortal } from './browser';

setDefaultTimeout(60_000);

const ADMIN = 'boss@example.com';
const IPHONE_UA =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const IPAD_UA = 'Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1';
const FIREFOX_UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0';
const BOT_UA = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';

let svc: TestService;
let browser: Browser;
let admin: Page;
let campaignId: string;
let otherCampaign: string;
const links: Record<string, { id: string; slug: string }> = {};

async function visit(slug: string, query: string, headers: Record<string, string>): Promise<string> {
  const res = await fetch(`${svc.url}/r/${slug}${query}`, { redirect: 'manual', headers });
  expect(res.status).toBe(302);
  return new URL(res.headers.get('location')!).searchParams.get('pp_click')!;
}

async function makeLink(name: string, campaign: string, partnerId: string) {
  const res = await svc.api('POST', '/v1/links', { body: { campaignId: campaign, partnerId, slug: name } });
  expect(res.status).toBe(201);
  links[name] = { id: res.body.id, slug: res.body.slug };
}

beforeAll(async () => {
  [svc, browser] = await Promise.all([startService({ ADMIN_EMAILS: ADMIN, TRUST_PROXY: '1' }), launchBrowser()]);
  const rules = [{ eventType: 'invoice_paid', kind: 'percent', percent: 20 }];
  campaignId = await campaign(svc, { name: 'Pro plan', rules });
  otherCampaign = await campaign(svc, { name: 'Team plan', rules });
  const ann = await partner(svc, 'ann@example.com', [campaignId, otherCampaign]);
  const bob = await partner(svc, 'bob@example.com', [campaignId]);
  await makeLink('ann-main', campaignId, ann);
  await makeLink('ann-team', otherCampaign, ann);
  await makeLink('bob-main', campaignId, bob);

  // Ann: a phone in Germany from Google with sub=newsletter, who becomes a customer
  const bought = await visit('ann-main', '?sub=newsletter', { 'user-agent': IPHONE_UA, 'x-forwarded-for': '194.25.2.129', referer: 'https://www.google.com/search?q=x' });
  await visit('ann-main', '?sub=newsletter', { 'user-agent': FIREFOX_UA, 'x-forwarded-for': '81.2.69.160' });
  await visit('ann-main', '?sub=youtube', { 'user-agent': BROWSER_UA, 'x-forwarded-for': '8.8.8.8', referer: 'https://www.youtube.com/watch?v=1' });
  await visit('ann-team', '', { 'user-agent': IPAD_UA, 'x-forwarded-for': '1.1.1.1' });
  // a bot's click is kept but never credited: in no bucket
  await visit('ann-main', '?sub=newsletter', { 'user-agent': BOT_UA, 'x-forwarded-for': '66.249.66.1' });
  // Bob's traffic must never show in Ann's portal
  await visit('bob-main', '?sub=bob-secret', { 'user-agent': BROWSER_UA, 'x-forwarded-for': '194.25.2.130', referer: 'https://bob.example/' });
  await svc.ctx.links.clicks.flush();
  await identify(svc, 'cust-1', [bought]);
  expect((await svc.api('POST', '/v1/events', { body: { userId: 'cust-1', type: 'invoice_paid', amount: 5000, currency: 'USD' } })).status).toBe(201);

  admin = (await newPage(browser)).page;
  await admin.setViewportSize({ width: 1366, height: 900 });
  await signInAsAdmin(svc, admin, ADMIN);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

/** The rows of one breakdown table: [bucket words, clicks, conversions]. */
async function rows(page: Page, dimension: string): Promise<[string, number, number][]> {
  return page.$$eval(`#by-${dimension} tbody tr`, (trs) =>
    trs.map((tr) => {
      const cells = Array.from(tr.querySelectorAll("td")).map((td) => td.textContent!.trim());
      return [cells[0]!, Number(cells[1]!.replace(/,/g, '')), Number(cells[3]!.replace(/,/g, ''))] as [string, number, number];
    }),
  );
}

describe('admin', () => {
  test('the whole program: each click in its bucket, the bot in none, the customer counted where it came from', async () => {
    await admin.goto(`${svc.url}/admin/traffic`);
    expect(await admin.textContent('h1')).toBe('Traffic');
    expect(await rows(admin, 'sub')).toEqual([
      ['newsletter', 2, 1],
      ['bob-secret', 1, 0],
      ['youtube', 1, 0],
      ['No sub-ID', 1, 0],
    ]);
    expect(await rows(admin, 'country')).toEqual([
      ['Germany (DE)', 2, 1],
      ['Australia (AU)', 1, 0],
      ['United Kingdom (GB)', 1, 0],
      ['United States (US)', 1, 0],
    ]);
    expect(await rows(admin, 'device')).toEqual([
      ['Desktop', 3, 0],
      ['Mobile', 1, 1],
      ['Tablet', 1, 0],
    ]);
    expect((await rows(admin, 'browser')).map((r) => r[0]).sort()).toEqual(['Chrome', 'Firefox', 'Safari']);
    expect(await rows(admin, 'referrer')).toEqual([
      ['Direct or hidden', 2, 0],
      ['google.com', 1, 1],
      ['bob.example', 1, 0],
      ['youtube.com', 1, 0],
    ]);
    await admin.screenshot({ path: `${ARTIFACTS}traffic-admin-1366.png`, fullPage: true });
  });

  test("from a partner's page to its traffic, then one of its links, then a campaign", async () => {
    const [ann] = await svc.sql`select id from partners where email = 'ann@example.com'`;
    await admin.goto(`${svc.url}/admin/partners/${ann!.id}`);
    await admin.click('#partner-traffic');
    expect(await admin.textContent('#scope')).toContain('Partner: ann');
    expect(await rows(admin, 'sub')).toEqual([
      ['newsletter', 2, 1],
      ['youtube', 1, 0],
      ['No sub-ID', 1, 0],
    ]);

    await admin.goto(`${svc.url}/admin/partners/${ann!.id}`);
    await admin.click(`a[aria-label="Traffic of /r/ann-team"]`);
    expect(await admin.textContent('#scope')).toContain('Link: /r/ann-team');
    expect(await rows(admin, 'country')).toEqual([['Australia (AU)', 1, 0]]);

    await admin.goto(`${svc.url}/admin/campaigns/${otherCampaign}`);
    await admin.click('#campaign-traffic');
    expect(await admin.textContent('#scope')).toContain('Campaign: Team plan');
    expect(await rows(admin, 'device')).toEqual([['Tablet', 1, 0]]);
    // a range with nothing in it: every table says so
    await admin.goto(`${svc.url}/admin/traffic?range=custom&from=2020-01-01&to=2020-01-31`);
    expect(await admin.locator('.breakdown p.empty').count()).toBe(5);
  });
});

describe('portal', () => {
  let page: Page;
  beforeAll(async () => {
    page = (await newPage(browser)).page;
    await page.setViewportSize({ width: 1366, height: 900 });
    await signInThroughPortal(svc, page, 'ann@example.com');
  });

  test("a partner sees its own channels and nobody else's; another partner's link is not found", async () => {
    await page.goto(`${svc.url}/portal/links`);
    await page.click('#links-traffic');
    expect(new URL(page.url()).pathname).toBe('/portal/traffic');
    expect(await rows(page, 'sub')).toEqual([
      ['newsletter', 2, 1],
      ['youtube', 1, 0],
      ['No sub-ID', 1, 0],
    ]);
    const html = await page.content();
    expect(html).not.toContain('bob-secret');
    expect(html).not.toContain('bob.example');
    await page.screenshot({ path: `${ARTIFACTS}traffic-portal-1366.png`, fullPage: true });

    await page.selectOption('#traffic-link', links['ann-team']!.id);
    await page.click('form[aria-label="Choose a link"] button[type=submit]');
    expect(await rows(page, 'country')).toEqual([['Australia (AU)', 1, 0]]);

    const res = await page.goto(`${svc.url}/portal/traffic?linkId=${links['bob-main']!.id}`);
    expect(res!.status()).toBe(404);
    expect(await page.content()).not.toContain('bob-secret');
  });

  test('on a phone the tables fit the screen', async () => {
    const phone = (await newPage(browser, { phone: true })).page;
    await signInThroughPortal(svc, phone, 'ann@example.com');
    await phone.goto(`${svc.url}/portal/traffic`);
    const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await phone.screenshot({ path: `${ARTIFACTS}traffic-portal-390.png`, fullPage: true });
    await admin.setViewportSize({ width: 390, height: 844 });
    await admin.goto(`${svc.url}/admin/traffic`);
    await admin.screenshot({ path: `${ARTIFACTS}traffic-admin-390.png`, fullPage: true });
    await admin.setViewportSize({ width: 1366, height: 900 });
  });
});
