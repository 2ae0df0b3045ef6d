// The signed-out pages of a first run: the admin sign-in says when no admin can sign in and where
// links go without a mail server; an expired link offers a new one at once; sign-in, sign-up and
// "application received" are one centred card; the signup page asks the program's own questions.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import { startService, type TestService } from '../support/service';
import { launchBrowser, newPage, screenshot } from '../web/browser';

setDefaultTimeout(60_000);

let svc: TestService;
let bare: TestService;
let browser: Browser;

beforeAll(async () => {
  [svc, bare, browser] = await Promise.all([
    startService({ ADMIN_EMAILS: 'boss@operator.example' }),
    // a first run: no ADMIN_EMAILS, no SMTP_URL
    startService({ SMTP_URL: undefined as unknown as string }),
    launchBrowser(),
  ]);
  await svc.sql`update settings set program_name = 'Acme partners', brand_color = '#7c3aed'`;
});
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
  await bare?.stop();
});

async function sized(phone: boolean): Promise<Page> {
  const { page } = await newPage(browser, { phone });
  if (!phone) await page.setViewportSize({ width: 1366, height: 900 });
  return page;
}

/** The page is the centred card, and nothing scrolls sideways. */
async function expectCentredCard(page: Page) {
  const box = (await page.locator('.auth-card').boundingBox())!;
  const width = page.viewportSize()!.width;
  expect(Math.abs(box.x + box.width / 2 - width / 2)).toBeLessThan(2);
  expect(box.width).toBeLessThanOrEqual(28 * 16 + 1);
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
}

describe('admin sign-in on a first run', () => {
  test('no ADMIN_EMAILS and no SMTP_URL: the page says so, naming the variables and the log', async () => {
    expect(bare.config.smtpUrl).toBeUndefined();
    for (const phone of [false, true]) {
      const page = await sized(phone);
      await page.goto(`${bare.url}/admin/sign-in`);
      expect(await page.textContent('#no-admin')).toContain('ADMIN_EMAILS is empty');
      expect(await page.textContent('#links-in-log')).toContain('written to the service log');
      await expectCentredCard(page);
      await screenshot(page, `admin-sign-in-first-run-${phone ? 390 : 1366}`);
      await page.close();
    }
  });

  test('a configured install shows neither note', async () => {
    const page = await sized(false);
    await page.goto(`${svc.url}/admin/sign-in`);
    expect(await page.locator('#no-admin').count()).toBe(0);
    expect(await page.locator('#links-in-log').count()).toBe(0);
    await page.close();
  });
});

describe('an expired or used link', () => {
  test('offers "Send me a new link": one email field, and the new link signs in', async () => {
    const created = await svc.api('POST', '/v1/partners', { body: { email: 'ann@example.com', name: 'Ann', sendInvite: true } });
    expect(created.status).toBe(201);
    const invite = await svc.mail.magicLink('ann@example.com');
    // used once (signs in), then opened again in a fresh browser: expired
    expect((await fetch(invite, { redirect: 'manual' })).status).toBe(302);
    for (const phone of [false, true]) {
      const page = await sized(phone);
      const res = await page.goto(invite);
      expect(res!.status()).toBe(400);
      expect(await page.textContent('h1')).toBe('This link has expired or was already used');
      expect(await page.textContent('.auth-brand')).toBe('Acme partners');
      await expectCentredCard(page);
      await screenshot(page, `link-expired-${phone ? 390 : 1366}`);
      if (phone) {
        const before = svc.mail.messages.length;
        await page.fill('#new-link input[name=email]', 'ann@example.com');
        await page.click('#new-link button:has-text("Send me a new link")');
        await page.waitForSelector('.notice.ok');
        const fresh = await svc.mail.magicLink('ann@example.com', (m) => svc.mail.messages.indexOf(m) >= before);
        expect(fresh).not.toBe(invite);
        await page.goto(fresh);
        expect(new URL(page.url()).pathname).toBe('/portal');
      }
      await page.close();
    }
  });
});

describe('sign-in, sign-up and application received are one centred card', () => {
  test('with the program questions the operator defined', async () => {
    const questions = [
      { key: 'youtube', label: 'Your YouTube channel', type: 'url', required: true, hint: 'https://youtube.com/@you' },
      { key: 'subscribers', label: 'Subscribers', type: 'line', required: false },
    ];
    expect((await svc.api('PATCH', '/v1/settings', { body: { partnerSignup: 'review', applicationQuestions: questions } })).status).toBe(200);
    for (const phone of [false, true]) {
      const w = phone ? 390 : 1366;
      const page = await sized(phone);
      await page.goto(`${svc.url}/portal/sign-in`);
      await expectCentredCard(page);
      await screenshot(page, `portal-sign-in-${w}`);
      await page.goto(`${svc.url}/portal/sign-up`);
      await expectCentredCard(page);
      expect(await page.$$eval('fieldset.questions label', (ls) => ls.map((l) => l.textContent))).toEqual(['Your YouTube channel (required)', 'Subscribers']);
      expect(await page.locator('input[name=website]').count()).toBe(0);
      const email = `cy${w}@example.com`;
      await page.fill('input[name=name]', 'Cy');
      await page.fill('input[name=email]', email);
      await page.fill('input[name=subscribers]', '12k');
      await page.click('button:has-text("Send application")');
      expect(await page.textContent('#f-youtube-error')).toBe('required');
      expect(await page.inputValue('input[name=subscribers]')).toBe('12k');
      await screenshot(page, `portal-sign-up-questions-${w}`);
      await page.fill('input[name=youtube]', 'https://youtube.com/@cy');
      await page.click('button:has-text("Send application")');
      await page.waitForSelector('#application-received');
      await expectCentredCard(page);
      await screenshot(page, `portal-application-received-${w}`);
      const [row] = await svc.sql`select application_answers from partners where email = ${email}`;
      expect(row!.application_answers).toEqual({ youtube: 'https://youtube.com/@cy', subscribers: '12k' });
      await page.close();
    }
  });
});
