// The embedded referral page inside an iframe, as an operator's app shows it (issue 32): a page served
// from an allowed origin (EMBED_ORIGINS) shows it with the link, Copy and a downloadable QR code; a
// page from another origin gets nothing (the browser enforces frame-ancestors).
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { Server } from 'bun';
import type { Browser, Frame, Page } from 'playwright-core';
import { startService, type TestService } from '../support/service';
import { campaign, link, partner } from '../links/helpers';
import { launchBrowser, screenshot } from './browser';

setDefaultTimeout(60_000);

let svc: TestService;
let browser: Browser;
let allowed: Server<undefined>;
let other: Server<undefined>;
let shareUrl: string;
let embedUrl: string;

/** The operator's app: a page with the embed in an iframe, at `/?src=<embed url>`. */
function operatorApp(): Server<undefined> {
  return Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(request) {
      const src = new URL(request.url).searchParams.get('src') ?? '';
      const html = `<!doctype html><html><head><meta name="viewport" content="width=device-width, initial-scale=1"><title>Operator app</title></head>
<body style="margin:0;font-family:sans-serif"><header style="padding:12px;background:#222;color:#fff">Operator app · Refer a friend</header>
<iframe id="embed" title="Refer and earn" allow="clipboard-write" src="${src.replace(/"/g, '&quot;')}" style="width:100%;height:720px;border:0"></iframe></body></html>`;
      return new Response(html, { headers: { 'content-type': 'text/html; charset=utf-8' } });
    },
  });
}

beforeAll(async () => {
  allowed = operatorApp();
  other = operatorApp();
  [svc, browser] = await Promise.all([startService({ EMBED_ORIGINS: `http://127.0.0.1:${allowed.port}` }), launchBrowser()]);
  await svc.api('PATCH', '/v1/settings', { body: { programName: 'Acme Rewards', brandColor: '#7c3aed' } });
  const cmp = await campaign(svc);
  const ptn = await partner(svc, [cmp]);
  shareUrl = (await link(svc, ptn, cmp, 'carla-refers')).url;
  embedUrl = (await svc.api('POST', '/v1/embed-tokens', { body: { partnerId: ptn } })).body.url;
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
  allowed?.stop(true);
  other?.stop(true);
});

async function operatorPage(host: Server<undefined>, phone = false): Promise<{ page: Page; frame: Frame }> {
  const context = await browser.newContext(phone ? { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true } : { viewport: { width: 1366, height: 900 } });
  const page = await context.newPage();
  await page.goto(`http://127.0.0.1:${host.port}/?src=${encodeURIComponent(embedUrl)}`, { waitUntil: 'load' });
  const frame = (await (await page.$('#embed'))!.contentFrame())!;
  return { page, frame };
}

describe('the embed in an iframe', () => {
  test('from an allowed origin: the link with Copy, the numbers and a QR code to download', async () => {
    const { page, frame } = await operatorPage(allowed);
    await frame.waitForSelector('#embed-url');
    expect(await frame.inputValue('#embed-url')).toBe(shareUrl);
    expect(await frame.textContent('h1')).toBe('Share Acme Rewards, earn rewards');
    expect(await frame.textContent('#embed-clicks .label')).toBe('Clicks');
    expect(await frame.textContent('#embed-payout')).toContain('Paid to');
    await frame.click('button[data-copy="#embed-url"]');
    // the clipboard answers asynchronously: wait for the button to say how it went
    await frame.waitForFunction(() => document.querySelector('button[data-copy="#embed-url"]')?.textContent?.trim() !== 'Copy');
    expect(['Copied', 'Press Ctrl+C']).toContain((await frame.textContent('button[data-copy="#embed-url"]'))!.trim());
    expect(await frame.$eval('.embed-qr img', (img) => (img as HTMLImageElement).naturalWidth > 0)).toBe(true);
    const [download] = await Promise.all([page.waitForEvent('download'), frame.click('.embed-qr a[download]')]);
    expect(download.suggestedFilename()).toBe('referral-qr.svg');
    await screenshot(page, 'embed-iframe-1366');
    const phone = await operatorPage(allowed, true);
    await phone.frame.waitForSelector('#embed-url');
    await screenshot(phone.page, 'embed-iframe-390');
  });

  test('from another origin: the browser refuses to show it', async () => {
    const { frame } = await operatorPage(other);
    await frame.waitForLoadState('load').catch(() => undefined);
    expect(await frame.$('#embed-url')).toBeNull();
    expect(await frame.$('#embed')).toBeNull();
  });
});
