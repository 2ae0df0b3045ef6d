// The team in a real browser: the owner invites a viewer from Settings > Team; the viewer signs in
// from the mailed link, sees no money buttons and gets the shell's 403 page on a page their role
// may not open; the owner makes them finance (the buttons appear), the viewer sees their sessions,
// and removing them signs them out at once. Screenshots at 1366 and 390 px.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startService, type TestService } from '../support/service';
import { ARTIFACTS, launchBrowser, signInAsAdmin } from './browser';

setDefaultTimeout(90_000);

const OWNER = 'owner@operator.example';
const MEMBER = 'riley@operator.example';
const SIZES = { desktop: { width: 1366, height: 900 }, phone: { width: 390, height: 844 } } as const;

let svc: TestService;
let browser: Browser;
let owner: { context: BrowserContext; page: Page };
let member: { context: BrowserContext; page: Page };

async function open(size: keyof typeof SIZES): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext(size === 'phone' ? { viewport: SIZES.phone, isMobile: true, hasTouch: true } : { viewport: SIZES.desktop });
  return { context, page: await context.newPage() };
}

async function shoot(page: Page, name: string) {
  await page.screenshot({ path: `${ARTIFACTS}${name}.png`, fullPage: true });
}

/** The page at both widths, from the same browser profile. */
async function shootBoth(page: Page, name: string) {
  await page.setViewportSize(SIZES.desktop);
  await shoot(page, `${name}-1366`);
  await page.setViewportSize(SIZES.phone);
  await shoot(page, `${name}-390`);
  await page.setViewportSize(SIZES.desktop);
}

