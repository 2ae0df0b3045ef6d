// The admin's import page in Chromium: choose the platform and the export files, read the dry run
// (counts per kind, every problem row) with nothing written, then import the same files.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { campaign } from '../support/chain';
import { startService, type TestService } from '../support/service';
import { launchBrowser, newPage, postForm, screenshot, signInAsAdmin } from '../web/browser';
import { FIXTURES, tableCounts } from './helpers';

setDefaultTimeout(60_000);
const ADMIN = 'boss@example.com';
// each session signs in by mail (at most 5 sign-in mails per address in 15 minutes)
const NOJS = 'nojs@example.com';
const OTHER = 'other@example.com';
let svc: TestService;
let browser: Browser;
beforeAll(async () => {
  svc = await startService({ ADMIN_EMAILS: [ADMIN, NOJS, OTHER].join(',') });
  await campaign(svc, { name: 'Pro plan' });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await svc.stop();
});

/** The files kept on the server after a dry run (for one source: each test checks its own). */
const keptUploads = async (source: string) => Number((await svc.sql`select count(*)::int as n from import_uploads where source = ${source}`)[0]!.n);

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
    // the checked files were kept only until they were imported
    expect(await keptUploads('rewardful')).toBe(0);
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

  for (const [width, phone] of [[1366, false], [390, true]] as const) {
    test(`without JavaScript (${width} px): check the files, then "Import now" imports the kept files with nothing chosen again`, async () => {
      const source = phone ? 'firstpromoter' : 'partnerstack';
      const viewport = phone ? { width: 390, height: 844 } : { width: 1366, height: 900 };
      const context = await browser.newContext({ viewport, isMobile: phone, hasTouch: phone, javaScriptEnabled: false });
      const page = await context.newPage();
      await signInAsAdmin(svc, page, NOJS);
      await page.goto(`${svc.url}/admin/imports`);
      await page.selectOption('#i-source', source);
      const dir = join(FIXTURES, source);
      await page.setInputFiles('#i-files', readdirSync(dir).map((f) => join(dir, f)));
      const before = await tableCounts(svc);
      await page.click('text=Check the files');
      await page.waitForSelector('#import-counts');
      expect(await page.textContent('#import-report h2')).toBe('Dry run: what the import will do');
      const counts = Object.fromEntries(
        await page.$$eval('#import-counts tbody tr', (rows) => rows.map((r) => [r.getAttribute('data-kind'), Number(r.querySelector('.num')!.textContent!.replace(/,/g, ''))])),
      );
      expect(counts.partners).toBeGreaterThan(0);
      expect(await tableCounts(svc)).toEqual(before);
      // the confirm posts a token, not files: the files wait on the server for this session
      expect(await page.$$('#confirm-form input[type=file]')).toHaveLength(0);
      expect(await keptUploads(source)).toBe(readdirSync(dir).length);
      await screenshot(page, `admin-imports-nojs-dry-run-${width}`);

      await page.click('#confirm-import');
      await page.waitForSelector('.import-report[data-dry-run=false]');
      expect(await page.textContent('#import-report h2')).toBe('Imported');
      expect(await page.textContent('#import-report .notice.ok')).toContain('The import is done.');
      const after = await tableCounts(svc);
      expect(after.partners - before.partners).toBe(counts.partners);
      expect(after.links - before.links).toBe(counts.links);
      expect(after.commissions - before.commissions).toBe(counts.commissions);
      expect(after.payouts - before.payouts).toBe(counts.payouts);
      expect(await keptUploads(source)).toBe(0);
      // the audit log names the admin who imported, with what was created
      const [entry] = await svc.sql`select actor_type, actor_id, changes from audit_log where action = 'import.completed' and target_id = ${source}`;
      expect(entry).toMatchObject({ actor_type: 'admin', actor_id: NOJS });
      expect(entry!.changes.partners).toEqual([null, counts.partners]);
      expect(entry!.changes.commissions).toEqual([null, counts.commissions]);
      await screenshot(page, `admin-imports-nojs-done-${width}`);
      await context.close();
    });
  }

  test('a kept upload answers only its own session, and only once', async () => {
    const { page } = await newPage(browser);
    await signInAsAdmin(svc, page, ADMIN);
    await page.goto(`${svc.url}/admin/imports`);
    await page.selectOption('#i-source', 'tolt');
    await page.setInputFiles('#i-files', ['partners.csv', 'customers.csv', 'commissions.csv'].map((f) => join(FIXTURES, 'tolt', f)));
    await page.click('text=Check the files');
    await page.waitForSelector('#confirm-form');
    const fields = await page.$$eval('#confirm-form input[type=hidden]', (inputs) => Object.fromEntries(inputs.map((i) => [(i as HTMLInputElement).name, (i as HTMLInputElement).value])));
    const before = await tableCounts(svc);
    // another admin session posting the token (with its own CSRF token) gets nothing imported
    const other = await newPage(browser);
    await signInAsAdmin(svc, other.page, OTHER);
    await other.page.goto(`${svc.url}/admin/imports`);
    const csrf = await other.page.$eval('#import-form input[name=_csrf]', (i) => (i as HTMLInputElement).value);
    const refused = await postForm(other.page, '/admin/imports', { ...fields, _csrf: csrf });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('the checked files are no longer kept');
    expect(await tableCounts(svc)).toEqual(before);
    // its own session imports it; posting the same token again imports nothing more
    await page.click('#confirm-import');
    await page.waitForSelector('.import-report[data-dry-run=false]');
    const after = await tableCounts(svc);
    expect(after.partners).toBeGreaterThan(before.partners);
    const again = await postForm(page, '/admin/imports', fields);
    expect(again.status).toBe(400);
    expect(await tableCounts(svc)).toEqual(after);
  });
});
