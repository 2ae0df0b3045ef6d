// The portal's Tax form page in Chromium: two questions pick the form, a bad SSN is named beside its
// field with nothing stored, a good W-9 is signed and shown as on file (last four digits only), and
// with taxForms require the page says payouts wait. Screenshots at 1366 and 390 px.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import type { Browser } from 'playwright-core';
import { randomBytes } from 'node:crypto';
import { startService, type TestService } from '../support/service';
import { invitePartner, launchBrowser, newPage, screenshot, signInThroughPortal } from './browser';

let svc: TestService;
let browser: Browser;
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
  await signInThroughPortal(svc, page, 'us@example.com');
  await page.waitForLoadState('networkidle');
  await page.goto(`${svc.url}/portal/tax`);
  expect(await page.textContent('#tax-needed')).toContain('payouts wait');
  await page.check('input[name=us][value=yes]');
  await page.click('#tax-questions button[type=submit]');
  await page.waitForSelector('#tax-form[data-form=w9]');
  expect(await page.isVisible('input[name=dateOfBirth]')).toBe(false);
  await page.fill('input[name=legalName]', 'Sam Smith');
  await page.selectOption('select[name=taxClassification]', 'individual');
  await page.fill('input[name=tin]', '666-12-3456');
  await page.fill('input[name=line1]', '1 Main St');
  await page.fill('input[name=city]', 'Springfield');
  await page.fill('input[name=region]', 'IL');
  await page.fill('input[name=postalCode]', '62701');
  await page.check('input[name=agreed]');
  await page.fill('input[name=signatureName]', 'Sam Smith');
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
  await screenshot(page, 'portal-tax-form-390');
  await context.close();
});