beforeAll(async () => {
  [svc, browser] = await Promise.all([startService({ ADMIN_EMAILS: OWNER }), launchBrowser()]);
  owner = await open('desktop');
  await signInAsAdmin(svc, owner.page, OWNER);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

describe('the team page', () => {
  test('the owner invites a viewer with a role; bad input is shown beside its field', async () => {
    const page = owner.page;
    await page.goto(`${svc.url}/admin/settings`);
    await page.click('nav.tabs a:has-text("Team")');
    await page.waitForURL(/\/admin\/team$/);
    // the ADMIN_EMAILS owner is listed, and cannot be changed here
    expect(await page.textContent(`#team tr[data-email="${OWNER}"]`)).toContain('Owner');
    await page.fill('input[name=email]', 'not an email');
    await page.click('form[action="/admin/team"] button[type=submit]');
    expect(await page.textContent('form[action="/admin/team"]')).toContain('must be an email address');
    expect((await svc.sql`select count(*)::int as n from team_members where source = 'invite'`)[0]!.n).toBe(0);
    const before = svc.mail.messages.length;
    await page.fill('input[name=email]', MEMBER);
    await page.selectOption('form[action="/admin/team"] select[name=role]', 'viewer');
    await page.click('form[action="/admin/team"] button[type=submit]');
    await page.waitForSelector('.notice.ok');
    expect(await page.textContent(`#team tr[data-email="${MEMBER}"]`)).toContain('Viewer');
    // the invitation is the admin sign-in mail
    member = await open('desktop');
    await member.page.goto(await svc.mail.magicLink(MEMBER, (m) => svc.mail.messages.indexOf(m) >= before));
    await member.page.waitForURL(/\/admin$/);
    await page.reload();
    expect(await page.textContent(`#team tr[data-email="${MEMBER}"] td[data-label="Last sign-in"]`)).not.toBe('never');
    await shootBoth(page, 'team-page');
  });

  test('a viewer sees no money buttons, no API keys or team, and the 403 page where the role may not go', async () => {
    const page = member.page;
    await page.goto(`${svc.url}/admin/payouts`);
    expect(await page.textContent('h1')).toBe('Payouts');
    expect(await page.locator('text=Run payouts now').count()).toBe(0);
    const nav = await page.textContent('nav.nav');
    expect(nav).toContain('Partners');
    expect(nav).not.toContain('API keys');
    // the page itself refuses, in the admin shell
    const res = await page.goto(`${svc.url}/admin/api-keys`);
    expect(res!.status()).toBe(403);
    expect(await page.textContent('main')).toContain('Your role (viewer) may not open this page or make this change.');
    expect(await page.locator('nav.nav').count()).toBe(1);
    await shootBoth(page, 'role-403');
    expect((await page.goto(`${svc.url}/admin/team`))!.status()).toBe(403);
    // the confirmation step of a payout run is refused too, and the API answers JSON
    expect((await page.goto(`${svc.url}/admin/payouts/run`))!.status()).toBe(403);
    const api = await page.evaluate(async () => {
      const r = await fetch('/v1/payouts/run', { method: 'POST' });
      return { status: r.status, body: await r.json() };
    });
    expect(api).toEqual({ status: 403, body: { code: 'forbidden', message: 'your role (viewer) may not do this' } });
  });

  test('the owner makes the viewer finance: the money buttons appear on their next page', async () => {
    const page = owner.page;
    await page.goto(`${svc.url}/admin/team`);
    await page.click(`#team tr[data-email="${MEMBER}"] button.more`);
    const menu = page.locator('.pop:popover-open');
    await menu.locator('select[name=role]').selectOption('finance');
    await menu.locator('button:has-text("Change role")').click();
    await page.waitForSelector('.notice.ok');
    expect(await page.textContent(`#team tr[data-email="${MEMBER}"]`)).toContain('Finance');
    await member.page.goto(`${svc.url}/admin/payouts`);
    expect(await member.page.locator('text=Run payouts now').count()).toBe(1);
  });

  test('the ADMIN_EMAILS owner cannot be demoted or removed from the page', async () => {
    const page = owner.page;
    await page.goto(`${svc.url}/admin/team`);
    await page.click(`#team tr[data-email="${OWNER}"] button.more`);
    const menu = page.locator('.pop:popover-open');
    expect(await menu.textContent()).toContain('An owner named in ADMIN_EMAILS');
    expect(await menu.locator('button:has-text("Remove")').count()).toBe(0);
    // a forged post is refused by the rules, not only hidden
    const id = (await svc.sql`select id from team_members where email = ${OWNER}`)[0]!.id;
    const answer = await page.evaluate(async (path) => {
      const csrf = (document.querySelector('input[name=_csrf]') as HTMLInputElement).value;
      const r = await fetch(path, { method: 'POST', body: new URLSearchParams({ _csrf: csrf }) });
      return { status: r.status, text: await r.text() };
    }, `/admin/team/${id}/remove`);
    expect(answer.status).toBe(409);
    expect(answer.text).toContain('ADMIN_EMAILS');
    expect((await svc.sql`select count(*)::int as n from team_members where email = ${OWNER}`)[0]!.n).toBe(1);
  });
});

describe('sessions', () => {
  test('a member sees their sessions and ends another one', async () => {
    // a second browser of the member's
    const other = await open('phone');
    const before = svc.mail.messages.length;
    await svc.api('POST', '/auth/magic-link', { key: null, body: { email: MEMBER } });
    await other.page.goto(await svc.mail.magicLink(MEMBER, (m) => svc.mail.messages.indexOf(m) >= before));
    await member.page.goto(`${svc.url}/admin/sessions`);
    expect(await member.page.locator('#sessions tbody tr').count()).toBe(2);
    expect(await member.page.textContent('#sessions')).toContain('This browser');
    await member.page.click('button:has-text("Sign out everywhere else")');
    await member.page.waitForSelector('.notice.ok');
    expect(await member.page.locator('#sessions tbody tr').count()).toBe(1);
    // the other browser is signed out at once
    await other.page.goto(`${svc.url}/admin`);
    expect(other.page.url()).toEndWith('/admin/sign-in');
    await other.context.close();
  });

  test('removing a member ends their sessions at once', async () => {
    const page = owner.page;
    await page.goto(`${svc.url}/admin/team`);
    await page.click(`#team tr[data-email="${MEMBER}"] button.more`);
    await page.locator('.pop:popover-open button:has-text("Remove from the team")').click();
    await page.waitForSelector('.notice.ok');
    expect(await page.locator(`#team tr[data-email="${MEMBER}"]`).count()).toBe(0);
    expect((await svc.sql`select count(*)::int as n from sessions where admin_email = ${MEMBER} and revoked_at is null`)[0]!.n).toBe(0);
    await member.page.goto(`${svc.url}/admin/payouts`);
    expect(member.page.url()).toEndWith('/admin/sign-in');
  });
});
