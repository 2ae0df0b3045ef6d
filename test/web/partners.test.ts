// The admin partners list and partner page in a real browser, on data built over the API: the
// list's numbers equal what the API says, every sortable column sorts, the pager counts, search and
// filters survive into the CSV export, the edit form changes the row (or shows why not and changes
// nothing), the referred customers add up, and revoking (one or many) waits for its confirmation.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { newId } from '../../src/lib/ids';
import { campaign, click, identify } from '../support/chain';
import { startService, type TestService } from '../support/service';
import { invitePartner, launchBrowser, postForm, screenshot } from './browser';

setDefaultTimeout(30_000);

const ADMIN = 'boss@example.com';
const LAPTOP = { width: 1366, height: 900 };
const PHONE = { width: 390, height: 844 };
const LONG_NAME = 'Ada Lovelace-Byron, Countess of Lovelace and Ockham Park Affiliates';

let svc: TestService;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let usd: string;
let eur: string;
let ada: string;
let bob: string;
let cy: string;
let grace: string;
let mallory: string;

/** A referred customer pays: a click on the partner's link, identify, the event. Answers the event id. */
async function sale(partnerId: string, campaignId: string, userId: string, amount: number, currency = 'USD'): Promise<string> {
  const { clickId } = await click(svc, campaignId, partnerId);
  await identify(svc, userId, [clickId]);
  const res = await svc.api('POST', '/v1/events', { body: { userId, type: 'invoice_paid', amount, currency } });
  expect(res.status).toBe(201);
  return res.body.id;
}

/** The same customer pays again (the referral is sticky): answers the event id. */
async function renewal(userId: string, amount: number, currency = 'USD'): Promise<string> {
  const res = await svc.api('POST', '/v1/events', { body: { userId, type: 'invoice_paid', amount, currency } });
  expect(res.status).toBe(201);
  return res.body.id;
}

async function commissionOf(eventId: string): Promise<string> {
  const [row] = await svc.sql`select id from commissions where event_id = ${eventId}`;
  return row!.id;
}

/** Cells of the partners table, row by row, keyed by column header. */
async function tableRows(p: Page): Promise<Record<string, string>[]> {
  return p.evaluate(() => {
    const heads = Array.from(document.querySelectorAll('#partners thead th')).map((th) => th.textContent!.replace(/[↑↓]/g, '').trim());
    return Array.from(document.querySelectorAll('#partners tbody tr')).map((tr) => {
      const out: Record<string, string> = { id: tr.getAttribute('data-id')! };
      Array.from(tr.children).forEach((td, i) => {
        if (heads[i]) out[heads[i]!] = td.textContent!.trim();
      });
      return out;
    });
  });
}

const minor = (money: string) => {
  if (money === '–') return null;
  const [amount] = money.split(' ');
  return BigInt(amount!.replace(/[,.]/g, ''));
};
const num = (text: string) => (text === '–' ? null : Number(text.replace(/[,%]/g, '')));

