// The portal's link builder and profile page in a real browser (issue 12): the address shown while
// typing is the one created, following it lands on the deep page with UTM and pp_click; without script
// the server shows it after "Preview"; per-link numbers equal the database's; profile edits reach the
// database and bad input shows field errors.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import { BROWSER_UA, campaign, clickStored } from '../support/chain';
import { startService, type TestService } from '../support/service';
import { launchBrowser, screenshot } from './browser';

setDefaultTimeout(30_000);

let svc: TestService;
let browser: Browser;
let page: Page;
let cmp: string;
let ann: string;

const DESTINATION = 'https://app.example.com/signup?plan=pro#top';

beforeAll(async () => {
  [svc, browser] = await Promise.all([startService(), launchBrowser()]);
  cmp = await campaign(svc, { name: 'Pro plan', destinationUrl: DESTINATION, rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 20 }] });
  const res = await svc.api('POST', '/v1/partners', { body: { email: 'ann@example.com', name: 'Ann Archer', campaignIds: [cmp] } });
  ann = res.body.id;
  const context = await browser.newContext({ viewport: { width: 1366, height: 900 } });
  page = await context.newPage();
  await page.goto(await svc.mail.magicLink('ann@example.com'));
  expect(new URL(page.url()).pathname).toBe('/portal');
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

async function linkRow(slug: string) {
  const [row] = await svc.sql`select id, destination_url from links where slug = ${slug}`;
  return row as { id: string; destination_url: string | null } | undefined;
}

