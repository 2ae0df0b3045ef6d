// The admin webhook pages in a real browser, against a real receiver on 127.0.0.1: health badges on
// the endpoint list, editing an endpoint, rotating its secret (confirmed first; the old secret signs beside the new
// one for 24 hours only), the exact payload of a delivery, and deleting for good (confirmed
// first). Each action is checked in the database. Screenshots at 1366x900 and 390x844.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startReceiver, type Receiver } from '../support/receiver';
import { startService, type TestService } from '../support/service';
import { LOCAL_RECEIVERS, registerEndpoint, verifyServiceSignature } from '../support/webhooks';
import { launchBrowser, postForm, screenshot, signedInAdmin } from './browser';

setDefaultTimeout(30_000);

const ADMIN = 'boss@example.com';
const LAPTOP = { width: 1366, height: 900 };
const PHONE = { width: 390, height: 844 };

let svc: TestService;
let browser: Browser;
let receiver: Receiver;
let admin: BrowserContext;
let page: Page;
/** Endpoints in each health state. */
const ids = { healthy: '', failing: '', paused: '', fresh: '' };
let healthySecret: string;

beforeAll(async () => {
  [svc, browser, receiver] = await Promise.all([startService({ ADMIN_EMAILS: ADMIN, ...LOCAL_RECEIVERS }), launchBrowser(), startReceiver()]);
  // /fail answers 500, everything else 200
  receiver.respond = (request) => (new URL(request.url).pathname === '/fail' ? new Response('down for <b>maintenance</b>', { status: 500 }) : new Response('ok'));
  ({ context: admin, page } = await signedInAdmin(svc, browser, ADMIN));
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
  await receiver?.stop();
});

describe('endpoint list', () => {
  test('no endpoints yet: an empty state', async () => {
    await page.goto(`${svc.url}/admin/webhooks`);
    expect(await page.textContent('.empty-state .empty-title')).toBe('No endpoints yet');
  });

  test('health per endpoint: healthy, failing, paused, no deliveries yet', async () => {
    let secret: string;
    ({ id: ids.healthy, secret } = await registerEndpoint(svc, `${receiver.url}/ok`, ['*'], 'CRM'));
    healthySecret = secret;
    ({ id: ids.failing } = await registerEndpoint(svc, `${receiver.url}/fail`, ['*'], 'Billing'));
    ({ id: ids.paused } = await registerEndpoint(svc, `${receiver.url}/ok`, ['*'], 'Old'));
    ({ id: ids.fresh } = await registerEndpoint(svc, `${receiver.url}/ok`, ['*'], 'New'));
    // healthy: a failure, then two successes; failing: a success, then two failures
    receiver.respond = () => new Response('nope', { status: 500 });
    expect((await svc.api('POST', `/webhooks/${ids.healthy}/test`)).body.status).toBe('failed');
    receiver.respond = (request) => (new URL(request.url).pathname === '/fail' ? new Response('down for <b>maintenance</b>', { status: 500 }) : new Response('ok'));
    for (let i = 0; i < 2; i++) expect((await svc.api('POST', `/webhooks/${ids.healthy}/test`)).body.status).toBe('succeeded');
    await svc.sql`update webhook_endpoints set url = ${`${receiver.url}/ok`} where id = ${ids.failing}`;
    expect((await svc.api('POST', `/webhooks/${ids.failing}/test`)).body.status).toBe('succeeded');
    await svc.sql`update webhook_endpoints set url = ${`${receiver.url}/fail`} where id = ${ids.failing}`;
    for (let i = 0; i < 2; i++) expect((await svc.api('POST', `/webhooks/${ids.failing}/test`)).body.status).toBe('failed');
    expect((await svc.api('POST', `/webhooks/${ids.paused}/test`)).status).toBe(200);
    expect((await svc.api('PATCH', `/webhooks/${ids.paused}`, { body: { active: false } })).status).toBe(200);

    await page.goto(`${svc.url}/admin/webhooks`);
    const cell = (id: string, what: string) => page.locator(`#endpoints tr[data-id="${id}"] [data-${what}]`);
    expect(await cell(ids.healthy, 'health').textContent()).toBe('Healthy');
    expect(await cell(ids.healthy, 'rate').textContent()).toBe('66% of 3');
    expect(await cell(ids.healthy, 'streak').textContent()).toBe('0');
    expect(await cell(ids.healthy, 'last').textContent()).toMatch(/^succeeded · \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/);
    expect(await cell(ids.failing, 'health').textContent()).toBe('Failing');
    expect(await cell(ids.failing, 'rate').textContent()).toBe('33% of 3');
    expect(await cell(ids.failing, 'streak').textContent()).toBe('2');
    expect(await cell(ids.failing, 'last').textContent()).toMatch(/^failed · /);
    expect(await cell(ids.paused, 'health').textContent()).toBe('Paused');
    expect(await cell(ids.fresh, 'health').textContent()).toBe('No deliveries yet');
    expect(await cell(ids.fresh, 'rate').textContent()).toBe('–');
    // the numbers are the database's
    const [row] = await svc.sql`select count(*) filter (where status = 'succeeded')::int as ok, count(*)::int as n from webhook_deliveries where endpoint_id = ${ids.failing}`;
    expect([row!.ok, row!.n]).toEqual([1, 3]);
    await screenshot(page, 'webhooks-list-1366');
    await page.setViewportSize(PHONE);
    await screenshot(page, 'webhooks-list-390');
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBe(0);
    await page.setViewportSize(LAPTOP);
  });
});

