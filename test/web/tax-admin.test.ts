// The admin's side of tax forms, in Chromium: Settings > Tax and legal (taxForms and the legal
// details, errors beside their fields, the refusal naming ENCRYPTION_KEY on a service without it),
// the 1099-NEC page (a year's payees, who is in the file, who was paid $600 or more without a form,
// the CSV download written to the audit log), the partner's tax form status (last four digits at
// most), and the payout page's invoice link. Screenshots at 1366 and 390 px.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import type { Browser } from 'playwright-core';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { insertCampaign, insertCommission, insertPartner } from '../support/lifecycle-fixtures';
import { startService, type TestService } from '../support/service';
import { W8BEN, W9 } from '../tax/forms';
import { launchBrowser, newPage, screenshot, signInAsAdmin } from './browser';

const ADMIN = 'finance-lead@example.com';
const year = new Date().getUTCFullYear();
let svc: TestService;
let plain: TestService;
let browser: Browser;
const ids: Record<string, string> = {};
const payoutOf: Record<string, string> = {};

/** Pays `cents` USD to the partner through a run and mark-paid, dated `paidAt`. */
async function pay(partnerId: string, campaignId: string, cents: number, paidAt: string) {
  await insertCommission(svc.sql, { partnerId, campaignId, amount: cents, status: 'approved', currency: 'USD' });
  const run = await svc.api('POST', '/v1/payouts/run');
  const payout = run.body.payouts.find((p: { partnerId: string }) => p.partnerId === partnerId);
  expect((await svc.api('POST', `/v1/payouts/${payout.id}/mark-paid`, { body: {} })).status).toBe(200);
  await svc.sql`update payouts set paid_at = ${paidAt} where id = ${payout.id}`;
  return payout.id as string;
}

beforeAll(async () => {
  [svc, plain, browser] = await Promise.all([
    startService({ ADMIN_EMAILS: ADMIN, ENCRYPTION_KEY: randomBytes(32).toString('base64') }),
    startService({ ADMIN_EMAILS: ADMIN }),
    launchBrowser(),
  ]);
  const usd = await insertCampaign(svc.sql, { currency: 'USD' });
  for (const name of ['Ada', 'Cy', 'Eve', 'Bob', 'Dee']) ids[name] = await insertPartner(svc.sql, { name });
  const put = (id: string, body: unknown) => svc.api('PUT', `/v1/partners/${id}/tax-profile`, { body });
  expect((await put(ids.Ada!, { ...W9, legalName: 'Ada Lovelace' })).status).toBe(200);
  expect((await put(ids.Cy!, { ...W9, legalName: 'Cy Corp', taxClassification: 'c_corporation', tinType: 'ein', tin: '12-3456789' })).status).toBe(200);
  expect((await put(ids.Bob!, { ...W9, legalName: 'Bob Under', tin: '234-56-7890' })).status).toBe(200);
  expect((await put(ids.Dee!, W8BEN)).status).toBe(200);
  payoutOf.Ada = await pay(ids.Ada!, usd, 65_000, `${year}-02-01T00:00:00Z`);
  await pay(ids.Ada!, usd, 90_000, `${year - 1}-06-01T00:00:00Z`);
  await pay(ids.Cy!, usd, 60_000, `${year}-03-01T00:00:00Z`);
  await pay(ids.Eve!, usd, 100_000, `${year}-03-01T00:00:00Z`);
  await pay(ids.Bob!, usd, 10_000, `${year}-03-01T00:00:00Z`);
  await pay(ids.Dee!, usd, 70_000, `${year}-03-01T00:00:00Z`);
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await Promise.all([svc?.stop(), plain?.stop()]);
});

