// The admin campaign form's first submit names every problem at once: a javascript: destination
// (which passes the schema's length check) beside its field together with the rule errors, and an
// unknown currency ("DOGE") beside the currency field. Nothing is created (1366 and 390 px).
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { TestService } from '../support/service';
import { ARTIFACTS, startWithAdmin } from './browser';

setDefaultTimeout(60_000);

const ADMIN = 'boss@example.com';
let svc: TestService;
let browser: Browser;
let admin: BrowserContext;
let page: Page;

beforeAll(async () => {
  ({ svc, browser, context: admin, page } = await startWithAdmin({ ADMIN_EMAILS: ADMIN }, ADMIN));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

const error = async (field: string) => (await page.textContent(`#f-${field}-error`))?.trim();

describe('the campaign form on its first submit', () => {
  test('a javascript: destination is refused beside its field along with a bad rule', async () => {
    await page.goto(`${svc.url}/admin/campaigns`);
    await page.fill('input[name=name]', 'Sneaky');
    await page.fill('input[name=destinationUrl]', 'javascript:alert(document.cookie)');
    await page.fill('input[name=currency]', 'USD');
    await page.selectOption('select[name=r0_eventPick]', 'invoice_paid');
    await page.fill('input[name=r0_percent]', '150');
    await page.click('button:has-text("Create campaign")');
    expect(await error('destinationUrl')).toBe('must be an absolute http or https URL');
    expect(await error('r0_percent')).toBe('more than 0 and at most 100');
    expect(await svc.sql`select 1 from campaigns where name = 'Sneaky'`).toHaveLength(0);
    await page.screenshot({ path: `${ARTIFACTS}campaign-form-javascript-1366.png`, fullPage: true });
  });

  test('a javascript: destination alone is refused on the first submit', async () => {
    await page.goto(`${svc.url}/admin/campaigns`);
    await page.fill('input[name=name]', 'Sneaky');
    await page.fill('input[name=destinationUrl]', 'javascript:alert(1)');
    await page.fill('input[name=currency]', 'USD');
    await page.selectOption('select[name=r0_eventPick]', 'invoice_paid');
    await page.fill('input[name=r0_percent]', '20');
    await page.click('button:has-text("Create campaign")');
    expect(await error('destinationUrl')).toBe('must be an absolute http or https URL');
    expect(await svc.sql`select 1 from campaigns where name = 'Sneaky'`).toHaveLength(0);
  });

  test('"DOGE" shows "unknown currency" beside the currency field', async () => {
    for (const width of [1366, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${svc.url}/admin/campaigns`);
      await page.fill('input[name=name]', 'Meme coin');
      await page.fill('input[name=destinationUrl]', 'https://app.example.com/signup');
      await page.fill('input[name=currency]', 'DOGE');
      await page.selectOption('select[name=r0_eventPick]', 'invoice_paid');
      await page.fill('input[name=r0_percent]', '20');
      await page.click('button:has-text("Create campaign")');
      expect(await error('currency')).toContain('unknown currency');
      expect(await page.inputValue('input[name=currency]')).toBe('DOGE');
      expect(await svc.sql`select 1 from campaigns where name = 'Meme coin'`).toHaveLength(0);
      await page.screenshot({ path: `${ARTIFACTS}campaign-form-doge-${width}.png`, fullPage: true });
    }
  });

  test('the edit form shows the saved rules without an empty one; "Add another rule" adds it', async () => {
    const res = await svc.api('POST', '/v1/campaigns', {
      body: { name: 'Edited', destinationUrl: 'https://app.example.com/signup', currency: 'USD', rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 20 }] },
    });
    expect(res.status).toBe(201);
    for (const width of [1366, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${svc.url}/admin/campaigns/${res.body.id}/edit`);
      expect(await page.locator('#rules [data-rule-row]').count()).toBe(1);
      expect(await page.inputValue('input[name=r0_percent]')).toBe('20');
      await page.screenshot({ path: `${ARTIFACTS}campaign-edit-rows-${width}.png`, fullPage: true });
    }
    await page.click('button:has-text("Add another rule")');
    expect(await page.locator('#rules [data-rule-row]').count()).toBe(2);
    // a new campaign (no rules yet) still starts with one empty row
    await page.goto(`${svc.url}/admin/campaigns`);
    expect(await page.locator('#rules [data-rule-row]').count()).toBe(1);
  });
});
