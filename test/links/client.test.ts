import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { gzipSync } from 'node:zlib';
import type { Browser } from 'playwright-core';
import { startService, type TestService } from '../support/service';
import { launchBrowser } from '../web/browser';
import { link, partner } from './helpers';

let svc: TestService;
beforeAll(async () => {
  svc = await startService();
}, 60_000);
afterAll(() => svc.stop());

describe('GET /client.js', () => {
  test('is JavaScript, under 2 KB gzipped, cacheable, with an ETag', async () => {
    const res = await fetch(`${svc.url}/client.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('javascript');
    expect(res.headers.get('cache-control')).toContain('max-age=');
    const source = await res.text();
    expect(source).toContain('partnerd');
    expect(gzipSync(source).length).toBeLessThan(2048);
    const etag = res.headers.get('etag')!;
    expect(etag).toMatch(/^".+"$/);
    const again = await fetch(`${svc.url}/client.js`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
  });
});

describe('in a real browser', () => {
  let browser: Browser;
  let shop: ReturnType<typeof Bun.serve>;
  let publishable: string;
  beforeAll(async () => {
    publishable = await svc.publishableKey();
    // the operator's site: a landing page that loads the client from the service's origin
    shop = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      fetch: () =>
        new Response(
          `<!doctype html><html><head><script src="${svc.url}/client.js" data-key="${publishable}"></script></head><body>Shop</body></html>`,
          { headers: { 'content-type': 'text/html' } },
        ),
    });
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    shop?.stop(true);
  });

  test('a visitor follows a share link, the page loads /client.js, identify joins the user to the click', async () => {
    const res = await svc.api('POST', '/v1/campaigns', {
      body: { name: 'Shop', destinationUrl: `http://127.0.0.1:${shop.port}/landing?lang=en`, currency: 'EUR' },
    });
    const l = await link(svc, await partner(svc, [res.body.id]), res.body.id);
    const page = await (await browser.newContext()).newPage();

    await page.goto(l.url);
    const landed = new URL(page.url());
    expect(landed.pathname).toBe('/landing');
    expect(landed.searchParams.get('lang')).toBe('en');
    const first = landed.searchParams.get('pp_click')!;
    expect(first).toMatch(/^clk_[0-9a-z]{26}$/);

    // a second visit through the link, then a plain page view: both clicks kept once each
    await page.goto(l.url);
    const second = new URL(page.url()).searchParams.get('pp_click')!;
    await page.goto(`http://127.0.0.1:${shop.port}/pricing`);
    await page.goto(l.url.replace(/\/r\/.*/, '/r/') + l.slug);
    const third = new URL(page.url()).searchParams.get('pp_click')!;
    await page.reload();
    expect(await page.evaluate(() => (window as any).partnerd.clickIds())).toEqual([first, second, third]);

    const answer = await page.evaluate(() => (window as any).partnerd.identify('browser-user-1'));
    expect(answer).toEqual({ userId: 'browser-user-1', clickIds: [first, second, third] });
    const rows = await svc.sql`select click_id from identity_clicks where user_id = 'browser-user-1' order by click_id`;
    expect(rows.map((r) => r.click_id)).toEqual([first, second, third]);
    await svc.ctx.links.clicks.flush();
    expect(await svc.sql`select id from clicks where id = any(${[first, second, third]})`).toHaveLength(3);
  });

  test('keeps the newest 20 click ids, and identify works with none', async () => {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`http://127.0.0.1:${shop.port}/`);
    const answer = await page.evaluate(() => (window as any).partnerd.identify('browser-user-2'));
    expect(answer).toEqual({ userId: 'browser-user-2', clickIds: [] });
    expect(await svc.sql`select user_id from identities where user_id = 'browser-user-2'`).toHaveLength(1);

    const old = Array.from({ length: 25 }, (_, i) => `clk_${String(i).padStart(26, '0')}`);
    await page.evaluate((ids) => localStorage.setItem('partnerd_clicks', JSON.stringify(ids)), old);
    const fresh = 'clk_01m7ybq7468cwctcx3ea3bzppa';
    await page.goto(`http://127.0.0.1:${shop.port}/?pp_click=${fresh}&pp_click=not-a-click`);
    const kept = await page.evaluate(() => JSON.parse(localStorage.getItem('partnerd_clicks')!));
    expect(kept).toEqual([...old.slice(-19), fresh]);
  });

  test('identify with a wrong key rejects with the service\'s error', async () => {
    const page = await (await browser.newContext()).newPage();
    await page.setContent(`<script src="${svc.url}/client.js" data-key="pk_wrong"></script>`);
    await page.waitForFunction(() => (window as any).partnerd !== undefined);
    const error = await page.evaluate(() =>
      (window as any).partnerd.identify('x').then(
        () => null,
        (e: { status: number; body: { code: string } }) => ({ status: e.status, code: e.body.code }),
      ),
    );
    expect(error).toEqual({ status: 401, code: 'unauthorized' });
  });
});
