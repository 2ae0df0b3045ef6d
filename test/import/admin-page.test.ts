// The admin's import page in Chromium: choose the platform and the export files, read the dry run
// (counts per kind, every problem row) with nothing written, then import the same files.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { campaign } from '../support/chain';
import { startService, type TestService } from '../support/service';
import { launchBrowser, newPage, screenshot, signInAsAdmin } from '../web/browser';
import { FIXTURES, tableCounts } from './helpers';

setDefaultTimeout(60_000);
const ADMIN = 'boss@example.com';
let svc: TestService;
let browser: Browser;
beforeAll(async () => {
  svc = await startService({ ADMIN_EMAILS: ADMIN });
  await campaign(svc, { name: 'Pro plan' });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await svc.stop();
});

const files = ['affiliates.csv', 'referrals.csv', 'commissions.csv'].map((f) => join(FIXTURES, 'rewardful', f));

describe('/admin/imports', () => {
  test('upload, read the dry run with every problem row, nothing written; then import', async () => {
    const { page } = await newPage(browser);
    await signInAsAdmin(svc, page, ADMIN);
    await page.goto(`${svc.url}/admin/imports`);
    expect(await page.textContent('h1')).toBe('Import a program');
    await page.selectOption('#i-source', 'rewardful');
    await page.setInputFiles('#i-files', files);
    const before = await tableCounts(svc);
    await page.click('text=Check the files');
    await page.waitForSelector('#import-counts');
    expect(await page.textContent('#import-report h2')).toBe('Dry run: what the import will do');
    const counts = await page.$$eval('#import-counts tbody tr', (rows) => rows.map((r) => [r.getAttribute('data-kind'), r.querySelector('.num')!.textContent!.trim()]));
    expect(counts).toEqual([['partners', '3'], ['links', '2'], ['customers', '4'], ['commissions', '6'], ['payouts', '2'], ['skipped', '0']]);
    const problems = await page.$$eval('#import-problems tbody tr', (rows) => rows.map((r) => Array.from(r.querySelectorAll('td')).map((td) => td.textContent!.trim())));
    expect(problems).toEqual([
      ['affiliates.csv', '5', 'email is not an email address ("not-an-email")'],
      ['referrals.csv', '6', 'partner 4f1d2c3a-0099 is not in affiliates.csv'],
      ['commissions.csv', '7', 'amount_cents must be a whole number of cents (got "12.50")'],
      ['commissions.csv', '9', 'customer ref-0009 is not in referrals.csv'],
    ]);
    expect(await tableCounts(svc)).toEqual(before);
    await screenshot(page, 'admin-imports-dry-run-1366');

    await page.click('#confirm-import');
    await page.waitForSelector('.import-report[data-dry-run=false]');
    expect(await page.textContent('#import-report h2')).toBe('Imported');
    const after = await tableCounts(svc);
    expect(after.partners - before.partners).toBe(3);
    expect(after.commissions - before.commissions).toBe(6);
    await screenshot(page, 'admin-imports-done-1366');
  });

  test('on a phone: the same page, and a missing file is said plainly with nothing written', async () => {
    const { page } = await newPage(browser, { phone: true });
    await signInAsAdmin(svc, page, ADMIN);
    await page.goto(`${svc.url}/admin/imports`);
    await page.selectOption('#i-source', 'tolt');
    await page.setInputFiles('#i-files', [join(FIXTURES, 'tolt', 'partners.csv')]);
    const before = await tableCounts(svc);
    await page.click('text=Check the files');
    await page.waitForSelector('#import-report .notice.error');
    expect(await page.textContent('#import-report .notice.error')).toContain('missing files customers.csv, commissions.csv');
    expect(await tableCounts(svc)).toEqual(before);
    await screenshot(page, 'admin-imports-missing-390');
    await page.setInputFiles('#i-files', ['partners.csv', 'customers.csv', 'commissions.csv'].map((f) => join(FIXTURES, 'tolt', f)));
    await page.click('text=Check the files');
    await page.waitForSelector('#import-counts');
    await screenshot(page, 'admin-imports-dry-run-390');
  });
});
