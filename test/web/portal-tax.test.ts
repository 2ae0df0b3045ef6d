// The portal's Tax form page in Chromium: two questions pick the form, a bad SSN is named beside its
// field as it is typed (the page's script, held to the server's rules) and again by the server with
// nothing stored, a good W-9 is signed and shown as on file (last four digits only); with taxForms
// require the home and payouts pages say the payouts are held and link to the form; the Tax form
// entry of the menu only while taxForms is on; a paid payout's invoice from the payouts list.
// Screenshots at 1366 and 390 px.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import type { Browser } from 'playwright-core';
import { randomBytes } from 'node:crypto';
import { startService, type TestService } from '../support/service';
import { insertCampaign, insertCommission } from '../support/lifecycle-fixtures';
import { birthDateProblem, einProblem, ssnProblem } from '../../src/modules/tax/validate';
import { invitePartner, launchBrowser, newPage, screenshot, signInThroughPortal } from './browser';

let svc: TestService;
let browser: Browser;
let samId: string;
beforeAll(async () => {
  svc = await startService({ ENCRYPTION_KEY: randomBytes(32).toString('base64') });
  browser = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await svc.stop();
});

test('a US partner answers the questions, fixes a bad SSN, signs a W-9 and sees it on file', async () => {
  expect((await svc.api('PATCH', '/v1/settings', { body: { taxForms: 'require' } })).status).toBe(200);
  const partnerId = await invitePartner(svc, { email: 'us@example.com', name: 'Sam' });
  const { context, page } = await newPage(browser);
  await page.setViewportSize({ width: 1366, height: 900 });
  samId = partnerId;
  await signInThroughPortal(svc, page, 'us@example.com');
  await page.waitForLoadState('networkidle');
  // held for want of a form: home and payouts say so, and lead to the form
  await page.goto(`${svc.url}/portal`);
  expect(await page.textContent('#tax-hold')).toContain('Your payouts are on hold');
  await screenshot(page, 'portal-tax-hold-home-1366');
  await page.goto(`${svc.url}/portal/payouts`);
  expect(await page.textContent('#tax-hold')).toContain('valid tax form');
  await page.click('#tax-hold a');
  await page.waitForURL(/\/portal\/tax$/);
  expect(await page.textContent('#tax-needed')).toContain('payouts wait');
  await page.check('input[name=us][value=yes]');
  await page.click('#tax-questions button[type=submit]');
  await page.waitForSelector('#tax-form[data-form=w9]');
  expect(await page.isVisible('input[name=dateOfBirth]')).toBe(false);
  await page.fill('input[name=legalName]', 'Sam Smith');
  await page.selectOption('select[name=taxClassification]', 'individual');
  // as it is typed: the message beside the field, before anything is sent
  await page.fill('input[name=tin]', '666-12-3456');
  await page.waitForSelector('#f-tin-error');
  expect(await page.textContent('#f-tin-error')).toBe('is not a valid SSN: it cannot start with 000, 666 or 9');
  expect(await page.getAttribute('input[name=tin]', 'aria-invalid')).toBe('true');
  await page.fill('input[name=region]', 'Illinois');
  await page.locator('input[name=region]').blur();
  expect(await page.textContent('#f-region-error')).toContain('two-letter state code');
  await page.fill('input[name=line1]', '1 Main St');
  await page.fill('input[name=city]', 'Springfield');
  await page.fill('input[name=region]', 'IL');
  await page.fill('input[name=postalCode]', '62701');
  await page.check('input[name=agreed]');
  await page.fill('input[name=signatureName]', 'Sam Smith');
  expect(await page.isVisible('#f-region-error')).toBe(false); // fixed: the message goes
  await screenshot(page, 'portal-tax-form-1366');
  await page.click('#tax-form button[type=submit]');
  await page.waitForSelector('#f-tin-error');
  expect(await page.textContent('#f-tin-error')).toContain('666');
  expect(await svc.sql`select 1 from tax_profiles where partner_id = ${partnerId}`).toHaveLength(0);
  expect(await page.inputValue('input[name=tin]')).toBe(''); // a TIN is never written back into the page
  await page.fill('input[name=tin]', '123-45-6789');
  await page.check('input[name=agreed]');
  await page.click('#tax-form button[type=submit]');
  await page.waitForSelector('#on-file');
  const onFile = await page.textContent('#on-file');
  expect(onFile).toContain('ending in 6789');
  expect(onFile).toContain('Sam Smith');
  expect(await page.content()).not.toContain('123-45-6789');
  expect(await page.isVisible('#tax-needed')).toBe(false);
  const [row] = await svc.sql`select form, tin_last4, signature_name, signed_ip from tax_profiles where partner_id = ${partnerId}`;
  expect(row).toMatchObject({ form: 'w9', tin_last4: '6789', signature_name: 'Sam Smith', signed_ip: '127.0.0.1' });
  await screenshot(page, 'portal-tax-on-file-1366');
  await page.goto(`${svc.url}/portal`);
  expect(await page.isVisible('#tax-hold')).toBe(false);
  await context.close();
});

