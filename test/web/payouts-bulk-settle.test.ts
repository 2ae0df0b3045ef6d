// Bulk settle on the admin payouts list: the admin ticks payouts paid by hand (by hand, Wise) and
// marks them paid with one reference; the confirmation gives counts in words and totals per
// currency; it is all or nothing (a payout settled meanwhile changes nothing and the page asks
// again); payouts a called rail settles (PayPal's API) cannot be ticked, nor forced by a post. Each
// payout paid emits payout.paid and one "payout sent" email. Screenshots at 1366 and 390 px.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import { insertCampaign, insertCommission } from '../support/lifecycle-fixtures';
import { startPayPalStandIn, type PayPalStandIn } from '../support/paypal-standin';
import { startService, type TestService } from '../support/service';
import { invitePartner, launchBrowser, postForm, screenshot, signedInAdmin } from './browser';

const ADMIN = 'settler@example.com';
let svc: TestService;
let browser: Browser;
let paypal: PayPalStandIn;
const payouts: Record<'ann' | 'ben' | 'cy' | 'dee', string> = { ann: '', ben: '', cy: '', dee: '' };

beforeAll(async () => {
  paypal = await startPayPalStandIn();
  [svc, browser] = await Promise.all([
    startService({
      ADMIN_EMAILS: ADMIN,
      PAYOUT_METHOD_HOLD_HOURS: '0',
      PAYPAL_CLIENT_ID: paypal.clientId,
      PAYPAL_CLIENT_SECRET: paypal.clientSecret,
      PAYPAL_API_URL: paypal.url,
      PAYPAL_WEBHOOK_ID: paypal.webhookId,
    }),
    launchBrowser(),
  ]);
  const usd = await insertCampaign(svc.sql, { currency: 'USD' });
  const eur = await insertCampaign(svc.sql, { currency: 'EUR' });
  const people = [
    { key: 'ann', name: 'Ann Archer', method: { type: 'manual' }, amount: 7200, currency: 'USD' },
    { key: 'ben', name: 'Ben <Baker>', method: { type: 'wise', email: 'ben.wise@example.com' }, amount: 4000, currency: 'EUR' },
    { key: 'cy', name: 'Cy Cole', method: { type: 'paypal', email: 'cy.pp@example.com' }, amount: 1500, currency: 'USD' },
    { key: 'dee', name: 'Dee Dunn', method: { type: 'manual' }, amount: 900, currency: 'USD' },
  ] as const;
  const ids: Record<string, string> = {};
  for (const p of people) {
    ids[p.key] = await invitePartner(svc, { email: `${p.key}@example.com`, name: p.name });
    expect((await svc.api('PUT', `/v1/partners/${ids[p.key]}/payout-method`, { body: p.method })).status).toBe(200);
    await insertCommission(svc.sql, { partnerId: ids[p.key]!, campaignId: p.currency === 'EUR' ? eur : usd, amount: p.amount, currency: p.currency, status: 'approved' });
  }
  const run = await svc.api('POST', '/v1/payouts/run');
  expect(run.status).toBe(200);
  for (const p of people) payouts[p.key] = run.body.payouts.find((x: { partnerId: string }) => x.partnerId === ids[p.key]).id;
}, 60_000);
afterAll(async () => {
  await browser.close();
  await svc.stop();
  paypal.stop();
});

/** A signed-in admin's browser at this width. */
const admin = (width: number) => signedInAdmin(svc, browser, ADMIN, width);

const statusOf = async (id: string) => (await svc.sql`select status, provider_reference, settled_by from payouts where id = ${id}`)[0]!;
const tick = (page: Page, id: string) => page.check(`#payouts tr[data-id="${id}"] input[name=ids]`);

test('at 390 px: the ticked payouts, the confirmation with counts and totals', async () => {
  const { context, page } = await admin(390);
  await page.goto(`${svc.url}/admin/payouts`);
  expect(await page.locator(`#payouts tr[data-id="${payouts.ann}"] input[name=ids]`).count()).toBe(1);
  await screenshot(page, 'payouts-bulk-settle-list-390');
  await page.goto(`${svc.url}/admin/payouts/bulk?ids=${payouts.ann}&ids=${payouts.ben}&ids=${payouts.cy}`);
  expect(await page.textContent('h1')).toBe('Mark 2 payouts paid (40.00 EUR + 72.00 USD)');
  await screenshot(page, 'payouts-bulk-settle-confirm-390');
  await context.close();
}, 60_000);