test('Settings > Tax and legal: a bad VAT id is named beside its field and nothing is stored; then require and the legal details are saved', async () => {
  const { context, page } = await newPage(browser);
  await page.setViewportSize({ width: 1366, height: 900 });
  await signInAsAdmin(svc, page, ADMIN);
  await page.goto(`${svc.url}/admin/settings#tax`);
  expect(await page.textContent('#tax')).toContain('ENCRYPTION_KEY');
  expect(await page.inputValue('#tax-settings select[name=taxForms]')).toBe('off');
  await page.selectOption('#tax-settings select[name=taxForms]', 'require');
  await page.fill('#tax-settings input[name=legalName]', 'Acme GmbH');
  await page.fill('#tax-settings textarea[name=legalAddress]', 'Hauptstr. 1\n10115 Berlin\nGermany');
  await page.fill('#tax-settings input[name=vatId]', '123');
  await page.click('#tax-settings button[type=submit]');
  await page.waitForSelector('#f-vatId-error');
  expect(await page.textContent('#f-vatId-error')).toContain('country prefix');
  expect(await page.inputValue('#tax-settings input[name=legalName]')).toBe('Acme GmbH'); // kept as typed
  expect([...(await svc.sql`select tax_forms, legal_name, vat_id from settings`)]).toEqual([{ tax_forms: 'off', legal_name: null, vat_id: null }]);
  await page.locator('#tax').screenshot({ path: `${new URL('../artifacts/', import.meta.url).pathname}admin-settings-tax-error-1366.png` });
  await page.fill('#tax-settings input[name=vatId]', 'de123456789');
  await page.click('#tax-settings button[type=submit]');
  await page.waitForURL(/done=tax/);
  expect(await page.textContent('.notice.ok')).toContain('Tax and legal settings saved');
  expect([...(await svc.sql`select tax_forms, legal_name, legal_address, vat_id from settings`)]).toEqual([
    { tax_forms: 'require', legal_name: 'Acme GmbH', legal_address: 'Hauptstr. 1\n10115 Berlin\nGermany', vat_id: 'DE123456789' },
  ]);
  expect((await svc.api('GET', '/v1/settings')).body).toMatchObject({ taxForms: 'require', legalName: 'Acme GmbH', vatId: 'DE123456789' });
  expect(await page.inputValue('#tax-settings select[name=taxForms]')).toBe('require');
  await screenshot(page, 'admin-settings-tax-1366');
  // blank clears the legal details
  await page.fill('#tax-settings input[name=vatId]', '');
  await page.click('#tax-settings button[type=submit]');
  await page.waitForURL(/done=tax/);
  expect((await svc.sql`select vat_id from settings`)[0]!.vat_id).toBeNull();
  await context.close();
});

test('without ENCRYPTION_KEY, collect is refused beside the field naming the variable, and nothing changes', async () => {
  const { context, page } = await newPage(browser, { phone: true });
  await signInAsAdmin(plain, page, ADMIN);
  await page.goto(`${plain.url}/admin/settings#tax`);
  expect(await page.textContent('#tax')).toContain('not set');
  await page.selectOption('#tax-settings select[name=taxForms]', 'collect');
  await page.fill('#tax-settings input[name=legalName]', 'Plain Ltd');
  await page.click('#tax-settings button[type=submit]');
  await page.waitForSelector('#f-taxForms-error');
  expect(await page.textContent('#f-taxForms-error')).toContain('ENCRYPTION_KEY');
  expect([...(await plain.sql`select tax_forms, legal_name from settings`)]).toEqual([{ tax_forms: 'off', legal_name: null }]);
  await screenshot(page, 'admin-settings-tax-refused-390');
  await page.locator('#tax').screenshot({ path: `${new URL('../artifacts/', import.meta.url).pathname}admin-settings-tax-refused-390-section.png` });
  await context.close();
});

