// The admin partners list fits a 1366 px screen: with a group column, long names and emails, money
// and filtered clicks, neither the page nor the table's wrapper scrolls sideways (and 390 px stacks).
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { campaign, partner } from '../support/chain';
import { click } from '../support/fixtures';
import type { TestService } from '../support/service';
import { ARTIFACTS, invitePartner, startWithAdmin } from './browser';

setDefaultTimeout(60_000);

const ADMIN = 'boss@example.com';
let svc: TestService;
let browser: Browser;
let admin: BrowserContext;
let page: Page;

beforeAll(async () => {
  ({ svc, browser, context: admin, page } = await startWithAdmin({ ADMIN_EMAILS: ADMIN }, ADMIN));
  const campaignId = await campaign(svc, { rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 20 }] });
  const group = await svc.api('POST', '/v1/groups', { body: { name: 'Premium resellers and agencies', rules: [] } });
  for (let i = 0; i < 4; i++) {
    const id = await partner(svc, `a.very.long.partner.address.number.${i}@reseller-agency.example.com`, [campaignId]);
    await svc.sql`update partners set name = ${`Alexandra Konstantinopoulou-Whitfield ${i}`} where id = ${id}`;
    if (group.status === 201) await svc.sql`update partners set group_id = ${group.body.id} where id = ${id}`;
    for (let k = 0; k < 3; k++) {
      const c = await click(svc.sql, { partnerId: id, campaignId });
      if (k === 0) await svc.sql`update clicks set uncredited_reason = 'bot_click' where id = ${c}`;
    }
  }
  await invitePartner(svc, { email: 'pending.invitee.with.a.long.address@example.com', name: 'Pending Invitee' });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

describe('the partners list', () => {
  test('fits 1366 px without sideways scrolling', async () => {
    await page.goto(`${svc.url}/admin/partners`);
    expect(await page.locator('#partners tbody tr').count()).toBe(5);
    const fit = await page.evaluate(() => {
      const wrap = document.querySelector('.table-wrap')!;
      return { page: document.documentElement.scrollWidth, wrapScroll: wrap.scrollWidth, wrapClient: wrap.clientWidth };
    });
    await page.screenshot({ path: `${ARTIFACTS}partners-fit-1366.png`, fullPage: true });
    expect(fit.page).toBeLessThanOrEqual(1366);
    expect(fit.wrapScroll).toBeLessThanOrEqual(fit.wrapClient);
    await page.setViewportSize({ width: 390, height: 900 });
    await page.reload();
    await page.screenshot({ path: `${ARTIFACTS}partners-fit-390.png`, fullPage: true });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  });
});
