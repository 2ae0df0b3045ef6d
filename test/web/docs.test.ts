// The API reference at /docs in a real browser with no internet: everything it needs comes from
// the service itself, and it renders the service's own OpenAPI document.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { Browser } from 'playwright-core';
import { startService, type TestService } from '../support/service';
import { ARTIFACTS, launchBrowser, newPage } from './browser';

// a browser round trip per step; a loaded CI machine is slow, not broken
setDefaultTimeout(30_000);

let svc: TestService;
let browser: Browser;

beforeAll(async () => {
  [svc, browser] = await Promise.all([startService(), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

describe('/docs', () => {
  test('renders the OpenAPI document offline: nothing is asked of any other host, nothing breaks the CSP', async () => {
    const { context, page } = await newPage(browser);
    const own = new URL(svc.url).host;
    const elsewhere: string[] = [];
    await context.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (url.host === own || url.protocol === 'data:' || url.protocol === 'blob:') return route.continue();
      elsewhere.push(url.href);
      return route.abort('internetdisconnected');
    });
    const refused: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
    });

    const res = await page.goto(`${svc.url}/docs`);
    expect(res!.status()).toBe(200);
    expect(res!.headers()['content-security-policy']).toContain("script-src 'self'");
    // an operation's summary from the document, and the document's title
    await page.getByText('The database is reachable and migrated').first().waitFor({ state: 'visible' });
    await page.getByRole('heading', { name: 'Partnerd API' }).first().waitFor({ state: 'visible' });
    // the first screen only: the whole reference is many screens long
    await page.screenshot({ path: `${ARTIFACTS}docs.png` });

    expect(elsewhere).toEqual([]);
    expect(refused).toEqual([]);
    await context.close();
  });

  test('the viewer is served by the service itself, as a script', async () => {
    const html = await (await fetch(`${svc.url}/docs`)).text();
    expect(html).toContain('<script src="/assets/scalar.js">');
    expect(html).not.toMatch(/src="https?:/);
    const res = await fetch(`${svc.url}/assets/scalar.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/javascript');
    expect((await res.text()).length).toBeGreaterThan(100_000);
  });
});
