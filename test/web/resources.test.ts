// The resources pages in a real browser (issue 32): the admin uploads, previews and deletes; a
// partner sees their resources with previews, texts with their own link and a working download.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startService, type TestService } from '../support/service';
import { campaign, link, partner } from '../links/helpers';
import { samples } from '../resources/fixtures';
import { launchBrowser, screenshot } from './browser';

setDefaultTimeout(60_000);

const ADMIN = 'admin@ops.example';
let svc: TestService;
let browser: Browser;
let dir: string;
let cmp: string;
let ptn: string;

beforeAll(async () => {
  [svc, browser] = await Promise.all([startService({ ADMIN_EMAILS: ADMIN }), launchBrowser()]);
  dir = mkdtempSync(join(tmpdir(), 'partnerd-resources-'));
  const files = await samples();
  writeFileSync(join(dir, 'banner.png'), files.png);
  writeFileSync(join(dir, 'logo.svg'), files.svg);
  writeFileSync(join(dir, 'guide.pdf'), files.pdf);
  cmp = await campaign(svc);
  ptn = await partner(svc, [cmp]);
  await svc.sql`update partners set email = 'pia@partner.example' where id = ${ptn}`;
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

async function open(email: string, area: 'admin' | 'portal', phone = false): Promise<Page> {
  const context = await browser.newContext(phone ? { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true } : { viewport: { width: 1366, height: 900 } });
  const page = await context.newPage();
  const before = svc.mail.messages.length;
  await page.goto(`${svc.url}/${area}/sign-in`);
  await page.fill('input[name=email]', email);
  await page.click('button[type=submit]');
  await page.waitForSelector('.notice.ok');
  await page.goto(await svc.mail.magicLink(email, (m) => svc.mail.messages.indexOf(m) >= before));
  return page;
}

/** Whether the preview arrived and decoded (waits for it: previews load lazily; up to 15 s, which only a broken run reaches). */
async function imageLoaded(page: Page, selector: string): Promise<boolean> {
  const loaded = await page
    .waitForFunction((s) => {
      const img = document.querySelector(s) as HTMLImageElement | null;
      return !!img && img.complete && img.naturalWidth > 0;
    }, selector, { timeout: 15_000 })
    .then(() => true, () => false);
  return loaded;
}

describe('admin resources page', () => {
  test('upload with a preview, SVG refused beside the field, copy with {{link}}, delete from the row menu', async () => {
    const page = await open(ADMIN, 'admin');
    await page.goto(`${svc.url}/admin`);
    await page.click('nav[aria-label=Main] a[href="/admin/resources"]');
    expect(await page.textContent('h1')).toBe('Resources');
    expect(await page.textContent('nav a[aria-current=page]')).toBe('Resources');
    await page.setInputFiles('#f-file', join(dir, 'banner.png'));
    await page.fill('#u-title', 'Spring banner');
    await page.selectOption('#u-campaignId', cmp);
    await page.click('#upload-form button[type=submit]');
    expect(await page.textContent('.notice.ok')).toBe('Resource added.');
    const [row] = await svc.sql`select id, title, campaign_id, content_type from resources where title = 'Spring banner'`;
    expect(row).toMatchObject({ campaign_id: cmp, content_type: 'image/png' });
    expect(await imageLoaded(page, `tr[data-id="${row!.id}"] img.thumb`)).toBe(true);

    await page.setInputFiles('#f-file', join(dir, 'logo.svg'));
    await page.click('#upload-form button[type=submit]');
    expect(await page.textContent('#f-file-error')).toContain('SVG files are refused');
    expect(await svc.sql`select 1 from resources where file_name = 'logo.svg'`).toHaveLength(0);

    await page.setInputFiles('#f-file', join(dir, 'guide.pdf'));
    await page.click('#upload-form button[type=submit]');
    await page.fill('#f-title', 'Tweet');
    await page.fill('#f-body', 'My favourite tool: {{link}}');
    await page.click('#text-form button[type=submit]');
    expect(await page.textContent('.notice.ok')).toBe('Resource added.');
    await page.fill('#f-title', '');
    await page.click('#text-form button[type=submit]');
    expect(await page.textContent('#f-title-error')).toBe('required');
    await page.goto(`${svc.url}/admin/resources`);
    await screenshot(page, 'admin-resources-1366');

    const phone = await open(ADMIN, 'admin', true);
    await phone.goto(`${svc.url}/admin/resources`);
    await screenshot(phone, 'admin-resources-390');

    const [pdf] = await svc.sql`select id from resources where file_name = 'guide.pdf'`;
    await page.click(`tr[data-id="${pdf!.id}"] button.more`);
    await page.click(`#rsc-${pdf!.id} button.danger`);
    expect(await page.textContent('.notice.ok')).toBe('Resource deleted.');
    expect(await page.$(`tr[data-id="${pdf!.id}"]`)).toBeNull();
    expect(await svc.sql`select 1 from resources where id = ${pdf!.id}`).toHaveLength(0);
  });
});

describe('portal resources page', () => {
  test("previews, the text with the partner's own link and Copy, a download of the file", async () => {
    const own = await link(svc, ptn, cmp, 'pia-link');
    const page = await open('pia@partner.example', 'portal');
    await page.goto(`${svc.url}/portal`);
    await page.click('nav[aria-label=Main] a[href="/portal/resources"]');
    expect(await page.textContent('h1')).toBe('Resources');
    expect(await page.textContent('nav a[aria-current=page]')).toBe('Resources');
    const banner = (await svc.sql`select id from resources where title = 'Spring banner'`)[0]!.id;
    expect(await imageLoaded(page, `li[data-id="${banner}"] img.thumb`)).toBe(true);
    const tweet = (await svc.sql`select id from resources where title = 'Tweet'`)[0]!.id;
    expect(await page.inputValue(`#text-${tweet}`)).toBe(`My favourite tool: ${own.url}`);
    expect(await page.$(`li[data-id="${tweet}"] button[data-copy]`)).not.toBeNull();
    const [download] = await Promise.all([page.waitForEvent('download'), page.click(`li[data-id="${banner}"] a[download]`)]);
    expect(download.suggestedFilename()).toBe('banner.png');
    await screenshot(page, 'portal-resources-1366');
    // the QR code beside each link on the Links page, saved as a PNG
    await page.goto(`${svc.url}/portal/links`);
    const [qr] = await Promise.all([page.waitForEvent('download'), page.click(`tr[data-id="${own.id}"] a.qr-link`)]);
    expect(qr.suggestedFilename()).toBe('pia-link-qr.png');
    expect((await Bun.file((await qr.path())!).bytes()).subarray(1, 4)).toEqual(new TextEncoder().encode('PNG'));
    await screenshot(page, 'portal-links-qr-1366');
    const phone = await open('pia@partner.example', 'portal', true);
    await phone.goto(`${svc.url}/portal/resources`);
    await screenshot(phone, 'portal-resources-390');
  });

  test("the admin partner and campaign pages offer each link's QR code as a PNG download", async () => {
    const page = await open(ADMIN, 'admin');
    await page.goto(`${svc.url}/admin/partners/${ptn}`);
    const [qr] = await Promise.all([page.waitForEvent('download'), page.click('tr[data-slug="pia-link"] a.qr-link')]);
    expect(qr.suggestedFilename()).toBe('pia-link-qr.png');
    expect((await Bun.file((await qr.path())!).bytes()).subarray(1, 4)).toEqual(new TextEncoder().encode('PNG'));
    await screenshot(page, 'admin-partner-qr-1366');
    // and on the campaign page's links
    await page.goto(`${svc.url}/admin/campaigns/${cmp}`);
    const [fromCampaign] = await Promise.all([page.waitForEvent('download'), page.click('#campaign-links tr[data-slug="pia-link"] a.qr-link')]);
    expect(fromCampaign.suggestedFilename()).toBe('pia-link-qr.png');
    await screenshot(page, 'admin-campaign-qr-1366');
    expect((await Bun.file((await fromCampaign.path())!).bytes()).subarray(1, 4)).toEqual(new TextEncoder().encode('PNG'));
  });

  test("another campaign's resources stay hidden", async () => {
    const other = await campaign(svc);
    await svc.api('POST', '/v1/resources', { body: { kind: 'text', title: 'Other program copy', body: 'x', campaignId: other } });
    const page = await open('pia@partner.example', 'portal');
    await page.goto(`${svc.url}/portal/resources`);
    expect(await page.textContent('#resources')).not.toContain('Other program copy');
  });
});