test('tick payouts paid by hand, mark them paid with a reference: all or nothing, one email each', async () => {
  const { context, page } = await admin(1366);
  await page.goto(`${svc.url}/admin/payouts`);
  // by hand and Wise can be ticked; PayPal (its API answers) cannot
  for (const key of ['ann', 'ben', 'dee'] as const) expect(await page.locator(`#payouts tr[data-id="${payouts[key]}"] input[name=ids]`).count()).toBe(1);
  expect(await page.locator(`#payouts tr[data-id="${payouts.cy}"] input[name=ids]`).count()).toBe(0);
  expect((await statusOf(payouts.cy)).status).toBe('processing');

  for (const key of ['ann', 'ben', 'dee'] as const) await tick(page, payouts[key]);
  expect(await page.textContent('[data-bulk-count]')).toBe('3 selected');
  await page.click('[data-bulk-bar] button:has-text("Mark paid…")');
  expect(await page.textContent('h1')).toBe('Mark 3 payouts paid (40.00 EUR + 81.00 USD)');
  expect(await page.textContent('.confirm-body')).toContain('Use this once the money has reached 3 partners.');
  const totals = await page.locator('#bulk-totals tbody tr').evaluateAll((rows) => rows.map((r) => Array.from(r.querySelectorAll('td')).map((td) => td.textContent!.trim())));
  expect(totals).toEqual([
    ['EUR', '1', '40.00 EUR'],
    ['USD', '2', '81.00 USD'],
  ]);
  await screenshot(page, 'payouts-bulk-settle-confirm-1366');

  // a reference too long: a 400 naming the field, nothing paid
  await page.fill('#bulk-reference', 'x'.repeat(300));
  await page.click('button:has-text("Mark 3 payouts paid")');
  expect(await page.textContent('#bulk-reference-error')).toBe('at most 255 characters');
  expect((await statusOf(payouts.ann)).status).toBe('pending');

  // Dee is settled elsewhere meanwhile: nothing is marked paid, the page asks again without Dee
  expect((await svc.api('POST', `/v1/payouts/${payouts.dee}/mark-paid`, { body: { reference: 'cash' } })).status).toBe(200);
  await page.fill('#bulk-reference', 'WISE-BATCH-7');
  await page.click('button:has-text("Mark 3 payouts paid")');
  expect(await page.textContent('.confirm-body .notice.error')).toContain('Some ticked payouts changed since this page was drawn');
  expect((await statusOf(payouts.ann)).status).toBe('pending');
  expect((await statusOf(payouts.ben)).status).toBe('pending');
  expect(await page.textContent('h1')).toBe('Mark 2 payouts paid (40.00 EUR + 72.00 USD)');
  expect(await page.textContent('#bulk-skipped')).toContain('1 ticked payout is skipped: no longer pending.');
  expect(await page.inputValue('#bulk-reference')).toBe('WISE-BATCH-7');
  await screenshot(page, 'payouts-bulk-settle-changed-1366');

  await page.click('button:has-text("Mark 2 payouts paid (40.00 EUR + 72.00 USD)")');
  expect(await page.textContent('.notice.ok')).toBe('Marked 2 payouts paid.');
  for (const key of ['ann', 'ben'] as const) {
    expect({ ...(await statusOf(payouts[key])) }).toEqual({ status: 'paid', provider_reference: 'WISE-BATCH-7', settled_by: `admin:${ADMIN}` });
    const events = await svc.sql`select data from webhook_events where type = 'payout.paid' and data ->> 'payoutId' = ${payouts[key]}`;
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toMatchObject({ providerReference: 'WISE-BATCH-7' });
  }
  await svc.deliverEmails();
  const sent = await svc.sql`select data ->> 'payoutId' as id from email_outbox where template = 'payout_sent' order by 1`;
  expect(sent.map((r) => r.id).sort()).toEqual([payouts.ann, payouts.ben, payouts.dee].sort());
  await screenshot(page, 'payouts-bulk-settle-done-1366');

  // a forged post of a PayPal payout (its rail answers) settles nothing
  const csrf = (await page.locator('form[method=post] input[name=_csrf]').first().getAttribute('value'))!;
  const forged = await postForm(page, '/admin/payouts/mark-paid', { _csrf: csrf, confirmed: '1', ids: payouts.cy, reference: 'forged' });
  expect(forged.status).toBe(409);
  expect(forged.text).toContain('None of the ticked payouts can be marked paid here.');
  expect((await statusOf(payouts.cy)).status).toBe('processing');
  await context.close();
}, 120_000);
