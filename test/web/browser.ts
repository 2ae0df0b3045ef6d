// One headless Chromium per test run, and the small steps the web tests share.
import { existsSync, mkdirSync } from 'node:fs';
import { expect } from 'bun:test';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { chromiumPath, chromiumPlan } from '../support/chromium';
import { startService, type TestService } from '../support/service';

export const ARTIFACTS = new URL('../artifacts/', import.meta.url).pathname;

/**
 * This run's Chromium, as a test file sees it: started once for every file of the `bun test` process
 * (a start costs seconds on a busy machine), while closing it closes only the contexts this file
 * opened. Contexts share nothing (cookies, storage, cache), so files stay as isolated as before.
 */
export async function launchBrowser(): Promise<Browser> {
  mkdirSync(ARTIFACTS, { recursive: true });
  // `bun run test` installs it first; a bare `bun test` says what to do instead of a launch error
  const plan = chromiumPlan({ env: process.env, exists: existsSync, root: process.getuid?.() === 0, apt: Bun.which('apt-get') !== null });
  if (plan.kind === 'install') throw new Error(`No Chromium at ${plan.path}: \`bun run test\` installs it, or run: ${plan.command}`);
  if (plan.kind === 'missing') throw new Error(plan.message);
  const running = await globalThis.__partnerdBrowser?.catch(() => undefined);
  if (!running?.isConnected()) {
    globalThis.__partnerdBrowser = chromium.launch({
      executablePath: chromiumPath(),
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
  }
  const shared = await globalThis.__partnerdBrowser!;
  const opened = new Set<BrowserContext>();
  const newContext: Browser['newContext'] = async (options) => {
    const context = await shared.newContext(options);
    opened.add(context);
    context.once('close', () => opened.delete(context));
    return context;
  };
  const close = async () => {
    await Promise.all([...opened].map((context) => context.close()));
  };
  return new Proxy(shared, {
    get(target, key) {
      if (key === 'newContext') return newContext;
      if (key === 'close') return close;
      if (key === 'newPage') return async (options?: Parameters<Browser['newPage']>[0]) => (await newContext(options)).newPage();
      const value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** A fresh browser profile (its own cookies) with one page; phone-sized when asked. */
export async function newPage(browser: Browser, options: { phone?: boolean } = {}): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext(options.phone ? { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true } : { viewport: { width: 1200, height: 900 } });
  const page = await context.newPage();
  return { context, page };
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `${ARTIFACTS}${name}.png`, fullPage: true });
}

export const LAPTOP = { width: 1366, height: 900 };
export const PHONE = { width: 390, height: 844 };

/** The page as it is at 1366 and 390 px (`<name>-1366.png`, `<name>-390.png`), no sideways scroll on the phone; left at 1366. */
export async function screenshotBothWidths(page: Page, name: string): Promise<void> {
  await page.setViewportSize(LAPTOP);
  await screenshot(page, `${name}-1366`);
  await page.setViewportSize(PHONE);
  await screenshot(page, `${name}-390`);
  expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBe(0);
  await page.setViewportSize(LAPTOP);
}

/** Invites a partner over the API (the invite mail carries a magic link); answers its id. */
export async function invitePartner(svc: TestService, input: { email: string; name: string; campaignIds?: string[] }): Promise<string> {
  const res = await svc.api('POST', '/v1/partners', { body: { ...input, sendInvite: true } });
  if (res.status !== 201) throw new Error(`partner: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id;
}

/** Signs a partner in through the portal's own sign-in form and the emailed link. */
export async function signInThroughPortal(svc: TestService, page: Page, email: string): Promise<void> {
  const before = svc.mail.messages.length;
  await page.goto(`${svc.url}/portal/sign-in`);
  await page.fill('input[name=email]', email);
  await page.click('button[type=submit]');
  await page.waitForSelector('.notice.ok');
  const link = await svc.mail.magicLink(email, (m) => svc.mail.messages.indexOf(m) >= before);
  await page.goto(link);
}

/** Signs an admin in through the admin sign-in form and the link this sign-in emailed. */
export async function signInAsAdmin(svc: TestService, page: Page, email: string): Promise<void> {
  const before = svc.mail.messages.length;
  await page.goto(`${svc.url}/admin/sign-in`);
  await page.fill('input[name=email]', email);
  await page.click('button[type=submit]');
  await page.waitForSelector('.notice.ok');
  await page.goto(await svc.mail.magicLink(email, (m) => svc.mail.messages.indexOf(m) >= before));
}

/** A fresh browser profile `width` px wide (phone-sized below 500), signed in as the admin `email`; its page stays open. */
export async function signedInAdmin(svc: TestService, browser: Browser, email: string, width = LAPTOP.width): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext(width < 500 ? { viewport: { width, height: PHONE.height }, isMobile: true, hasTouch: true } : { viewport: { width, height: LAPTOP.height } });
  const page = await context.newPage();
  await signInAsAdmin(svc, page, email);
  return { context, page };
}

/** A service started with `env`, this run's Chromium, and the admin `email` signed in at 1366 px: where most admin page tests start. */
export async function startWithAdmin(env: Record<string, string>, email: string): Promise<{ svc: TestService; browser: Browser; context: BrowserContext; page: Page }> {
  const [svc, browser] = await Promise.all([startService(env), launchBrowser()]);
  try {
    return { svc, browser, ...(await signedInAdmin(svc, browser, email)) };
  } catch (error) {
    await browser.close();
    await svc.stop();
    throw error;
  }
}

/**
 * Another site's page that posts a form cross-site the moment it loads: open
 * `<url>/?target=<our URL>&<field>=<value>…` and it submits the fields to the target.
 */
export function startCrossSitePoster(): ReturnType<typeof Bun.serve> {
  return Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch(req) {
      const target = new URL(req.url).searchParams.get('target')!;
      const fields = [...new URL(req.url).searchParams].filter(([k]) => k !== 'target');
      const inputs = fields.map(([k, v]) => `<input type="hidden" name="${k}" value="${v}">`).join('');
      return new Response(`<!doctype html><form id="f" method="post" action="${target}">${inputs}</form><script>document.getElementById('f').submit()</script>`, {
        headers: { 'content-type': 'text/html' },
      });
    },
  });
}

/** The state-changing call the partner's browser would make, posted from inside the page. */
/** Answers the status, or 'redirect' for a 3xx (a page's fetch cannot read a redirect's status). */
export function postForm(page: Page, path: string, fields: Record<string, string>): Promise<{ status: number | 'redirect'; text: string }> {
  return page.evaluate(
    async ({ path, fields }) => {
      const res = await fetch(path, { method: 'POST', body: new URLSearchParams(fields), redirect: 'manual' });
      return { status: res.type === 'opaqueredirect' ? ('redirect' as const) : res.status, text: await res.text() };
    },
    { path, fields },
  );
}
