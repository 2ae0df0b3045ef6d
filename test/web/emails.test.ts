// Branding and email settings in a real browser: the admin sets the program's name, logo, colour and
// support address (bad values refused field by field), previews every email; a partner sees the
// branded portal with a readable accent, turns an email kind off, and unsubscribes from a link.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { unsubscribeUrl } from '../../src/mail/unsubscribe';
import { TEMPLATES } from '../../src/mail/registry';
import { contrast } from '../../src/web/brand';
import { startService, type TestService } from '../support/service';
import { ARTIFACTS, invitePartner, launchBrowser, signInThroughPortal } from './browser';

setDefaultTimeout(60_000);

const ADMIN = 'owner@operator.example';
const SIZES = { desktop: { width: 1366, height: 900 }, phone: { width: 390, height: 844 } } as const;

let svc: TestService;
let browser: Browser;
let partnerId: string;
/** The cookies of the admin and of the partner, each signed in once through their sign-in page. */
let asAdmin: Awaited<ReturnType<BrowserContext['storageState']>>;
let asPartner: Awaited<ReturnType<BrowserContext['storageState']>>;

beforeAll(async () => {
  [svc, browser] = await Promise.all([startService({ ADMIN_EMAILS: ADMIN }), launchBrowser()]);
  partnerId = await invitePartner(svc, { email: 'pat@example.com', name: 'Pat Partner' });
  const admin = await open('desktop');
  await signInAdmin(admin.page);
  const partner = await open('desktop');
  await signInThroughPortal(svc, partner.page, 'pat@example.com');
  [asAdmin, asPartner] = await Promise.all([admin.context.storageState(), partner.context.storageState()]);
  await Promise.all([admin.context.close(), partner.context.close()]);
}, 120_000);
afterAll(async () => {
  await browser.close();
  await svc.stop();
});

/** A fresh browser profile at `size`, signed in as the admin or the partner when asked. */
async function open(size: keyof typeof SIZES, as?: 'admin' | 'partner'): Promise<{ context: BrowserContext; page: Page }> {
  const storageState = as === 'admin' ? asAdmin : as === 'partner' ? asPartner : undefined;
  const context = await browser.newContext(size === 'phone' ? { viewport: SIZES.phone, isMobile: true, hasTouch: true, storageState } : { viewport: SIZES.desktop, storageState });
  return { context, page: await context.newPage() };
}

async function shoot(page: Page, name: string) {
  await page.screenshot({ path: `${ARTIFACTS}${name}.png`, fullPage: true });
}

async function signInAdmin(page: Page) {
  const before = svc.mail.messages.length;
  await page.goto(`${svc.url}/admin/sign-in`);
  await page.fill('input[name=email]', ADMIN);
  await page.click('button[type=submit]');
  await page.waitForSelector('.notice.ok');
  await page.goto(await svc.mail.magicLink(ADMIN, (m) => svc.mail.messages.indexOf(m) >= before));
}

describe('admin: branding and previews', () => {
  test('bad branding is refused field by field and changes nothing; good branding is saved', async () => {
    const { context, page } = await open('desktop', 'admin');
    await page.goto(`${svc.url}/admin/settings#branding`);
    await page.fill('#f-programName', '   ');
    await page.fill('#f-logoUrl', 'http://insecure.example/logo.png');
    await page.fill('#f-brandColor', 'teal');
    await page.fill('#f-supportEmail', 'not-an-email');
    await page.click('#branding button[type=submit]');
    for (const field of ['programName', 'logoUrl', 'brandColor', 'supportEmail']) {
      await page.waitForSelector(`#f-${field}-error`);
    }
    expect(await page.textContent('#f-logoUrl-error')).toContain('https://');
    expect(await page.textContent('#f-brandColor-error')).toContain('#rrggbb');
    const [unchanged] = await svc.sql`select program_name, logo_url, brand_color, support_email from settings`;
    expect(unchanged).toEqual({ program_name: 'Partner program', logo_url: null, brand_color: null, support_email: null });
    await shoot(page, 'emails-settings-errors-1366');

    await page.fill('#f-programName', 'Northwind Partners');
    await page.fill('#f-logoUrl', '');
    await page.fill('#f-brandColor', '#F5C518'); // a light yellow: pages must darken it to read
    await page.fill('#f-supportEmail', 'partners@northwind.example');
    await page.click('#branding button[type=submit]');
    await page.waitForSelector('.notice.ok');
    expect(await page.textContent('.notice.ok')).toContain('Branding saved');
    const [saved] = await svc.sql`select program_name, logo_url, brand_color, support_email from settings`;
    expect(saved).toEqual({ program_name: 'Northwind Partners', logo_url: null, brand_color: '#f5c518', support_email: 'partners@northwind.example' });
    expect(await page.inputValue('#f-brandColor')).toBe('#f5c518');
    await page.locator('#branding').scrollIntoViewIfNeeded();
    await shoot(page, 'emails-settings-1366');
    await context.close();
  });

  test('previews: every template with its subject, HTML frame and text part', async () => {
    for (const size of ['desktop', 'phone'] as const) {
      const { context, page } = await open(size, 'admin');
      await page.goto(`${svc.url}/admin/emails`);
      expect(await page.textContent('#email-trouble')).toContain('No delivery problems');
      for (const [name, template] of Object.entries(TEMPLATES)) {
        const article = page.locator(`#preview-${name}`);
        expect(await article.locator('h3').textContent()).toContain(template.title);
        const frame = page.frameLocator(`#preview-${name} iframe`);
        await frame.locator('body').scrollIntoViewIfNeeded();
        expect(await frame.locator('body').textContent()).toContain('Northwind Partners');
      }
      await page.locator('#preview-payout_sent summary').click();
      expect(await page.textContent('#preview-payout_sent pre')).toContain('Recruit bonus');
      await shoot(page, `emails-previews-${size === 'desktop' ? 1366 : 390}`);
      await context.close();
    }
  });

  test('an email given up shows among the delivery problems', async () => {
    await svc.sql`
      insert into email_outbox (id, template, to_address, data, status, attempts, last_error)
      values ('eml_01jd8x0000000000000000zzzz', 'payout_run_summary', ${ADMIN}, '{}', 'failed', 6, '550 mailbox unavailable')`;
    const { context, page } = await open('desktop', 'admin');
    await page.goto(`${svc.url}/admin/emails`);
    const row = page.locator('#email-trouble tbody tr');
    expect(await row.count()).toBe(1);
    expect(await row.textContent()).toContain('Given up');
    expect(await row.textContent()).toContain('550 mailbox unavailable');
    await context.close();
  });
});