describe('link builder', () => {
  test('the final URL shows as you type; the link created is that URL; following it lands there with UTM and pp_click', async () => {
    await page.goto(`${svc.url}/portal/links`);
    // nothing typed: the campaign's own page
    expect(await page.textContent('#final-url')).toBe(DESTINATION);
    await page.fill('#f-page', '/pricing/team');
    await page.fill('#f-utm_source', 'newsletter');
    await page.fill('#f-utm_medium', 'email');
    await page.fill('#f-utm_campaign', 'spring sale & more');
    await page.fill('#f-slug', 'ann-deep');
    const shown = await page.textContent('#final-url');
    expect(shown).toBe('https://app.example.com/pricing/team?utm_source=newsletter&utm_medium=email&utm_campaign=spring+sale+%26+more');
    expect(await page.textContent('#share-url')).toBe(`${svc.url}/r/ann-deep`);
    await screenshot(page, 'portal-link-builder-1366');

    await page.click('form.builder button[value="create"]');
    expect(await page.textContent('#created')).toContain(`${svc.url}/r/ann-deep`);
    expect(await page.textContent('#created')).toContain(shown!);
    const api = await svc.api('GET', `/v1/links?partnerId=${ann}`);
    const made = api.body.links.find((l: { slug: string }) => l.slug === 'ann-deep');
    expect(made.destinationUrl).toBe(shown);
    expect((await linkRow('ann-deep'))!.destination_url).toBe(shown!);

    const res = await fetch(`${svc.url}/r/ann-deep`, { redirect: 'manual' });
    const location = new URL(res.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe('https://app.example.com/pricing/team');
    expect(location.searchParams.get('utm_source')).toBe('newsletter');
    expect(location.searchParams.get('utm_medium')).toBe('email');
    expect(location.searchParams.get('utm_campaign')).toBe('spring sale & more');
    expect(location.searchParams.get('pp_click')).toMatch(/^clk_[0-9a-z]{26}$/);
    expect(res.headers.get('location')).toBe(`${shown}&pp_click=${location.searchParams.get('pp_click')}`);
  });

  test('UTM fields alone keep the campaign page (its query and fragment); a full address of the site works too', async () => {
    await page.goto(`${svc.url}/portal/links`);
    await page.fill('#f-utm_source', 'youtube');
    const shown = await page.textContent('#final-url');
    expect(shown).toBe('https://app.example.com/signup?plan=pro&utm_source=youtube#top');
    await page.fill('#f-page', 'https://app.example.com/blog/post-1');
    expect(await page.textContent('#final-url')).toBe('https://app.example.com/blog/post-1?utm_source=youtube');
    await page.fill('#f-page', '');
    await page.fill('#f-slug', 'ann-utm');
    await page.click('form.builder button[value="create"]');
    expect((await linkRow('ann-utm'))!.destination_url).toBe(shown!);
    const location = (await fetch(`${svc.url}/r/ann-utm`, { redirect: 'manual' })).headers.get('location')!;
    expect(location).toStartWith('https://app.example.com/signup?plan=pro&utm_source=youtube&pp_click=clk_');
    expect(location).toEndWith('#top');
  });

  test('a page of another site is refused beside the field, while typing and on submit; nothing is created', async () => {
    await page.goto(`${svc.url}/portal/links`);
    await page.fill('#f-page', 'https://evil.example/login');
    expect(await page.isVisible('#builder-problem')).toBe(true);
    expect(await page.textContent('#builder-problem')).toContain('app.example.com');
    await page.fill('#f-slug', 'ann-evil');
    await page.click('form.builder button[value="create"]');
    expect(await page.textContent('#f-page-error')).toContain("must be on the campaign's site, app.example.com");
    expect(await page.getAttribute('#f-page', 'aria-invalid')).toBe('true');
    expect(await page.inputValue('#f-page')).toBe('https://evil.example/login');
    expect(await linkRow('ann-evil')).toBeUndefined();
    await screenshot(page, 'portal-link-builder-error');
  });

  test('without script, "Preview" shows the final URL from the server, and creating stores that URL', async () => {
    const context = await browser.newContext({ viewport: { width: 1366, height: 900 }, javaScriptEnabled: false });
    await context.addCookies(await page.context().cookies());
    const plain = await context.newPage();
    await plain.goto(`${svc.url}/portal/links`);
    await plain.fill('#f-page', 'features');
    await plain.fill('#f-utm_source', 'blog');
    await plain.fill('#f-slug', 'ann-noscript');
    // no script: the output still shows the campaign page until the server is asked
    expect(await plain.textContent('#final-url')).toBe(DESTINATION);
    await plain.click('form.builder button[value="preview"]');
    const shown = await plain.textContent('#final-url');
    expect(shown).toBe('https://app.example.com/features?utm_source=blog');
    expect(await plain.textContent('#share-url')).toBe(`${svc.url}/r/ann-noscript`);
    expect(await linkRow('ann-noscript')).toBeUndefined(); // a preview creates nothing
    expect(await plain.inputValue('#f-utm_source')).toBe('blog');
    await plain.click('form.builder button[value="create"]');
    expect((await linkRow('ann-noscript'))!.destination_url).toBe(shown!);
    await context.close();
  });

  test('per-link stats: clicks, conversions, rate and earnings equal the database', async () => {
    // two visits through ann-deep, one of which pays 100.00 USD
    const visits = [];
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${svc.url}/r/ann-deep`, { redirect: 'manual', headers: { 'user-agent': BROWSER_UA } });
      visits.push(new URL(res.headers.get('location')!).searchParams.get('pp_click')!);
    }
    for (const id of visits) await clickStored(svc, id);
    await svc.api('POST', '/v1/identify', { key: await svc.publishableKey(), body: { userId: 'buyer', clickIds: [visits[1]] } });
    expect((await svc.api('POST', '/v1/events', { body: { userId: 'buyer', type: 'invoice_paid', amount: 10000, currency: 'USD' } })).status).toBe(201);

    await page.goto(`${svc.url}/portal/links`);
    const link = (await linkRow('ann-deep'))!;
    // clicks shown are credited clicks: the first test's follow (fetch's own user agent, filtered as a bot) is not one
    const [clicks] = await svc.sql`select count(*)::int as n from clicks where link_id = ${link.id} and uncredited_reason is null`;
    const row = page.locator('#links tr[data-slug="ann-deep"]');
    expect(await row.locator('[data-clicks]').textContent()).toBe(String(clicks!.n));
    expect(clicks!.n).toBe(2); // these two
    expect(await row.locator('[data-conversions]').textContent()).toBe('1');
    expect(await row.locator('td[data-label="Rate"]').textContent()).toBe('50.0%'); // one of the two clicks became a customer
    expect(await row.locator('[data-earnings]').textContent()).toBe('20.00 USD');
    expect(await page.textContent('#links tr[data-slug="ann-utm"] [data-earnings]')).toBe('–');
    // the home page shows the same numbers for its newest links
    await page.goto(`${svc.url}/portal`);
    expect(await page.textContent('#links tr[data-slug="ann-deep"] [data-earnings]')).toBe('20.00 USD');
    await page.goto(`${svc.url}/portal/links`);
    await screenshot(page, 'portal-links-1366');

    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    await context.addCookies(await page.context().cookies());
    const phone = await context.newPage();
    await phone.goto(`${svc.url}/portal/links`);
    expect(await phone.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await screenshot(phone, 'portal-links-390');
    await phone.goto(`${svc.url}/portal/profile`);
    expect(await phone.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await screenshot(phone, 'portal-profile-390');
    await context.close();
  });
});

describe('profile and payout details', () => {
  const partnerRow = async () =>
    (await svc.sql`select name, payout_email, billing_connect_account_id from partners where id = ${ann}`)[0] as {
      name: string;
      payout_email: string | null;
      billing_connect_account_id: string | null;
    };

  test('bad input shows field errors with a summary, keeps the values, and changes nothing', async () => {
    await page.goto(`${svc.url}/portal/profile`);
    await page.fill('#f-name', '   ');
    await page.fill('#f-payoutEmail', 'not-an-email');
    await page.fill('#f-billingConnectAccountId', 'acct 123');
    await page.click('form[action="/portal/profile"] button[type=submit]');
    expect(await page.textContent('#f-name-error')).toBeTruthy();
    expect(await page.textContent('#f-payoutEmail-error')).toBe('must be an email address, or empty');
    expect(await page.textContent('#f-billingConnectAccountId-error')).toContain('acct_');
    expect(await page.getAttribute('#f-payoutEmail', 'aria-invalid')).toBe('true');
    expect(await page.textContent('#error-summary')).toContain('3 fields need a fix');
    expect(await page.inputValue('#f-payoutEmail')).toBe('not-an-email');
    expect(await partnerRow()).toEqual({ name: 'Ann Archer', payout_email: null, billing_connect_account_id: null });
    await screenshot(page, 'portal-profile-errors-1366');
  });

  test('edits reach the database and the API record; the Connect account is set once, then only an admin changes it', async () => {
    await page.goto(`${svc.url}/portal/profile`);
    await page.fill('#f-name', 'Ann B. Archer');
    await page.fill('#f-payoutEmail', 'Payouts@Ann.Example');
    await page.fill('#f-billingConnectAccountId', 'acct_1AnnConnect');
    await page.click('form[action="/portal/profile"] button[type=submit]');
    expect(await page.textContent('.notice.ok')).toContain('saved');
    expect(await partnerRow()).toEqual({ name: 'Ann B. Archer', payout_email: 'payouts@ann.example', billing_connect_account_id: 'acct_1AnnConnect' });
    const record = await svc.api('GET', `/v1/partners/${ann}`);
    expect(record.body).toMatchObject({ name: 'Ann B. Archer', payoutEmail: 'payouts@ann.example', billingConnectAccountId: 'acct_1AnnConnect' });
    // set: shown read-only, and a forged post cannot change it
    expect(await page.getAttribute('#f-billingConnectAccountId', 'readonly')).not.toBeNull();
    await screenshot(page, 'portal-profile-1366');
    const csrf = await page.inputValue('form[action="/portal/profile"] input[name=_csrf]');
    const forged = await page.evaluate(
      async (body) => (await fetch('/portal/profile', { method: 'POST', body: new URLSearchParams(body), redirect: 'manual' })).status,
      { _csrf: csrf, name: 'Ann B. Archer', payoutEmail: '', billingConnectAccountId: 'acct_Thief' },
    );
    expect(forged).toBe(0); // a redirect (saved): the other fields may change
    expect(await partnerRow()).toEqual({ name: 'Ann B. Archer', payout_email: null, billing_connect_account_id: 'acct_1AnnConnect' });
    // an admin changes it over the API, and sets the payout email too
    const patched = await svc.api('PATCH', `/v1/partners/${ann}`, { body: { billingConnectAccountId: 'acct_2New', payoutEmail: 'Money@Ann.Example' } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ billingConnectAccountId: 'acct_2New', payoutEmail: 'money@ann.example' });
    expect((await svc.api('PATCH', `/v1/partners/${ann}`, { body: { payoutEmail: 'nope' } })).status).toBe(400);
    expect((await svc.api('PATCH', `/v1/partners/${ann}`, { body: { payoutEmail: null } })).body.payoutEmail).toBeNull();
  });
});
