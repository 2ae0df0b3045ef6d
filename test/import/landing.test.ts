// Old links keep working in a real browser: an operator's landing page on 127.0.0.1 loads
// /client.js; a visitor arriving with another platform's referral parameter (?via=<token>,
// LEGACY_REF_PARAMS) gets the click of the imported share link recorded, and the customer it
// becomes is credited to the imported partner.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { BROWSER_UA } from '../support/chain';
import { startService, type TestService } from '../support/service';
import { launchBrowser } from '../web/browser';
import { FIXTURES, formOf, postImport } from './helpers';

let svc: TestService;
let browser: Browser;
let shop: ReturnType<typeof Bun.serve>;
let publishable: string;
let ada: string;
let grace: string;

beforeAll(async () => {
  svc = await startService({ LEGACY_REF_PARAMS: 'via,fpr,ref,ps_partner_key,aff' });
  publishable = await svc.publishableKey();
  shop = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: () =>
      new Response(`<!doctype html><html><head><script src="${svc.url}/client.js" data-key="${publishable}"></script></head><body>Landing</body></html>`, {
        headers: { 'content-type': 'text/html' },
      }),
  });
  const created = await svc.api('POST', '/v1/campaigns', {
    body: { name: 'Shop', destinationUrl: `http://127.0.0.1:${shop.port}/`, currency: 'USD', rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 10 }] },
  });
  for (const source of ['rewardful', 'firstpromoter']) {
    const res = await postImport(svc, formOf(join(FIXTURES, source), { source, campaignId: created.body.id }));
    expect(res.status).toBe(200);
  }
  ada = (await svc.sql`select id from partners where email = 'ada@example.com'`)[0]!.id;
  grace = (await svc.sql`select id from partners where email = 'grace@example.com'`)[0]!.id;
  browser = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  shop?.stop(true);
  await svc.stop();
});

async function land(query: string) {
  const page = await (await browser.newContext({ userAgent: BROWSER_UA })).newPage();
  await page.goto(`http://127.0.0.1:${shop.port}/pricing${query}`);
  await page.waitForFunction(() => (window as any).partnerd !== undefined);
  return page;
}

const clicksOf = async (partnerId: string) => {
  await svc.ctx.links.clicks.flush();
  return (await svc.sql`select id from clicks where partner_id = ${partnerId} and uncredited_reason is null order by id`).map((r) => r.id as string);
};

describe('a landing page with an old referral parameter', () => {
  test('?via=<token> records a click on the imported link; the customer it becomes earns the imported partner a commission', async () => {
    const page = await land('?via=ada&utm_source=blog');
    // identify waits for the click the page is recording
    const answer = await page.evaluate(() => (window as any).partnerd.identify('landing-user-1'));
    expect(answer.clickIds).toHaveLength(1);
    expect(await clicksOf(ada)).toEqual(answer.clickIds);

    const sale = await svc.api('POST', '/v1/events', { body: { userId: 'landing-user-1', type: 'invoice_paid', amount: 5000, currency: 'USD' } });
    expect(sale.status).toBe(201);
    expect([...(await svc.sql`select partner_id, amount from commissions where user_id = 'landing-user-1'`)]).toEqual([{ partner_id: ada, amount: 500n }]);

    // a reload of the same landing page is not a second click
    await page.reload();
    await page.waitForFunction(() => (window as any).partnerd !== undefined);
    await page.evaluate(() => (window as any).partnerd.identify('landing-user-1'));
    expect(await clicksOf(ada)).toHaveLength(1);
  }, 60_000);

  test("FirstPromoter's ?fpr= and a parameter added by LEGACY_REF_PARAMS credit their partners; an unknown parameter or token records nothing", async () => {
    const before = await clicksOf(grace);
    const fpr = await land('?fpr=grace');
    const one = await fpr.evaluate(() => (window as any).partnerd.identify('landing-user-2'));
    const aff = await land('?aff=grace');
    const two = await aff.evaluate(() => (window as any).partnerd.identify('landing-user-3'));
    expect(await clicksOf(grace)).toEqual([...before, ...one.clickIds, ...two.clickIds].sort());

    const counted = async () => (await svc.sql`select count(*)::int as n from clicks`)[0]!.n;
    const total = await counted();
    for (const query of ['?partner=ada', '?via=nobody-here', '?via=<script>']) {
      const page = await land(query);
      const none = await page.evaluate(() => (window as any).partnerd.identify('landing-user-4'));
      expect(none.clickIds).toEqual([]);
    }
    await svc.ctx.links.clicks.flush();
    expect(await counted()).toBe(total);
  }, 90_000);
});
