// The API reference at /docs (Swagger UI) in a real browser with no internet: everything it needs
// comes from the service itself, nothing breaks its CSP, and it renders the service's own document.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startService, type TestService } from '../support/service';
import { ARTIFACTS, launchBrowser, newPage } from './browser';

// a browser round trip per step, and Swagger UI draws the whole document (~1 MB) first: on a loaded
// 2-core CI machine that alone has taken close to 30 s, which is slow, not broken
setDefaultTimeout(90_000);

let svc: TestService;
let browser: Browser;

beforeAll(async () => {
  [svc, browser] = await Promise.all([startService(), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

/**
 * A page that cannot leave the machine: every request to a host other than 127.0.0.1 is aborted
 * and written down, as is every CSP violation (the event and the console's report of it).
 */
async function offlinePage(options: { phone?: boolean } = {}): Promise<{ context: BrowserContext; page: Page; elsewhere: string[]; refused: string[] }> {
  const { context, page } = await newPage(browser, options);
  page.setDefaultTimeout(80_000);
  const elsewhere: string[] = [];
  const refused: string[] = [];
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.hostname === '127.0.0.1' || url.protocol === 'data:' || url.protocol === 'blob:') return route.continue();
    elsewhere.push(url.href);
    return route.abort('internetdisconnected');
  });
  // anything the router might not see (a ping, a prefetch) still shows up here
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.hostname !== '127.0.0.1' && url.protocol !== 'data:' && url.protocol !== 'blob:' && !elsewhere.includes(url.href)) elsewhere.push(url.href);
  });
  page.on('console', (message) => {
    if (/Content.Security.Policy/i.test(message.text())) refused.push(message.text());
  });
  await page.exposeFunction('__cspViolation', (text: string) => refused.push(text));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      (window as unknown as { __cspViolation(text: string): void }).__cspViolation(`${e.violatedDirective} ${e.blockedURI} ${e.sample}`);
    });
  });
  return { context, page, elsewhere, refused };
}

/** Opens /docs and waits until the document is drawn: its title and an operation's summary. */
async function openDocs(page: Page): Promise<void> {
  const res = await page.goto(`${svc.url}/docs`);
  expect(res!.status()).toBe(200);
  const csp = res!.headers()['content-security-policy']!;
  expect(csp).toContain("script-src 'self';");
  expect(csp).toContain("style-src 'self';");
  expect(csp).toContain("connect-src 'self';");
  expect(csp).not.toContain('unsafe-inline');
  await page.getByRole('heading', { name: /^Partnerd API/ }).waitFor({ state: 'visible' });
  await page.getByText('Create a partner', { exact: true }).first().waitFor({ state: 'visible' });
  expect(await page.title()).toBe('Partnerd API');
}

describe('/docs', () => {
  test('renders the OpenAPI document offline on a wide screen: nothing is asked of any other host, nothing breaks the CSP', async () => {
    const { context, page, elsewhere, refused } = await offlinePage();
    await page.setViewportSize({ width: 1366, height: 900 });
    await openDocs(page);
    await page.getByText('List partners', { exact: true }).first().waitFor({ state: 'visible' });
    // the first screen only: the whole reference is many screens long
    await page.screenshot({ path: `${ARTIFACTS}docs-1366.png` });

    // "Try it out" calls this same service and shows its answer
    const operation = page.locator('#operations-Sign-in-postAuthLogout');
    await operation.getByText('End the browser session').click();
    await operation.getByRole('button', { name: 'Try it out' }).click();
    await operation.getByRole('button', { name: 'Execute' }).click();
    const live = operation.locator('.live-responses-table');
    await live.locator('tbody td.response-col_status').first().waitFor({ state: 'visible' });
    expect((await live.locator('tbody td.response-col_status').first().textContent())?.trim()).toBe('200');
    expect(await live.locator('tbody td.response-col_description').first().textContent()).toContain('"ok": true');
    // deep linking: the open operation is in the address
    expect(new URL(page.url()).hash).toBe('#/Sign-in/postAuthLogout');

    expect(elsewhere).toEqual([]);
    expect(refused).toEqual([]);
    await context.close();
  });

  test('renders on a phone too, still offline and within the CSP', async () => {
    const { context, page, elsewhere, refused } = await offlinePage({ phone: true });
    await openDocs(page);
    await page.screenshot({ path: `${ARTIFACTS}docs-390.png` });
    // nothing wider than the screen: the page does not scroll sideways
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect(elsewhere).toEqual([]);
    expect(refused).toEqual([]);
    await context.close();
  });

  test('the viewer is served by the service itself: our scripts and stylesheets, none inline, none from elsewhere', async () => {
    const html = await (await fetch(`${svc.url}/docs`)).text();
    const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
    expect(scripts).toEqual(['<script src="/assets/swagger-ui.js">', '<script src="/assets/docs.js">']);
    expect([...html.matchAll(/<link rel="stylesheet" href="([^"]+)"/g)].map((m) => m[1])).toEqual(['/assets/swagger-ui.css', '/assets/docs.css']);
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    expect(html).not.toContain('<style');
    expect(html).toContain('<link rel="icon" href="/assets/favicon.svg"');

    const bundle = await fetch(`${svc.url}/assets/swagger-ui.js`, { headers: { 'accept-encoding': 'gzip' } });
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toContain('text/javascript');
    expect(bundle.headers.get('content-encoding')).toBe('gzip');
    expect(await bundle.text()).toContain('SwaggerUIBundle');
    const plain = await fetch(`${svc.url}/assets/swagger-ui.css`, { headers: { 'accept-encoding': 'identity' } });
    expect(plain.headers.get('content-type')).toContain('text/css');
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(await plain.text()).toContain('.swagger-ui');
    const starter = await fetch(`${svc.url}/assets/docs.js`);
    expect(starter.headers.get('content-type')).toContain('text/javascript');
    expect(await starter.text()).toContain('validatorUrl: null');
  });
});