describe('an endpoint', () => {
  test('edit url, label and events; a bad URL shows beside its field and changes nothing', async () => {
    await page.goto(`${svc.url}/admin/webhooks/${ids.fresh}`);
    expect(await page.textContent('#endpoint-health')).toBe('No deliveries yet');
    await page.fill('#edit-form input[name=url]', 'ftp://example.com/hook');
    await page.click('#edit-form button:has-text("Save endpoint")');
    expect(await page.textContent('#f-url-error')).toBeTruthy();
    expect((await svc.sql`select url from webhook_endpoints where id = ${ids.fresh}`)[0]!.url).toBe(`${receiver.url}/ok`);

    await page.fill('#edit-form input[name=url]', `${receiver.url}/renamed`);
    await page.fill('#edit-form input[name=label]', 'Renamed <b>hook</b>');
    await page.uncheck('#edit-form input[name=events][value="*"]');
    await page.check('#edit-form input[name=events][value="payout.created"]');
    await page.check('#edit-form input[name=events][value="webhook.test"]');
    await page.click('#edit-form button:has-text("Save endpoint")');
    expect(await page.textContent('.notice.ok')).toBe('Endpoint saved.');
    expect(await page.textContent('h1')).toBe('Renamed <b>hook</b>');
    const [row] = await svc.sql`select url, label, events from webhook_endpoints where id = ${ids.fresh}`;
    expect(row).toEqual({ url: `${receiver.url}/renamed`, label: 'Renamed <b>hook</b>', events: ['payout.created', 'webhook.test'] });
    expect(await page.isChecked('#edit-form input[name=events][value="*"]')).toBe(false);
  });

  test('rotate the secret: confirmed first, shown once; the service signature is the new secret\'s at once, the old secret only signs beside it for 24 hours', async () => {
    await page.goto(`${svc.url}/admin/webhooks/${ids.healthy}`);
    expect(await page.textContent('#endpoint-health')).toBe('Healthy');
    await page.click('a[data-dialog=rotate-dialog]');
    const dialog = page.locator('dialog#rotate-dialog');
    expect(await dialog.isVisible()).toBe(true);
    expect(await dialog.locator('h2').textContent()).toBe('Rotate the signing secret of CRM');
    expect(await dialog.textContent()).toContain('signed with both the new and the old one');
    await screenshot(page, 'webhook-rotate-dialog-1366');
    expect((await svc.sql`select secret from webhook_endpoints where id = ${ids.healthy}`)[0]!.secret).toBe(healthySecret);
    // a post without the confirmation answers the confirm page and changes nothing
    const csrf = (await page.getAttribute('input[name=_csrf]', 'value'))!;
    const bare = await postForm(page, `/admin/webhooks/${ids.healthy}/rotate-secret`, { _csrf: csrf });
    expect(bare.status).toBe(200);
    expect(bare.text).toContain('Rotate the signing secret of CRM');
    expect((await svc.sql`select secret from webhook_endpoints where id = ${ids.healthy}`)[0]!.secret).toBe(healthySecret);

    await dialog.locator('button:has-text("Rotate secret")').click();
    const secret = await page.inputValue('#rotated #secret');
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(healthySecret);
    expect((await svc.sql`select secret from webhook_endpoints where id = ${ids.healthy}`)[0]!.secret).toBe(secret);
    await screenshot(page, 'webhook-rotated-1366');

    // shown once
    await page.goto(`${svc.url}/admin/webhooks/${ids.healthy}`);
    expect(await page.content()).not.toContain(secret);

    const before = receiver.received.length;
    await page.click('button:has-text("Send test")');
    expect(await page.textContent('.notice.ok')).toContain('Test sent');
    const hook = (await receiver.waitFor(before + 1))[before]!;
    expect(verifyServiceSignature(secret, hook)).toBe(true);
    expect(verifyServiceSignature(healthySecret, hook)).toBe(false);
  });

  test('a delivery shows the exact body the receiver got, and the event and delivery headers', async () => {
    const hook = receiver.received[receiver.received.length - 1]!;
    const deliveryId = hook.headers['x-service-delivery']!;
    await page.goto(`${svc.url}/admin/webhooks/${ids.healthy}`);
    await page.click(`#deliveries tr[data-id="${deliveryId}"] td.lead a`);
    expect(new URL(page.url()).pathname).toBe(`/admin/webhooks/${ids.healthy}/deliveries/${deliveryId}`);
    expect(await page.textContent('#header-event')).toBe(hook.headers['x-service-event']!);
    expect(await page.textContent('#header-delivery')).toBe(deliveryId);
    const pretty = (await page.textContent('#payload'))!;
    expect(pretty).toContain('\n  "event": "webhook.test"');
    expect(JSON.parse(pretty)).toEqual(JSON.parse(hook.body));
    expect(await page.locator('#payload-raw').evaluate((el) => el.textContent)).toBe(hook.body);
    expect(await page.textContent('#delivery-status')).toBe('Succeeded');
    await screenshot(page, 'webhook-delivery-1366');
    await page.setViewportSize(PHONE);
    await screenshot(page, 'webhook-delivery-390');
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBe(0);
    await page.setViewportSize(LAPTOP);

    // a failed delivery: its response body too, and the menu links the payload
    await page.goto(`${svc.url}/admin/webhooks/${ids.failing}`);
    const first = page.locator('#deliveries tbody tr').first();
    await first.locator('button.more').click();
    expect(await page.locator('[popover]:popover-open pre.response').textContent()).toBe('down for <b>maintenance</b>');
    await page.locator('[popover]:popover-open a:has-text("Payload and headers")').click();
    expect(await page.textContent('#delivery-status')).toBe('Failed');
    expect(JSON.parse((await page.textContent('#payload'))!).event).toBe('webhook.test');
    await screenshot(page, 'webhook-endpoint-failing-1366');
  });

  test('delete for good: confirmed first, naming the endpoint; then it and its log are gone', async () => {
    await page.goto(`${svc.url}/admin/webhooks/${ids.failing}`);
    await page.setViewportSize(PHONE);
    await screenshot(page, 'webhook-endpoint-390');
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBe(0);
    await page.setViewportSize(LAPTOP);
    await page.click('a[data-dialog=delete-dialog]');
    const dialog = page.locator('dialog#delete-dialog');
    expect(await dialog.locator('h2').textContent()).toBe('Delete Billing for good');
    expect(await dialog.textContent()).toContain(`${receiver.url}/fail`);
    await screenshot(page, 'webhook-delete-dialog-1366');
    await dialog.locator('button:has-text("Cancel")').click();
    expect(await svc.sql`select 1 from webhook_endpoints where id = ${ids.failing}`).toHaveLength(1);
    const csrf = (await page.getAttribute('input[name=_csrf]', 'value'))!;
    const bare = await postForm(page, `/admin/webhooks/${ids.failing}/delete`, { _csrf: csrf });
    expect(bare.status).toBe(200);
    expect(await svc.sql`select 1 from webhook_endpoints where id = ${ids.failing}`).toHaveLength(1);

    await page.click('a[data-dialog=delete-dialog]');
    await dialog.locator('button:has-text("Delete endpoint")').click();
    expect(new URL(page.url()).pathname).toBe('/admin/webhooks');
    expect(await page.textContent('.notice.ok')).toBe('Endpoint deleted, with its delivery log.');
    expect(await svc.sql`select 1 from webhook_endpoints where id = ${ids.failing}`).toHaveLength(0);
    expect(await svc.sql`select 1 from webhook_deliveries where endpoint_id = ${ids.failing}`).toHaveLength(0);
    expect(await page.locator(`#endpoints tr[data-id="${ids.failing}"]`).count()).toBe(0);
  });

  test('without script: rotate and delete go through their confirm pages', async () => {
    const context = await browser.newContext({ viewport: PHONE, javaScriptEnabled: false, storageState: await admin.storageState() });
    const plain = await context.newPage();
    await plain.goto(`${svc.url}/admin/webhooks/${ids.paused}`);
    await plain.click('a:has-text("Delete")');
    expect(new URL(plain.url()).pathname).toBe(`/admin/webhooks/${ids.paused}/delete`);
    expect(await plain.textContent('h1')).toBe('Delete Old for good');
    await screenshot(plain, 'webhook-delete-confirm-390');
    expect(await svc.sql`select 1 from webhook_endpoints where id = ${ids.paused}`).toHaveLength(1);
    await plain.click('button:has-text("Delete endpoint")');
    expect(await svc.sql`select 1 from webhook_endpoints where id = ${ids.paused}`).toHaveLength(0);

    await plain.goto(`${svc.url}/admin/webhooks/${ids.fresh}`);
    await plain.click('a:has-text("Rotate secret")');
    expect(await plain.textContent('h1')).toBe('Rotate the signing secret of Renamed <b>hook</b>');
    const [before] = await svc.sql`select secret from webhook_endpoints where id = ${ids.fresh}`;
    await plain.click('button:has-text("Rotate secret")');
    const secret = await plain.inputValue('#secret');
    expect(secret).not.toBe(before!.secret);
    expect((await svc.sql`select secret from webhook_endpoints where id = ${ids.fresh}`)[0]!.secret).toBe(secret);
    await context.close();
  });
});