test('a partner abroad gets the W-8BEN fields only; the phone layout', async () => {
  await invitePartner(svc, { email: 'de@example.com', name: 'Dora' });
  const { context, page } = await newPage(browser, { phone: true });
  await signInThroughPortal(svc, page, 'de@example.com');
  await page.waitForLoadState('networkidle');
  await page.goto(`${svc.url}/portal/tax?us=no&kind=individual`);
  await page.waitForSelector('#tax-form[data-form=w8ben]');
  expect(await page.isVisible('input[name=tin]')).toBe(false);
  expect(await page.isVisible('input[name=dateOfBirth]')).toBe(true);
  expect(await page.textContent('#perjury')).toContain('not a U.S. person');
  await page.locator('select[name=citizenship]').focus();
  await page.locator('input[name=legalName]').focus();
  expect(await page.textContent('#f-citizenship-error')).toBe('is needed for a W-8BEN');
  await page.fill('input[name=vatId]', 'de 123');
  await page.locator('input[name=vatId]').blur();
  expect(await page.textContent('#f-vatId-error')).toContain('country prefix');
  await screenshot(page, 'portal-tax-form-390');
  // the server says the same of the VAT id (its rule, not only the script's)
  await page.selectOption('select[name=citizenship]', 'DE');
  await page.fill('input[name=legalName]', 'Dora Dietrich');
  await page.fill('input[name=dateOfBirth]', '1990-05-01');
  await page.fill('input[name=line1]', 'Hauptstr. 1');
  await page.fill('input[name=city]', 'Berlin');
  await page.selectOption('select[name=country]', 'DE');
  await page.check('input[name=agreed]');
  await page.fill('input[name=signatureName]', 'Dora Dietrich');
  const answer = page.waitForResponse((res) => res.url().endsWith('/portal/tax') && res.request().method() === 'POST');
  await page.evaluate(() => (document.getElementById('tax-form') as HTMLFormElement).submit());
  expect((await answer).status()).toBe(400);
  await page.waitForLoadState();
  expect(await page.textContent('#f-vatId-error')).toContain('country prefix');
  expect(await svc.sql`select 1 from tax_profiles t join partners p on p.id = t.partner_id where p.email = 'de@example.com'`).toHaveLength(0);
  await context.close();
});

test("the page's script answers what the server's rules answer", async () => {
  const { context, page } = await newPage(browser);
  await signInThroughPortal(svc, page, 'us@example.com');
  await page.goto(`${svc.url}/portal/tax?form=w9`);
  const samples = ['123-45-6789', '123456789', '000-12-3456', '666-12-3456', '912-34-5678', '123-00-4567', '123-45-0000', '12-3456789', '07-1234567', '96-1234567', '1234-5678', 'abc', '', '1986-12-09', '1986-02-30', '1899-12-31', '2999-01-01', '86-12-09'];
  const browserSays = await page.evaluate((values) => {
    const rules = (window as unknown as { partnerdTaxRules: Record<string, (v: string) => string | null> }).partnerdTaxRules;
    return values.map((v) => [rules.ssnProblem!(v), rules.einProblem!(v), rules.birthDateProblem!(v)]);
  }, samples);
  expect(browserSays).toEqual(samples.map((v) => [ssnProblem(v), einProblem(v), birthDateProblem(v)]));
  await context.close();
});

test('a paid payout: the payouts list links its invoice PDF, which only its partner opens', async () => {
  const campaign = await insertCampaign(svc.sql, { currency: 'USD' });
  await insertCommission(svc.sql, { partnerId: samId, campaignId: campaign, amount: 12_345, status: 'approved', currency: 'USD' });
  const run = await svc.api('POST', '/v1/payouts/run');
  const payout = run.body.payouts.find((p: { partnerId: string }) => p.partnerId === samId);
  expect((await svc.api('POST', `/v1/payouts/${payout.id}/mark-paid`, { body: {} })).status).toBe(200);
  const [row] = await svc.sql`select invoice_number from payouts where id = ${payout.id}`;
  const { context, page } = await newPage(browser, { phone: true });
  await signInThroughPortal(svc, page, 'us@example.com');
  await page.goto(`${svc.url}/portal/payouts`);
  await screenshot(page, 'portal-payouts-invoice-390');
  const link = page.locator(`#payouts tr[data-id="${payout.id}"] a.invoice-link`);
  expect(await link.textContent()).toBe(row!.invoice_number);
  const pdf = await page.request.get(svc.url + (await link.getAttribute('href'))!);
  expect(pdf.status()).toBe(200);
  expect(pdf.headers()['content-type']).toBe('application/pdf');
  expect((await pdf.body()).subarray(0, 5).toString()).toBe('%PDF-');
  const dora = (await svc.sql`select id from partners where email = 'de@example.com'`)[0]!.id;
  const forged = await svc.api('GET', `/v1/payouts/${payout.id}/invoice.pdf`, { key: await svc.partnerKey(dora) });
  expect([403, 404]).toContain(forged.status);
  await context.close();
});

test('the Tax form menu entry shows only while taxForms is on; collect holds nothing', async () => {
  const { context, page } = await newPage(browser);
  await signInThroughPortal(svc, page, 'de@example.com');
  expect((await svc.api('PATCH', '/v1/settings', { body: { taxForms: 'off' } })).status).toBe(200);
  await page.goto(`${svc.url}/portal`);
  expect(await page.locator('nav a[href="/portal/tax"]').count()).toBe(0);
  expect(await page.isVisible('#tax-hold')).toBe(false);
  expect((await svc.api('PATCH', '/v1/settings', { body: { taxForms: 'collect' } })).status).toBe(200);
  await page.reload();
  expect(await page.locator('nav a[href="/portal/tax"]').count()).toBeGreaterThan(0);
  expect(await page.isVisible('#tax-hold')).toBe(false); // no form, but collect does not hold payouts
  expect((await svc.api('PATCH', '/v1/settings', { body: { taxForms: 'require' } })).status).toBe(200);
  await page.reload();
  expect(await page.isVisible('#tax-hold')).toBe(true);
  await context.close();
});
