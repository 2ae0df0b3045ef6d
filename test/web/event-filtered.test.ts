// An event whose user's only partner clicks were filtered (a bot, a click flood): the event page says
// which filter kept each click from credit, not "the user has no partner click" (1366 and 390 px).
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { campaign, partner } from '../support/chain';
import { click, identify } from '../support/fixtures';
import { startService, type TestService } from '../support/service';
import { ARTIFACTS, launchBrowser, signInAsAdmin } from './browser';

setDefaultTimeout(60_000);

const ADMIN = 'boss@example.com';
let svc: TestService;
let browser: Browser;
let admin: BrowserContext;
let page: Page;
let campaignId: string;
let partnerId: string;

beforeAll(async () => {
  [svc, browser] = await Promise.all([startService({ ADMIN_EMAILS: ADMIN }), launchBrowser()]);
  admin = await browser.newContext({ viewport: { width: 1366, height: 900 } });
  page = await admin.newPage();
  await signInAsAdmin(svc, page, ADMIN);
  campaignId = await campaign(svc, { rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 20 }] });
  partnerId = await partner(svc, 'pat@example.com', [campaignId]);
  await svc.sql`update partners set name = 'Pat Partner' where id = ${partnerId}`;
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

/** A user whose clicks were all filtered with these reasons, then a sale of theirs: its event id. */
async function saleAfterFilteredClicks(userId: string, reasons: string[]): Promise<string> {
  const clicks: string[] = [];
  for (const reason of reasons) {
    const id = await click(svc.sql, { partnerId, campaignId });
    await svc.sql`update clicks set uncredited_reason = ${reason} where id = ${id}`;
    clicks.push(id);
  }
  await identify(svc.sql, userId, clicks);
  const res = await svc.api('POST', '/v1/events', { body: { userId, type: 'invoice_paid', amount: 5000, currency: 'USD' } });
  expect(res.status).toBe(201);
  const [event] = await svc.sql`select attribution_status from events where id = ${res.body.id}`;
  expect(event!.attribution_status).toBe('no_click');
  return res.body.id;
}

const empty = async () => (await page.textContent('#attribution-empty'))?.replace(/\s+/g, ' ').trim();

describe('an event whose clicks were filtered', () => {
  test('one click filtered as a bot: the page names the bot filter and the partner', async () => {
    const id = await saleAfterFilteredClicks('bot-user', ['bot_click']);
    for (const width of [1366, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${svc.url}/admin/events/${id}`);
      const text = await empty();
      expect(text).toBe("Not attributed: the user's only partner click (through Pat Partner) was filtered as a bot (its user agent is a crawler or script), so it earns no credit.");
      expect(text).not.toContain('has no partner click');
      await page.screenshot({ path: `${ARTIFACTS}event-filtered-bot-${width}.png`, fullPage: true });
    }
  });

  test('clicks filtered as a flood and a bot: the page counts each filter', async () => {
    const id = await saleAfterFilteredClicks('flood-user', ['click_flood', 'click_flood', 'bot_click']);
    await page.setViewportSize({ width: 1366, height: 900 });
    await page.goto(`${svc.url}/admin/events/${id}`);
    expect(await empty()).toBe("Not attributed: all 3 of the user's partner clicks were filtered (1 as a bot, 2 as a click flood), so none earns credit.");
  });

  test('a user with no click at all still reads "no partner click"', async () => {
    const id = await saleAfterFilteredClicks('nobody', []);
    await page.goto(`${svc.url}/admin/events/${id}`);
    expect(await empty()).toBe('Not attributed: the user has no partner click');
  });
});
