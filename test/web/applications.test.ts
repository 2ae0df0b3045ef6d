// Reviewed applications in a real browser: the portal's signup page asks the questions under
// review and ends on "application received"; the admin's queue shows the answers, approves one
// through its dialog (the invite arrives) and declines another with a required reason (mailed);
// the partner page shows the application; the settings page offers review.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import { startService, type TestService } from '../support/service';
import { launchBrowser, newPage, screenshot } from './browser';

setDefaultTimeout(30_000);

const ADMIN = 'boss@operator.example';

let svc: TestService;
let browser: Browser;
let admin: Page;

const partnerId = async (email: string) => ((await svc.sql`select id from partners where email = ${email}`)[0]?.id as string | undefined) ?? null;
const statusOf = async (email: string) => (await svc.api('GET', `/v1/partners/${await partnerId(email)}`)).body.status as string;

/** Applies through the portal's signup form, as a visitor would. */
async function applyInBrowser(page: Page, input: { name: string; email: string; website?: string; audience?: string; promotion?: string }) {
  await page.goto(`${svc.url}/portal/sign-up`);
  await page.fill('input[name=name]', input.name);
  await page.fill('input[name=email]', input.email);
  if (input.website !== undefined) await page.fill('input[name=website]', input.website);
  if (input.audience !== undefined) await page.fill('textarea[name=audience]', input.audience);
  if (input.promotion !== undefined) await page.fill('textarea[name=promotion]', input.promotion);
  await page.click('form[action="/portal/sign-up"] button[type=submit]');
}