describe('partner: branded portal, email settings, unsubscribe', () => {
  test('the portal wears the brand, with an accent that keeps 4.5:1 contrast', async () => {
    for (const size of ['desktop', 'phone'] as const) {
      const { context, page } = await open(size, 'partner');
      await page.goto(`${svc.url}/portal/notifications`);
      expect(await page.textContent('.bar .brand')).toContain('Northwind Partners');
      expect(await page.title()).toBe('Email settings · Northwind Partners');
      const accent = await page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--accent').trim());
      expect(accent).not.toBe('#f5c518');
      const rgb = [1, 3, 5].map((i) => parseInt(accent.slice(i, i + 2), 16)) as [number, number, number];
      expect(contrast(rgb, [255, 255, 255])).toBeGreaterThanOrEqual(4.5);
      await shoot(page, `emails-portal-settings-${size === 'desktop' ? 1366 : 390}`);
      await context.close();
    }
  });

  test('the sign-in page wears the brand too', async () => {
    for (const size of ['desktop', 'phone'] as const) {
      const { context, page } = await open(size);
      await page.goto(`${svc.url}/portal/sign-in`);
      expect(await page.textContent('.auth-brand')).toContain('Northwind Partners');
      expect(await page.title()).toBe('Sign in · Northwind Partners');
      expect(await page.locator('link[href^="/brand.css"]').count()).toBe(1);
      await shoot(page, `emails-sign-in-${size === 'desktop' ? 1366 : 390}`);
      await context.close();
    }
  });

  test('unticking a kind and saving turns it off; the API shows the same', async () => {
    const { context, page } = await open('desktop', 'partner');
    await page.goto(`${svc.url}/portal/notifications`);
    expect(await page.isChecked('input[name=monthlyStatement]')).toBe(true);
    await page.uncheck('input[name=monthlyStatement]');
    await page.click('#notifications button[type=submit]');
    await page.waitForSelector('.notice.ok');
    expect(await page.isChecked('input[name=monthlyStatement]')).toBe(false);
    expect(await page.isChecked('input[name=payoutSent]')).toBe(true);
    const res = await svc.api('GET', `/v1/partners/${partnerId}`);
    expect(res.body.notifications).toEqual({ commissionAccrued: true, commissionApproved: true, payoutSent: true, monthlyStatement: false });
    await page.check('input[name=monthlyStatement]');
    await page.click('#notifications button[type=submit]');
    await page.waitForSelector('.notice.ok');
    await context.close();
  });

  test('an unsubscribe link: a confirm page, then one click, no sign-in', async () => {
    const [row] = await svc.sql<{ mail_secret: string }[]>`select mail_secret from settings`;
    const link = unsubscribeUrl(svc.url, row!.mail_secret, partnerId, 'payoutSent');
    for (const size of ['desktop', 'phone'] as const) {
      const { context, page } = await open(size);
      await page.goto(link);
      expect(await page.textContent('#unsubscribe h1')).toBe('Unsubscribe');
      expect(await page.textContent('#unsubscribe')).toContain('pat@example.com');
      await shoot(page, `emails-unsubscribe-${size === 'desktop' ? 1366 : 390}`);
      await page.click('#unsubscribe button[type=submit]');
      await page.waitForSelector('#unsubscribe .notice.ok');
      expect(await page.textContent('#unsubscribe h1')).toBe('You are unsubscribed');
      await shoot(page, `emails-unsubscribed-${size === 'desktop' ? 1366 : 390}`);
      await context.close();
    }
    expect((await svc.api('GET', `/v1/partners/${partnerId}`)).body.notifications.payoutSent).toBe(false);

    const { context, page } = await open('desktop');
    const forged = link.replace('payoutSent', 'commissionAccrued');
    const res = await page.goto(forged);
    expect(res!.status()).toBe(400);
    expect(await page.textContent('#unsubscribe')).toContain('This unsubscribe link is not valid');
    await context.close();
    expect((await svc.api('GET', `/v1/partners/${partnerId}`)).body.notifications.commissionAccrued).toBe(true);
  });
});