test('the 1099 page: the year\'s payees, who is in the file, who lacks a form; the download is the CSV and is audited', async () => {
  const { context, page } = await newPage(browser);
  await page.setViewportSize({ width: 1366, height: 900 });
  await signInAsAdmin(svc, page, ADMIN);
  await page.goto(`${svc.url}/admin`);
  await page.click('nav a[href="/admin/tax"]');
  await page.waitForSelector('#nec-payees');
  const row = (name: string) => page.textContent(`#nec-payees tr[data-id="${ids[name]}"]`);
  expect(await row('Ada')).toContain('650.00 USD');
  expect(await row('Ada')).toContain('In the file');
  expect(await row('Ada')).toContain('SSN ending in 6789');
  expect(await row('Cy')).toContain('EIN ending in 6789');
  expect(await row('Eve')).toContain('No form');
  expect(await row('Bob')).toContain('Under $600');
  expect(await row('Dee')).toContain('W-8BEN: not reported');
  expect(await page.textContent('#nec-missing-note')).toContain('Eve');
  expect(await page.textContent('#nec-reportable')).toContain('2');
  const html = await page.content();
  for (const tin of ['123-45-6789', '12-3456789', '234-56-7890']) expect(html).not.toContain(tin);
  await screenshot(page, 'admin-tax-1099-1366');

  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#nec-download')]);
  expect(download.suggestedFilename()).toBe(`1099-nec-${year}.csv`);
  const csv = readFileSync((await download.path())!, 'utf8').split('\r\n');
  expect(csv[0]).toStartWith('partner_id,legal_name,');
  expect(csv.slice(1, -1).sort()).toEqual(
    [`${ids.Ada},Ada Lovelace,,ssn,123-45-6789,1 Main St,,Springfield,IL,62701,650.00`, `${ids.Cy},Cy Corp,,ein,12-3456789,1 Main St,,Springfield,IL,62701,600.00`].sort(),
  );
  const audit = [...(await svc.sql`select actor_type, actor_id, target_id, changes from audit_log where action = 'tax.exported'`)];
  expect(audit).toEqual([{ actor_type: 'admin', actor_id: ADMIN, target_id: `1099-nec-${year}`, changes: { form: [null, '1099-nec'], year: [null, year], rows: [null, 2] } }]);

  // another year, chosen in the form
  await page.selectOption('select[name=year]', String(year - 1));
  await page.click('form.range button[type=submit]');
  await page.waitForURL(new RegExp(`year=${year - 1}`));
  expect(await page.locator('#nec-payees tbody tr').count()).toBe(1);
  expect(await row('Ada')).toContain('900.00 USD');
  // a year out of range is named beside the year field
  const bad = await page.goto(`${svc.url}/admin/tax?year=1999`);
  expect(bad!.status()).toBe(400);
  expect(await page.textContent('#f-year-error')).toContain('2000');
  await context.close();

  const phone = await newPage(browser, { phone: true });
  await signInAsAdmin(svc, phone.page, ADMIN);
  await phone.page.goto(`${svc.url}/admin/tax`);
  await phone.page.waitForSelector('#nec-payees');
  await screenshot(phone.page, 'admin-tax-1099-390');
  await phone.context.close();
});

test('the partner page shows the form status, never the full TIN; the payout page links its invoice PDF', async () => {
  const { context, page } = await newPage(browser);
  await signInAsAdmin(svc, page, ADMIN);
  await page.goto(`${svc.url}/admin/partners/${ids.Ada}`);
  const ada = await page.textContent('#partner-tax-form');
  expect(ada).toContain('W-9 valid');
  // the day it was signed, as stored (not the test's clock: setup may finish before midnight UTC)
  const [form] = await svc.sql<{ signedAt: Date }[]>`select signed_at as "signedAt" from tax_profiles where partner_id = ${ids.Ada!}`;
  expect(ada).toContain(`W-9 signed ${form!.signedAt.toISOString().slice(0, 10)}, TIN ending in 6789`);
  expect(await page.content()).not.toContain('123-45-6789');
  await screenshot(page, 'admin-partner-tax-form-1200');
  await page.goto(`${svc.url}/admin/partners/${ids.Eve}`);
  expect(await page.textContent('#partner-tax-form')).toContain('None on file');
  await page.goto(`${svc.url}/admin/partners/${ids.Dee}`);
  expect(await page.textContent('#partner-tax-form')).toContain(`valid until ${year + 3}-12-31`);
  // a W-8BEN past its third calendar year is expired
  await svc.sql`update tax_profiles set signed_at = now() - interval '5 years' where partner_id = ${ids.Dee!}`;
  await page.reload();
  expect(await page.textContent('#partner-tax-form')).toContain('W-8BEN expired');

  await page.goto(`${svc.url}/admin/payouts/${payoutOf.Ada}`);
  const [number] = await svc.sql`select invoice_number from payouts where id = ${payoutOf.Ada!}`;
  const link = page.locator('#payout-invoice a');
  await screenshot(page, 'admin-payout-invoice-1200');
  expect(await link.textContent()).toBe(`${number!.invoice_number} (PDF)`);
  const pdf = await page.request.get(svc.url + (await link.getAttribute('href'))!);
  expect(pdf.status()).toBe(200);
  expect(pdf.headers()['content-type']).toBe('application/pdf');
  expect((await pdf.body()).subarray(0, 5).toString()).toBe('%PDF-');
  await context.close();
});