beforeAll(async () => {
  [svc, browser] = await Promise.all([startService({ ADMIN_EMAILS: ADMIN }), launchBrowser()]);
  expect((await svc.api('PATCH', '/v1/settings', { body: { partnerSignup: 'review' } })).status).toBe(200);
  const context = await browser.newContext({ viewport: { width: 1366, height: 900 } });
  admin = await context.newPage();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

describe('applying in the portal', () => {
  test('the signup page asks the three questions; a bad website is shown beside its field and stores nothing', async () => {
    const { context, page } = await newPage(browser);
    await page.setViewportSize({ width: 1366, height: 900 });
    await page.goto(`${svc.url}/portal/sign-up`);
    expect(await page.textContent('h1')).toBe('Apply to become a partner');
    for (const field of ['input[name=website]', 'textarea[name=audience]', 'textarea[name=promotion]']) expect(await page.locator(field).count()).toBe(1);
    await screenshot(page, 'portal-apply');

    await applyInBrowser(page, { name: 'Ann Archer', email: 'ann@example.com', website: 'ann.example', audience: 'Developers' });
    expect(await page.textContent('#f-website-error')).toContain('http(s) address');
    // what was typed stays
    expect(await page.inputValue('textarea[name=audience]')).toBe('Developers');
    expect(await page.inputValue('input[name=name]')).toBe('Ann Archer');
    expect(await partnerId('ann@example.com')).toBeNull();
    await context.close();
  });

  test('a full application ends on "application received"; the answers are stored, the admins are told', async () => {
    const { context, page } = await newPage(browser);
    await page.setViewportSize({ width: 1366, height: 900 });
    await applyInBrowser(page, {
      name: 'Ann Archer',
      email: 'ann@example.com',
      website: 'https://ann.example/blog',
      audience: 'Indie developers; 4,000 newsletter readers',
      promotion: 'A review post, then a line in every monthly newsletter',
    });
    await page.waitForSelector('#application-received');
    expect(await page.textContent('h1')).toBe('Application received');
    expect(await page.textContent('.notice.ok')).toContain('once your application has been reviewed');
    await screenshot(page, 'portal-application-received');
    const id = await partnerId('ann@example.com');
    expect((await svc.api('GET', `/v1/partners/${id}`)).body).toMatchObject({
      status: 'applied',
      applicationAnswers: { website: 'https://ann.example/blog', audience: 'Indie developers; 4,000 newsletter readers', promotion: 'A review post, then a line in every monthly newsletter' },
    });
    await svc.mail.waitFor(ADMIN, (m) => m.text.includes('ann@example.com'));
    await context.close();
  });

  test('on a phone the questions fit and the blank ones are simply left out', async () => {
    const { context, page } = await newPage(browser, { phone: true });
    await page.goto(`${svc.url}/portal/sign-up`);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await screenshot(page, 'portal-apply-phone');
    await applyInBrowser(page, { name: 'Bob Baker', email: 'bob@example.com', website: '', audience: 'Designers on Instagram' });
    await page.waitForSelector('#application-received');
    await screenshot(page, 'portal-application-received-phone');
    expect((await svc.api('GET', `/v1/partners/${await partnerId('bob@example.com')}`)).body.applicationAnswers).toEqual({ audience: 'Designers on Instagram' });
    await context.close();
    // one more, to decline below
    const other = await newPage(browser);
    await applyInBrowser(other.page, { name: 'Cal Coupons', email: 'cal@example.com', website: 'https://coupons.example', promotion: 'Coupon listings' });
    await other.page.waitForSelector('#application-received');
    await other.context.close();
  });
});

describe('the admin queue', () => {
  test('Applications is in the navigation and lists each application, oldest first, with its answers', async () => {
    await admin.goto(`${svc.url}/admin/sign-in`);
    await admin.fill('input[name=email]', ADMIN);
    await admin.click('button[type=submit]');
    await admin.waitForSelector('.notice.ok');
    await admin.goto(await svc.mail.magicLink(ADMIN, (m) => /sign/i.test(m.subject)));
    await admin.click('nav.nav a[href="/admin/applications"]');
    expect(new URL(admin.url()).pathname).toBe('/admin/applications');
    expect(await admin.textContent('h1')).toBe('Applications');
    expect(await admin.textContent('#applications-count')).toBe('3 applications waiting');
    const names = await admin.locator('li.application .review-title a').allTextContents();
    expect(names.map((n) => n.trim())).toEqual(['Ann Archer', 'Bob Baker', 'Cal Coupons']);
    const ann = admin.locator(`#application-${await partnerId('ann@example.com')}`);
    expect(await ann.textContent()).toContain('ann@example.com');
    expect(await ann.textContent()).toContain('Indie developers; 4,000 newsletter readers');
    expect(await ann.locator('a.answer-url').getAttribute('href')).toBe('https://ann.example/blog');
    expect(await ann.locator('a.answer-url').getAttribute('rel')).toContain('nofollow');
    await screenshot(admin, 'admin-applications');
  });

  test('on a phone the queue stacks and stays readable', async () => {
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, storageState: await admin.context().storageState() });
    const small = await phone.newPage();
    await small.goto(`${svc.url}/admin/applications`);
    expect(await small.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await screenshot(small, 'admin-applications-phone');
    await phone.close();
  });

  test('approving goes through its dialog; the invite is mailed and the application leaves the queue', async () => {
    const id = (await partnerId('ann@example.com'))!;
    await admin.click(`#application-${id} a[data-dialog="approve-${id}"]`);
    const dialog = admin.locator(`dialog#approve-${id}`);
    await dialog.waitFor({ state: 'visible' });
    expect(await dialog.locator('h2').textContent()).toBe('Approve Ann Archer');
    await screenshot(admin, 'admin-applications-approve');
    expect(await statusOf('ann@example.com')).toBe('applied');
    await dialog.locator('button[type=submit]:not([formmethod])').click();
    await admin.waitForSelector('.notice.ok');
    expect(await admin.textContent('.notice.ok')).toBe('Application approved: the invite is on its way.');
    expect(await statusOf('ann@example.com')).toBe('pending');
    expect(await admin.locator(`#application-${id}`).count()).toBe(0);
    const link = await svc.mail.magicLink('ann@example.com');
    // the invite works: Ann lands in the portal
    const { context, page } = await newPage(browser);
    await page.goto(link);
    expect(new URL(page.url()).pathname).toBe('/portal');
    expect(await statusOf('ann@example.com')).toBe('active');
    await context.close();
  });

  test('declining asks a reason: none is refused beside the field, one is mailed', async () => {
    const id = (await partnerId('cal@example.com'))!;
    // without script the trigger opens the confirm page, the same form
    await admin.goto(`${svc.url}/admin/applications/${id}/decline`);
    expect(await admin.textContent('h1')).toBe('Decline Cal Coupons');
    await admin.fill(`#reason-${id}`, '   ');
    // the browser's own check would stop an empty box; the server decides too
    await admin.evaluate((sel) => document.querySelector(sel)?.removeAttribute('required'), `#reason-${id}`);
    await admin.click('form.confirm-form button[type=submit]');
    expect(await admin.textContent(`#reason-${id}-error`)).toContain('say why');
    expect(await statusOf('cal@example.com')).toBe('applied');
    await screenshot(admin, 'admin-applications-decline');
    await admin.fill(`#reason-${id}`, 'Coupon sites are not part of this program.');
    await admin.click('form.confirm-form button[type=submit]');
    await admin.waitForSelector('.notice.ok');
    expect(await admin.textContent('.notice.ok')).toBe('Application declined: the applicant is mailed the reason.');
    expect(await statusOf('cal@example.com')).toBe('declined');
    const mail = await svc.mail.waitFor('cal@example.com');
    expect(mail.text).toContain('Coupon sites are not part of this program.');
    expect(await admin.textContent('#applications-count')).toBe('1 application waiting');
  });

  test('the decline dialog on the queue works too', async () => {
    const id = (await partnerId('bob@example.com'))!;
    await admin.click(`#application-${id} a[data-dialog="decline-${id}"]`);
    const dialog = admin.locator(`dialog#decline-${id}`);
    await dialog.waitFor({ state: 'visible' });
    await dialog.locator('textarea[name=reason]').fill('Not taking Instagram partners this quarter.');
    await dialog.locator('button[type=submit]:not([formmethod])').click();
    await admin.waitForSelector('.notice.ok');
    expect(await statusOf('bob@example.com')).toBe('declined');
    expect(await admin.textContent('.empty-state')).toContain('No applications waiting');
    await screenshot(admin, 'admin-applications-empty');
  });

  test('the partner page shows the application and the decision', async () => {
    await admin.goto(`${svc.url}/admin/partners/${await partnerId('cal@example.com')}`);
    expect((await admin.textContent('#partner-status'))?.trim()).toBe('Declined');
    const section = await admin.textContent('#partner-application');
    expect(section).toContain('Declined.');
    expect(section).toContain('Coupon sites are not part of this program.');
    expect(section).toContain('https://coupons.example');
    await screenshot(admin, 'admin-partner-application');
  });

  test('a declined applicant cannot sign in: the portal answers as for anyone, no link is mailed', async () => {
    const before = svc.mail.messages.filter((m) => m.to === 'cal@example.com').length;
    const { context, page } = await newPage(browser);
    await page.goto(`${svc.url}/portal/sign-in`);
    await page.fill('input[name=email]', 'cal@example.com');
    await page.click('button[type=submit]');
    await page.waitForSelector('.notice.ok');
    expect(await page.textContent('.notice.ok')).toBe('If the address belongs to an account, a sign-in link is on its way.');
    // then an approved partner asks: once that link has arrived, one for Cal would have too
    const annBefore = svc.mail.messages.filter((m) => m.to === 'ann@example.com').length;
    expect((await svc.api('POST', '/auth/magic-link', { key: null, body: { email: 'ann@example.com' } })).status).toBe(202);
    await svc.mail.waitFor('ann@example.com', () => svc.mail.messages.filter((m) => m.to === 'ann@example.com').length > annBefore);
    expect(svc.mail.messages.filter((m) => m.to === 'cal@example.com').length).toBe(before);
    await context.close();
  });

  test('the settings page offers review and saves it', async () => {
    await admin.goto(`${svc.url}/admin/settings`);
    const select = admin.locator('select[name=partnerSignup]');
    expect(await select.inputValue()).toBe('review');
    expect(await select.locator('option[value=review]').textContent()).toContain('Review');
    await select.selectOption('open');
    await admin.click('form[action="/admin/settings"] button[type=submit]');
    await admin.waitForSelector('.notice.ok');
    expect((await svc.api('GET', '/v1/settings')).body.partnerSignup).toBe('open');
    await admin.goto(`${svc.url}/portal/sign-up`);
    expect(await admin.locator('input[name=website]').count()).toBe(0);
    expect(await admin.textContent('h1')).toBe('Become a partner');
  });
});
