// Small defects from the browser walk: the link builder refuses (never cuts) a too-long UTM value;
// the phone menu closes with Escape; a confirmation about one commission reads in the singular.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import { campaign, click, identify, partner } from '../support/chain';
import { startService, type TestService } from '../support/service';
import { launchBrowser, newPage, screenshot, signInThroughPortal } from '../web/browser';

setDefaultTimeout(60_000);

const ADMIN = 'boss@operator.example';
let svc: TestService;
let browser: Browser;
let campaignId: string;
let ann: string;

beforeAll(async () => {
  [svc, browser] = await Promise.all([startService({ ADMIN_EMAILS: ADMIN }), launchBrowser()]);
  campaignId = await campaign(svc, { destinationUrl: 'https://app.example.com/', rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 10 }] });
  ann = await partner(svc, 'ann@example.com', [campaignId]);
});
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

async function sized(phone: boolean): Promise<Page> {
  const { page } = await newPage(browser, { phone });
  if (!phone) await page.setViewportSize({ width: 1366, height: 900 });
  return page;
}

describe('portal', () => {
  test('a 5,000-character UTM value is refused beside its field and no link is made', async () => {
    for (const phone of [false, true]) {
      const page = await sized(phone);
      await signInThroughPortal(svc, page, 'ann@example.com');
      await page.goto(`${svc.url}/portal/links`);
      await page.fill('#f-utm_source', 'x'.repeat(5000));
      await page.fill('#f-slug', `too-long-${phone ? 390 : 1366}`);
      await page.click('form.builder button[value="create"]');
      expect(await page.textContent('#f-utm_source-error')).toBe('at most 500 characters (this one has 5000)');
      expect(await svc.sql`select 1 from links where partner_id = ${ann}`).toHaveLength(0);
      await screenshot(page, `portal-utm-too-long-${phone ? 390 : 1366}`);
      await page.close();
    }
  });

  test('the phone menu closes with Escape and gives focus back to its button', async () => {
    const page = await sized(true);
    await signInThroughPortal(svc, page, 'ann@example.com');
    await page.click('details.menu > summary');
    expect(await page.locator('details.menu[open]').count()).toBe(1);
    await page.keyboard.press('Escape');
    expect(await page.locator('details.menu[open]').count()).toBe(0);
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('SUMMARY');
    await page.close();
  });
});

describe('admin', () => {
  test('approving one commission says "1 commission ... becomes approved: it is paid"', async () => {
    const { clickId } = await click(svc, campaignId, ann);
    await identify(svc, 'grammar-user', [clickId]);
    expect((await svc.api('POST', '/v1/events', { body: { userId: 'grammar-user', type: 'invoice_paid', amount: 5000, currency: 'USD' } })).status).toBe(201);
    const [row] = await svc.sql`select id from commissions where partner_id = ${ann}`;
    for (const phone of [false, true]) {
      const page = await sized(phone);
      const before = svc.mail.messages.length;
      await page.goto(`${svc.url}/admin/sign-in`);
      await page.fill('input[name=email]', ADMIN);
      await page.click('button[type=submit]');
      await page.waitForSelector('.notice.ok');
      await page.goto(await svc.mail.magicLink(ADMIN, (m) => svc.mail.messages.indexOf(m) >= before));
      await page.goto(`${svc.url}/admin/commissions?status=accrued`);
      await page.check(`#commissions tr[data-id="${row!.id}"] input[name=ids]`);
      // the confirm page (the dialog's no-script twin) carries the same sentence
      await page.evaluate(() => document.querySelectorAll('dialog').forEach((d) => d.remove()));
      await page.click('[data-bulk-bar] button:has-text("Approve…")');
      const text = await page.textContent('main');
      expect(text).toContain('1 commission for 1 partner becomes approved: it is paid in the next payout run');
      expect(text).not.toContain('become approved');
      await screenshot(page, `admin-approve-one-${phone ? 390 : 1366}`);
      await page.close();
    }
  });
});

describe('portal links page and promotion codes', () => {
  test('a partner with a code sees it on the Links page, not "not available yet"', async () => {
    const page = await sized(true);
    await signInThroughPortal(svc, page, 'ann@example.com');
    await page.goto(`${svc.url}/portal/links`);
    expect(await page.textContent('#codes-note')).toContain('You have no promotion code yet');
    const made = await svc.api('POST', '/v1/codes', { body: { code: 'ANN20', partnerId: ann, campaignId } });
    expect(made.status).toBe(201);
    for (const phone of [true, false]) {
      const p = phone ? page : await sized(false);
      if (!phone) await signInThroughPortal(svc, p, 'ann@example.com');
      await p.goto(`${svc.url}/portal/links`);
      const note = await p.textContent('#codes-note');
      expect(note).toContain('Your code: ANN20.');
      expect(await p.textContent('main')).not.toContain('not available yet');
      await screenshot(p, `portal-links-codes-${phone ? 390 : 1366}`);
      await p.close();
    }
  });
});

describe('portal commissions in words', () => {
  test('the commissions list says "Paid invoice", never the internal invoice_paid', async () => {
    // Ann has asked for many links in this file: clear the per-email limit
    await svc.sql`delete from sign_in_requests`;
    for (const phone of [false, true]) {
      const page = await sized(phone);
      await signInThroughPortal(svc, page, 'ann@example.com');
      await page.goto(`${svc.url}/portal/commissions`);
      const first = await page.textContent('#commissions tbody tr td.lead');
      expect(first).toBe('Paid invoice');
      expect(await page.textContent('main')).not.toContain('invoice_paid');
      await screenshot(page, `portal-commissions-words-${phone ? 390 : 1366}`);
      await page.close();
    }
  });
});