beforeAll(async () => {
  [svc, browser] = await Promise.all([startService({ ADMIN_EMAILS: ADMIN }), launchBrowser()]);
  usd = await campaign(svc, { name: 'Pro plan', currency: 'USD', holdbackDays: 30, rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 20 }] });
  eur = await campaign(svc, { name: 'Europe', currency: 'EUR', rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 10 }] });
  const active = async (email: string, name: string) => {
    const res = await svc.api('POST', '/v1/partners', { body: { email, name, sendInvite: false, campaignIds: [usd, eur] } });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  ada = await active('ada@example.com', LONG_NAME);
  bob = await active('bob@example.com', 'Bob Builder');
  cy = await active('cy@example.com', 'Cy Young');
  grace = await invitePartner(svc, { email: 'grace@example.com', name: 'Grace Hopper', campaignIds: [usd] });
  mallory = await active('mallory@example.com', 'Mallory');

  // Ada: three customers (one pays twice, one is refunded), an EUR sale, and clicks without a sale
  await sale(ada, usd, 'cust-a1', 10000);
  await renewal('cust-a1', 10000);
  await sale(ada, usd, 'cust-a2', 4999);
  const refunded = await sale(ada, usd, 'cust-a3', 20000);
  expect((await svc.api('POST', `/v1/commissions/${await commissionOf(refunded)}/reverse`, { body: { reason: 'refund' } })).status).toBe(200);
  await sale(ada, eur, 'cust-a4', 5000, 'EUR');
  await click(svc, usd, ada);
  await click(svc, usd, ada);
  // Bob: one big sale, approved; Cy: clicks only
  const big = await sale(bob, usd, 'cust-b1', 123456);
  expect((await svc.api('POST', `/v1/commissions/${await commissionOf(big)}/approve`)).status).toBe(200);
  for (let i = 0; i < 3; i++) await click(svc, usd, cy);
  // Mallory is revoked after a sale
  await sale(mallory, usd, 'cust-m1', 3000);
  expect((await svc.api('POST', `/v1/partners/${mallory}/revoke`, { body: { reason: 'Fake traffic' } })).status).toBe(200);
  // an old click of Ada's, 40 days ago: counted in all time, not in the last 30 days
  const [link] = await svc.sql`select id, campaign_id from links where partner_id = ${ada} limit 1`;
  await svc.sql`insert into clicks (id, link_id, partner_id, campaign_id) values (${newId('click', Date.now() - 40 * 86_400_000)}, ${link!.id}, ${ada}, ${link!.campaign_id})`;

  context = await browser.newContext({ viewport: LAPTOP });
  page = await context.newPage();
  await page.goto(`${svc.url}/admin/sign-in`);
  await page.fill('input[name=email]', ADMIN);
  await page.click('button[type=submit]');
  await page.waitForSelector('.notice.ok');
  await page.goto(await svc.mail.magicLink(ADMIN));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

describe('the list', () => {
  test("a partner's numbers equal what the API says (all time, USD), and the range leaves out older clicks", async () => {
    await page.goto(`${svc.url}/admin/partners?range=all`);
    const row = (await tableRows(page)).find((r) => r.id === ada)!;
    // conversions and revenue: the events attributed to Ada, as her own key sees them
    const key = await svc.partnerKey(ada);
    const events = (await svc.api('GET', '/v1/events?limit=200', { key })).body.events as { userId: string; amount: number | null; currency: string | null }[];
    const revenue = events.filter((e) => e.currency === 'USD').reduce((a, e) => a + BigInt(e.amount ?? 0), 0n);
    const commissions = (await svc.api('GET', `/v1/commissions?partnerId=${ada}&limit=200`)).body.commissions as { amount: string; currency: string; status: string }[];
    const earned = commissions.filter((c) => c.currency === 'USD' && c.status !== 'reversed').reduce((a, c) => a + BigInt(c.amount.replace('.', '')), 0n);
    const [{ n: clicks }] = (await svc.sql`select count(*)::int as n from clicks where partner_id = ${ada}`) as unknown as [{ n: number }];
    expect(num(row.Clicks!)).toBe(clicks);
    expect(clicks).toBe(7); // 4 sales through a click, 2 clicks without a sale, 1 old click
    // conversions are customers (first sales): cust-a1's renewal is revenue, not a conversion (docs/analytics.md)
    expect(num(row.Conversions!)).toBe(new Set(events.map((e) => e.userId)).size);
    expect(events.length).toBe(5);
    expect(num(row.Conversions!)).toBe(4);
    expect(minor(row.Revenue!)).toBe(revenue);
    expect(row.Revenue).toBe('449.99 USD');
    expect(minor(row.Commissions!)).toBe(earned);
    expect(row.Commissions).toBe('50.00 USD'); // 20 + 20 + 10 (the refunded 40 is left out)
    expect(row.EPC).toBe('7.14 USD'); // 50.00 / 7
    expect(row.Rate).toBe('57.1%'); // 4 of 7 clicks became customers
    expect(row.Status).toBe('Active');

    // the last 30 days leave out the old click
    await page.goto(`${svc.url}/admin/partners`);
    expect(await page.inputValue('#range-key')).toBe('30d');
    const recent = (await tableRows(page)).find((r) => r.id === ada)!;
    expect(num(recent.Clicks!)).toBe(6);
    expect(recent.Commissions).toBe('50.00 USD');

    // EUR is shown when chosen, never added to USD
    await page.selectOption('select[name=currency]', 'EUR');
    await page.click('form[role=search] button');
    const inEur = (await tableRows(page)).find((r) => r.id === ada)!;
    expect(inEur.Revenue).toBe('50.00 EUR');
    expect(inEur.Commissions).toBe('5.00 EUR');
    expect(await page.textContent('#money-note')).toContain('in EUR');
    await screenshot(page, 'admin-partners-list');
  });

  test('every sortable column orders the rows, both ways', async () => {
    const rank: Record<string, number> = { Active: 0, Invited: 1, Revoked: 2 };
    const columns: { key: string; head: string; value: (r: Record<string, string>) => number | string | bigint | null }[] = [
      { key: 'name', head: 'Name', value: (r) => r.Name!.toLowerCase() },
      { key: 'status', head: 'Status', value: (r) => rank[r.Status!]! },
      { key: 'clicks', head: 'Clicks', value: (r) => num(r.Clicks!) },
      { key: 'conversions', head: 'Conversions', value: (r) => num(r.Conversions!) },
      { key: 'rate', head: 'Rate', value: (r) => num(r.Rate!) },
      { key: 'revenue', head: 'Revenue', value: (r) => minor(r.Revenue!) },
      { key: 'commissions', head: 'Commissions', value: (r) => minor(r.Commissions!) },
      { key: 'epc', head: 'EPC', value: (r) => minor(r.EPC!) },
      { key: 'created', head: 'Created', value: (r) => r.Created! },
    ];
    for (const col of columns) {
      for (const dir of ['desc', 'asc'] as const) {
        await page.goto(`${svc.url}/admin/partners?range=all&sort=${col.key}&dir=${dir}`);
        expect(await page.getAttribute(`#partners th[aria-sort] a`, 'href')).toContain(`sort=${col.key}`);
        expect(await page.getAttribute('#partners th[aria-sort]', 'aria-sort')).toBe(dir === 'desc' ? 'descending' : 'ascending');
        const values = (await tableRows(page)).map(col.value);
        // empty values (no clicks: no rate, no EPC) come last either way
        const present = values.filter((v) => v !== null);
        expect(values.slice(present.length).every((v) => v === null)).toBe(true);
        const sorted = [...present].sort((a, b) => (a! < b! ? -1 : a! > b! ? 1 : 0));
        if (dir === 'desc') sorted.reverse();
        expect({ column: col.key, dir, values: present }).toEqual({ column: col.key, dir, values: sorted });
      }
    }
    // clicking a header sorts by it, descending first, then flips
    await page.goto(`${svc.url}/admin/partners?range=all`);
    await page.click('#partners th a:has-text("Revenue")');
    expect(new URL(page.url()).searchParams.get('sort')).toBe('revenue');
    expect((await tableRows(page))[0]!.id).toBe(bob);
    await page.click('#partners th a:has-text("Revenue")');
    expect(new URL(page.url()).searchParams.get('dir')).toBe('asc');
    // a sort key that is not a column falls back to newest first, no error
    const res = await page.goto(`${svc.url}/admin/partners?sort=email;drop&dir=sideways&page=x`);
    expect(res!.status()).toBe(200);
    expect((await tableRows(page))[0]!.id).toBe(mallory);
  });

  test('row click opens the partner; the "⋯" menu holds the actions', async () => {
    await page.goto(`${svc.url}/admin/partners?range=all`);
    // a click anywhere on the row (here on its clicks number) lands on the name's link, which covers the row
    const box = (await page.locator(`#partners tr[data-id="${bob}"] td[data-label="Clicks"]`).boundingBox())!;
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    await page.waitForURL(/\/admin\/partners\/ptn_/);
    expect(new URL(page.url()).pathname).toBe(`/admin/partners/${bob}`);
    expect(new URL(page.url()).searchParams.get('range')).toBe('all');
    await page.goto(`${svc.url}/admin/partners`);
    await page.click(`#partners tr[data-id="${grace}"] button.more`);
    const menu = page.locator('[popover]:popover-open');
    expect(await menu.locator('button:has-text("Send invite again")').isVisible()).toBe(true);
    expect(await menu.locator('a:has-text("Revoke…")').isVisible()).toBe(true);
    await screenshot(page, 'admin-partners-menu');
    await page.keyboard.press('Escape');
    // a revoked partner's menu offers reinstating instead
    await page.click(`#partners tr[data-id="${mallory}"] button.more`);
    expect(await page.locator('[popover]:popover-open button:has-text("Reinstate")').isVisible()).toBe(true);
    await page.keyboard.press('Escape');
  });

  test('search and status filter; Export CSV keeps them and its rows equal the list', async () => {
    await page.goto(`${svc.url}/admin/partners?range=all`);
    await page.fill('input[name=q]', 'example.com');
    await page.selectOption('select[name=status]', 'active');
    await page.click('form[role=search] button');
    const url = new URL(page.url());
    expect(url.searchParams.get('q')).toBe('example.com');
    expect(url.searchParams.get('status')).toBe('active');
    expect(url.searchParams.get('range')).toBe('all');
    const rows = await tableRows(page);
    expect(rows.map((r) => r.id).sort()).toEqual([ada, bob, cy].sort());
    const exportHref = await page.getAttribute('#export', 'href');
    expect(exportHref).toContain('status=active');
    expect(exportHref).toContain('q=example.com');
    const res = await context.request.get(`${svc.url}${exportHref}`);
    expect(res.status()).toBe(200);
    expect(res.headers()['content-type']).toBe('text/csv; charset=utf-8');
    const lines = (await res.text()).trim().split('\r\n');
    expect(lines[0]).toBe(
      'id,name,email,status,createdAt,activatedAt,revokedAt,billingConnectAccountId,rangeStart,rangeEnd,clicks,filteredClicks,convertedClicks,conversions,currency,revenue,commissions',
    );
    const csv = lines.slice(1).map((l) => l.match(/("([^"]|"")*"|[^,]*)(,|$)/g)!.map((c) => c.replace(/,$/, '').replace(/^"|"$/g, '').replace(/""/g, '"')));
    expect(csv.map((c) => c[0])).toEqual(rows.map((r) => r.id));
    for (const [i, r] of rows.entries()) {
      const c = csv[i]!;
      expect(c[3]).toBe('active');
      expect(Number(c[10])).toBe(num(r.Clicks!)!);
      expect(Number(c[13])).toBe(num(r.Conversions!)!);
      expect(c[14]).toBe('USD');
      expect(`${Number(c[15]).toLocaleString('en-US', { minimumFractionDigits: 2 })} USD`).toBe(r.Revenue!);
      expect(`${Number(c[16]).toLocaleString('en-US', { minimumFractionDigits: 2 })} USD`).toBe(r.Commissions!);
    }
    expect(csv.find((c) => c[0] === ada)![15]).toBe('449.99');
    // no match: the empty state offers to clear the filters
    await page.fill('input[name=q]', 'nobody-like-this');
    await page.click('form[role=search] button');
    expect(await page.locator('#partners').count()).toBe(0);
    expect(await page.textContent('.empty-state .empty-title')).toBe('No partner matches');
    await page.click('.empty-state a:has-text("Clear filters")');
    expect((await tableRows(page)).length).toBe(5);
  });

  test('the pager: "1–50 of N", Next and Previous keep the filters', async () => {
    for (let i = 0; i < 50; i++) {
      const res = await svc.api('POST', '/v1/partners', { body: { email: `bulk-${String(i).padStart(2, '0')}@example.org`, name: `Bulk ${String(i).padStart(2, '0')}`, sendInvite: false } });
      expect(res.status).toBe(201);
    }
    await page.goto(`${svc.url}/admin/partners?sort=name&dir=asc`);
    expect(await page.textContent('.pager .range-count')).toBe('1–50 of 55');
    expect(await page.locator('#partners tbody tr').count()).toBe(50);
    await page.click('.pager a[rel=next]');
    expect(await page.textContent('.pager .range-count')).toBe('51–55 of 55');
    expect(new URL(page.url()).searchParams.get('sort')).toBe('name');
    expect(await page.locator('#partners tbody tr').count()).toBe(5);
    await page.click('.pager a[rel=prev]');
    expect(await page.textContent('.pager .range-count')).toBe('1–50 of 55');
    // a page past the end says so, no error
    const res = await page.goto(`${svc.url}/admin/partners?page=9`);
    expect(res!.status()).toBe(200);
    expect(await page.textContent('.empty-state .empty-title')).toBe('No partners on this page');
    // search narrows the count
    await page.goto(`${svc.url}/admin/partners?q=example.org`);
    expect(await page.textContent('.pager .range-count')).toBe('1–50 of 50');
  });
});

describe('bulk actions', () => {
  test('bulk revoke asks for the reason and the typed phrase; nothing is revoked before', async () => {
    await page.goto(`${svc.url}/admin/partners?q=bulk-0`);
    // the bar stays hidden until a row is ticked
    expect(await page.isVisible('#bulk-bar')).toBe(false);
    const ids = (await tableRows(page)).slice(0, 3).map((r) => r.id!);
    for (const id of ids) await page.check(`#partners tr[data-id="${id}"] input[name=ids]`);
    expect(await page.textContent('#bulk-bar [data-bulk-count]')).toBe('3 selected');
    await screenshot(page, 'admin-partners-bulk-bar');
    await page.click('#bulk-bar button:has-text("Revoke…")');
    expect(await page.textContent('h1')).toBe('Revoke 3 partners');
    expect(await page.locator('#bulk-targets li').count()).toBe(3);
    expect(await page.textContent('label[for=f-phrase]')).toBe('Type REVOKE 3 to confirm');
    const stillActive = async () => (await svc.sql`select count(*)::int as n from partners where id = any(${ids}) and revoked_at is null`)[0]!.n;
    expect(await stillActive()).toBe(3);

    // a wrong phrase: refused, nothing revoked
    await page.fill('input[name=reason]', 'Program closed for this region');
    await page.fill('input[name=phrase]', 'revoke');
    await page.click('button:has-text("Revoke 3 partners")');
    expect(await page.textContent('#f-phrase-error')).toBe('type REVOKE 3 to confirm');
    expect(await stillActive()).toBe(3);
    // a post without the confirmation answers the confirm page again
    const unconfirmed = await postForm(page, '/admin/partners/bulk-revoke', { _csrf: await page.inputValue('input[name=_csrf]'), ids: ids[0]!, reason: 'x', phrase: 'REVOKE 1' });
    expect(unconfirmed.status).toBe(200);
    expect(unconfirmed.text).toContain('Type REVOKE 1 to confirm');
    expect(await stillActive()).toBe(3);
    await screenshot(page, 'admin-partners-bulk-revoke');

    await page.fill('input[name=phrase]', 'REVOKE 3');
    await page.click('button:has-text("Revoke 3 partners")');
    expect(await page.textContent('.notice.ok')).toBe('Revoked 3 partners: their sessions ended and their links stopped recording clicks.');
    expect(new URL(page.url()).searchParams.get('q')).toBe('bulk-0');
    expect(await stillActive()).toBe(0);
    const reasons = await svc.sql`select distinct revoke_reason from partners where id = any(${ids})`;
    expect(reasons.map((r) => r.revoke_reason)).toEqual(['Program closed for this region']);
  });

  test('bulk "Send invite again" mails the invited partners and skips the others', async () => {
    await page.goto(`${svc.url}/admin/partners?q=example.com`);
    const before = svc.mail.messages.length;
    await page.check(`#partners tr[data-id="${grace}"] input[name=ids]`);
    await page.check(`#partners tr[data-id="${bob}"] input[name=ids]`);
    await page.click('#bulk-bar button:has-text("Send invite again")');
    expect(await page.textContent('.notice.ok')).toBe('Invite sent to 1 partner. 1 partner skipped: only invited partners who have not signed in get one.');
    await svc.mail.magicLink('grace@example.com', (m) => svc.mail.messages.indexOf(m) >= before);
  });

  test('select all ticks every row of the page', async () => {
    await page.goto(`${svc.url}/admin/partners?q=bulk-1`);
    await page.check('#partners thead input[data-select-all]');
    expect(await page.textContent('#bulk-bar [data-bulk-count]')).toBe('10 selected');
    await page.uncheck('#partners thead input[data-select-all]');
    expect(await page.isVisible('#bulk-bar')).toBe(false);
  });
});

describe('the list: every status and filtered clicks (issue 25)', () => {
  test('the status filter offers every status the list shows; filtered clicks show apart, never in Clicks', async () => {
    await page.goto(`${svc.url}/admin/partners?range=all`);
    const options = await page.locator('select[name=status] option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
    expect(options).toEqual(['', 'applied', 'invited', 'active', 'declined', 'revoked']);
    await page.goto(`${svc.url}/admin/partners?range=all&status=invited`);
    expect((await tableRows(page)).map((r) => r.id)).toContain(grace);
    expect((await page.goto(`${svc.url}/admin/partners?range=all&status=declined`))!.status()).toBe(200);
    // one of Cy's three clicks was a bot's
    const [bot] = await svc.sql`select id from clicks where partner_id = ${cy} order by id limit 1`;
    await svc.sql`update clicks set uncredited_reason = 'bot_click' where id = ${bot!.id}`;
    try {
      await page.goto(`${svc.url}/admin/partners?range=all&q=cy%40example.com`);
      const row = page.locator(`#partners tr[data-id="${cy}"] td[data-label="Clicks"]`);
      expect(await row.locator('span').first().textContent()).toBe('2');
      expect(await row.locator('.note.filtered').textContent()).toBe('+1 filtered');
      await screenshot(page, 'admin-partners-filtered-1366');
      const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, storageState: await context.storageState() });
      const p = await phone.newPage();
      await p.goto(`${svc.url}/admin/partners?range=all&q=cy%40example.com`);
      expect(await p.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      await screenshot(p, 'admin-partners-filtered-390');
      await phone.close();
      // the CSV counts them apart too, beside the converted clicks (docs/analytics.md): the same
      // numbers as the database, partner by partner
      const res = await context.request.get(`${svc.url}/admin/partners.csv?range=all`);
      const [head, ...lines] = (await res.text()).trim().split('\r\n');
      const names = head!.split(',');
      const split = (l: string) => l.match(/("([^"]|"")*"|[^,]*)(,|$)/g)!.map((c) => c.replace(/,$/, '').replace(/^"|"$/g, '').replace(/""/g, '"'));
      const byId = new Map(lines.map(split).map((cells) => [cells[0]!, Object.fromEntries(names.map((h, i) => [h, cells[i]]))]));
      expect({ clicks: byId.get(cy)!.clicks, filtered: byId.get(cy)!.filteredClicks }).toEqual({ clicks: '2', filtered: '1' });
      const touched = await svc.sql`select partner_id, count(distinct click_id)::int as n from referral_touches where click_id is not null group by partner_id`;
      expect(touched.find((t) => t.partner_id === ada)?.n ?? 0).toBeGreaterThan(0);
      for (const [id, row] of byId) {
        expect({ id, converted: row.convertedClicks }).toEqual({ id, converted: String(touched.find((t) => t.partner_id === id)?.n ?? 0) });
        expect(Number(row.convertedClicks)).toBeLessThanOrEqual(Number(row.clicks));
      }
      await page.goto(`${svc.url}/admin/partners/${cy}?range=all`);
      expect(await page.locator('#kpis .kpi').first().locator('.kpi-note').textContent()).toBe('+1 filtered');
    } finally {
      await svc.sql`update clicks set uncredited_reason = null where id = ${bot!.id}`;
    }
  });
});

describe('the partner page', () => {
  test('totals, per-link numbers and referred customers agree with the API', async () => {
    await page.goto(`${svc.url}/admin/partners/${ada}?range=all`);
    expect(await page.textContent('#partner-status')).toBe('Active');
    const kpis = await page.locator('#kpis .kpi .value').allTextContents();
    expect(kpis).toEqual(['7', '4', '57.1%', '449.99 USD', '50.00 USD', '7.14 USD']);
    // money by status per currency
    const usdRow = await page.locator('#money tr[data-currency=USD] td').allTextContents();
    expect(usdRow).toEqual(['USD', '449.99 USD', '50.00 USD', '0.00 USD', '0.00 USD', '40.00 USD']);
    const eurRow = await page.locator('#money tr[data-currency=EUR] td').allTextContents();
    expect(eurRow).toEqual(['EUR', '50.00 EUR', '5.00 EUR', '0.00 EUR', '0.00 EUR', '0.00 EUR']);

    // per link: clicks equal the clicks table, the sums equal the overall numbers
    const links = await page.evaluate(() =>
      Array.from(document.querySelectorAll('#links tbody tr')).map((tr) => ({
        slug: tr.getAttribute('data-slug')!,
        url: (tr.querySelector('input[data-link-url]') as HTMLInputElement).value,
        clicks: Number(tr.querySelector('td[data-label=Clicks]')!.textContent),
        commissions: tr.querySelector('td[data-label=Commissions]')!.textContent!,
      })),
    );
    const perLink = await svc.sql`select l.slug, count(c.id)::int as n from links l left join clicks c on c.link_id = l.id where l.partner_id = ${ada} group by l.slug`;
    expect(links.length).toBe(perLink.length);
    for (const l of links) {
      expect(l.clicks).toBe(perLink.find((r) => r.slug === l.slug)!.n);
      expect(l.url).toBe(`${svc.url}/r/${l.slug}`);
    }
    expect(links.reduce((a, l) => a + minor(l.commissions)!, 0n)).toBe(5000n);

    // referred customers: each with its lifetime revenue and commissions, and its state
    const customers = await page.evaluate(() =>
      Object.fromEntries(
        Array.from(document.querySelectorAll('#customers tbody tr')).map((tr) => [
          tr.getAttribute('data-user')!,
          {
            status: tr.querySelector('.badge')!.textContent,
            sales: tr.querySelector('td[data-label=Sales]')!.textContent,
            revenue: tr.querySelector('td[data-label=Revenue]')!.textContent,
            commissions: tr.querySelector('td[data-label=Commissions]')!.textContent,
          },
        ]),
      ),
    );
    expect(customers).toEqual({
      'cust-a1': { status: 'Active', sales: '2', revenue: '200.00 USD', commissions: '40.00 USD' },
      'cust-a2': { status: 'Active', sales: '1', revenue: '49.99 USD', commissions: '10.00 USD' },
      'cust-a3': { status: 'Reversed', sales: '1', revenue: '200.00 USD', commissions: '0.00 USD' },
      'cust-a4': { status: 'Active', sales: '1', revenue: '0.00 USD', commissions: '0.00 USD' },
    });
    // a customer's renewal is a sale, not a second conversion: the column says so
    expect(await page.locator('#customers thead th').allTextContents()).toEqual(['Customer', 'Status', 'First sale', 'Last sale', 'Sales', 'Revenue', 'Commissions']);
    // the same from the API: each customer's commissions
    const api = (await svc.api('GET', `/v1/commissions?partnerId=${ada}&limit=200`)).body.commissions as { userId: string; amount: string; currency: string; status: string }[];
    for (const [user, shown] of Object.entries(customers)) {
      const sum = api.filter((c) => c.userId === user && c.currency === 'USD' && c.status !== 'reversed').reduce((a, c) => a + BigInt(c.amount.replace('.', '')), 0n);
      expect(minor(shown.commissions)).toBe(sum);
    }
    // in EUR, the European customer's money shows
    await page.goto(`${svc.url}/admin/partners/${ada}?range=all&currency=EUR`);
    expect(await page.textContent('#customers tr[data-user="cust-a4"] td[data-label=Revenue]')).toBe('50.00 EUR');
    await screenshot(page, 'admin-partner-detail-numbers');
  });

  test('edit name, campaigns and Billing Connect account; bad input shows beside its field and changes nothing', async () => {
    await page.goto(`${svc.url}/admin/partners/${cy}`);
    const before = await svc.sql`select name, billing_connect_account_id from partners where id = ${cy}`;
    await page.fill('#edit-form input[name=name]', '   ');
    await page.fill('#edit-form input[name=billingConnectAccountId]', 'x'.repeat(256));
    await page.click('#edit-form button:has-text("Save changes")');
    expect(await page.textContent('#f-name-error')).toBe('required');
    expect(await page.textContent('#f-billingConnectAccountId-error')).toBe('at most 255 characters');
    expect(await svc.sql`select name, billing_connect_account_id from partners where id = ${cy}`).toEqual(before);
    expect((await svc.sql`select count(*)::int as n from partner_campaigns where partner_id = ${cy}`)[0]!.n).toBe(2);
    await screenshot(page, 'admin-partner-edit-errors');

    await page.fill('#edit-form input[name=name]', 'Cy Young Jr.');
    await page.fill('#edit-form input[name=billingConnectAccountId]', 'acct_1234567890');
    await page.uncheck(`#edit-form input[name=campaignIds][value="${eur}"]`);
    await page.click('#edit-form button:has-text("Save changes")');
    expect(await page.textContent('.notice.ok')).toBe('Changes saved.');
    expect(await page.textContent('h1')).toContain('Cy Young Jr.');
    const [row] = await svc.sql`select name, billing_connect_account_id from partners where id = ${cy}`;
    expect(row).toEqual({ name: 'Cy Young Jr.', billing_connect_account_id: 'acct_1234567890' });
    expect((await svc.sql`select campaign_id from partner_campaigns where partner_id = ${cy}`).map((r) => r.campaign_id)).toEqual([usd]);

    // an emptied account id clears it; a campaign id the form never offered is refused beside the campaigns
    await page.fill('#edit-form input[name=billingConnectAccountId]', '');
    await page.click('#edit-form button:has-text("Save changes")');
    expect((await svc.sql`select billing_connect_account_id from partners where id = ${cy}`)[0]!.billing_connect_account_id).toBeNull();
    const forged = await postForm(page, `/admin/partners/${cy}`, { _csrf: await page.inputValue('#edit-form input[name=_csrf]'), name: 'Forged', campaignsShown: '1', campaignIds: 'cmp_nothing' });
    expect(forged.status).toBe(400);
    expect(forged.text).toContain('unknown or archived campaign cmp_nothing');
    expect((await svc.sql`select name from partners where id = ${cy}`)[0]!.name).toBe('Cy Young Jr.');
  });

  test('revoke asks its reason in a dialog; the route refuses without the confirmation; reinstate', async () => {
    await page.goto(`${svc.url}/admin/partners/${bob}`);
    // a post without confirmed=1 revokes nothing: it answers the confirm page
    const csrf = await page.inputValue('input[name=_csrf]');
    const unconfirmed = await postForm(page, `/admin/partners/${bob}/revoke`, { _csrf: csrf, reason: 'Spam' });
    expect(unconfirmed.status).toBe(200);
    expect(unconfirmed.text).toContain('Revoke Bob Builder');
    expect((await svc.sql`select revoked_at from partners where id = ${bob}`)[0]!.revoked_at).toBeNull();

    await page.click('a:has-text("Revoke partner…")');
    const dialog = page.locator('dialog#revoke-dialog');
    expect(await dialog.isVisible()).toBe(true);
    expect(await dialog.locator('h2').textContent()).toBe('Revoke Bob Builder');
    // Cancel is focused first
    expect(await page.evaluate(() => document.activeElement?.textContent?.trim())).toBe('Cancel');
    await screenshot(page, 'admin-partner-revoke-dialog');
    // without a reason the browser holds the form back; the route refuses it too, and nothing changes
    await dialog.locator('button:has-text("Revoke Bob Builder")').click();
    expect(await dialog.isVisible()).toBe(true);
    const empty = await postForm(page, `/admin/partners/${bob}/revoke`, { _csrf: csrf, confirmed: '1', reason: '  ' });
    expect(empty.status).toBe(400);
    expect(empty.text).toContain('say why, the partner is shown this reason');
    expect((await svc.sql`select revoked_at from partners where id = ${bob}`)[0]!.revoked_at).toBeNull();
    await dialog.locator('input[name=reason]').fill('Spam traffic');
    await dialog.locator('button:has-text("Revoke Bob Builder")').click();
    expect(await page.textContent('#partner-status')).toBe('Revoked');
    expect(await page.textContent('.reason')).toBe('Spam traffic');
    expect((await svc.sql`select revoke_reason from partners where id = ${bob}`)[0]!.revoke_reason).toBe('Spam traffic');

    await page.click('button:has-text("Reinstate")');
    expect(await page.textContent('.notice.ok')).toBe('Partner reinstated.');
    expect((await svc.sql`select revoked_at from partners where id = ${bob}`)[0]!.revoked_at).toBeNull();
  });

  test('without script, the revoke link opens the confirm page', async () => {
    const noScript = await browser.newContext({ viewport: LAPTOP, javaScriptEnabled: false, storageState: await context.storageState() });
    const p = await noScript.newPage();
    await p.goto(`${svc.url}/admin/partners/${cy}`);
    await p.click('a:has-text("Revoke partner…")');
    expect(new URL(p.url()).pathname).toBe(`/admin/partners/${cy}/revoke`);
    expect(await p.textContent('h1')).toBe('Revoke Cy Young Jr.');
    await p.fill('input[name=reason]', 'Paused');
    await p.click('button:has-text("Revoke Cy Young Jr.")');
    expect(await p.textContent('#partner-status')).toBe('Revoked');
    await noScript.close();
    expect(await svc.api('POST', `/v1/partners/${cy}/reinstate`).then((r) => r.status)).toBe(200);
  });
});

describe('looks', () => {
  const pages = () => [`/admin/partners?range=all&q=example.com`, `/admin/partners/${ada}?range=all`, `/admin/partners/${ada}/revoke`];

  for (const size of [LAPTOP, PHONE]) {
    test(`list, partner page and confirm page at ${size.width} px: nothing overflows, money and badges on one line`, async () => {
      const phone = size.width < 500;
      const ctx = await browser.newContext({ viewport: size, isMobile: phone, hasTouch: phone, storageState: await context.storageState() });
      const p = await ctx.newPage();
      for (const path of pages()) {
        expect((await p.goto(`${svc.url}${path}`))!.status()).toBe(200);
        const name = path
          .replace(/\/ptn_[a-z0-9]+/, '-id')
          .replace(/[^a-z0-9]+/gi, '-')
          .replace(/^-|-$/g, '');
        await screenshot(p, `${name}-${size.width}`);
        const overflow = await p.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect({ path, overflow }).toEqual({ path, overflow: 0 });
        const wrapped = await p.evaluate(() =>
          Array.from(document.querySelectorAll('.badge, td.money, td.figure, td.date'))
            .filter((el) => {
              const r = document.createRange();
              r.selectNodeContents(el);
              return (
                new Set(
                  Array.from(r.getClientRects())
                    .filter((x) => x.width > 0)
                    .map((x) => Math.round(x.top)),
                ).size > 1
              );
            })
            .map((el) => el.textContent),
        );
        expect({ path, wrapped }).toEqual({ path, wrapped: [] });
        if (!phone) {
          // the History section's rows list each changed field on its own line: only its width counts
          const tables = await p.evaluate(() =>
            Array.from(document.querySelectorAll('.table-wrap')).map((w) => ({
              scrolls: w.scrollWidth > w.clientWidth + 1,
              history: w.closest('#history') !== null,
              tallest: Math.max(0, ...Array.from(w.querySelectorAll('tbody tr')).map((tr) => tr.getBoundingClientRect().height)),
            })),
          );
          for (const t of tables) expect({ path, ...t, oneLine: t.history || t.tallest <= 60 }).toEqual({ path, scrolls: false, history: t.history, tallest: t.tallest, oneLine: true });
        } else {
          const heads = await p.evaluate(() => Array.from(document.querySelectorAll('table.stack thead')).map((h) => h.getBoundingClientRect().height));
          for (const h of heads) expect(h).toBeLessThanOrEqual(1);
        }
      }
      // the long name ends in an ellipsis with the full name in title
      await p.goto(`${svc.url}/admin/partners?range=all&q=example.com`);
      const lead = p.locator(`#partners tr[data-id="${ada}"] td.lead a`);
      expect(await lead.getAttribute('title')).toBe(LONG_NAME);
      expect(await lead.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
      await ctx.close();
    });
  }
});
