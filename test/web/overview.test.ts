// The admin overview in a real browser: an empty program, the setup checklist ticking from real data
// (and dismissed for good), then a busy program whose KPI cards, comparisons, top partners and to-do
// counts must equal what the API (and, for clicks, the database) says, for several date ranges.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { sha256 } from '../../src/lib/crypto';
import { newId } from '../../src/lib/ids';
import { scaleDecimal } from '../../src/lib/money';
import { earningsPerClick } from '../../src/modules/reports/overview';
import { compare, comparePoints, parseRange } from '../../src/web/range';
import { formatMoney, formatRate } from '../../src/web/ui';
import { campaign, click, identify, partner } from '../support/chain';
import { eventually } from '../support/eventually';
import { click as clickAt, daysAgo } from '../support/fixtures';
import type { TestService } from '../support/service';
import { LOCAL_RECEIVERS, registerEndpoint } from '../support/webhooks';
import { ARTIFACTS, invitePartner, launchBrowser, startWithAdmin } from './browser';

setDefaultTimeout(60_000);

const ADMIN = 'boss@example.com';
const LAPTOP = { width: 1366, height: 900 };
const PHONE = { width: 390, height: 844 };

let svc: TestService;
let browser: Browser;
let admin: BrowserContext;
let page: Page;
let receiver: ReturnType<typeof Bun.serve>;

beforeAll(async () => {
  receiver = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('down', { status: 500 }) });
  ({ svc, browser, context: admin, page } = await startWithAdmin({ ADMIN_EMAILS: ADMIN, ...LOCAL_RECEIVERS }, ADMIN));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await svc?.stop();
  receiver?.stop(true);
});

async function shots(name: string) {
  for (const size of [LAPTOP, PHONE]) {
    await page.setViewportSize(size);
    await page.screenshot({ path: `${ARTIFACTS}overview-${name}-${size.width}.png`, fullPage: true });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect({ name, width: size.width, overflow }).toEqual({ name, width: size.width, overflow: 0 });
  }
  await page.setViewportSize(LAPTOP);
}

const doneText = () => page.textContent('#setup-count');
const stepDone = (key: string) => page.getAttribute(`#step-${key}`, 'data-done');

describe('an empty program', () => {
  test('looks intentional: the checklist and one empty state, no page of zeros', async () => {
    const res = await page.goto(`${svc.url}/admin`);
    expect(res!.status()).toBe(200);
    expect(await doneText()).toBe('0 of 6 done');
    expect(await page.textContent('.empty-state')).toContain('No activity yet');
    // its one action is the first step still to do
    expect(await page.getAttribute('.empty-state a', 'href')).toBe('/admin/campaigns');
    expect(await page.locator('#kpis').count()).toBe(0);
    expect(await page.locator('.chart').count()).toBe(0);
    // nothing to do: no to-do card either
    expect(await page.locator('#todo').count()).toBe(0);
    await shots('empty');
  });
});

describe('the setup checklist', () => {
  let campaignId: string;
  let pk: string;

  test('a campaign ticks step 1', async () => {
    campaignId = await campaign(svc, { name: 'Pro', rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 20 }] });
    await page.goto(`${svc.url}/admin`);
    expect(await doneText()).toBe('1 of 6 done');
    expect(await stepDone('campaign')).toBe('true');
    expect(await stepDone('key')).toBe('false');
    // the snippet is ready to copy, with a placeholder until a key exists
    expect(await page.inputValue('#snippet-browser')).toContain(`<script src="${svc.url}/client.js" data-key="pk_…"></script>`);
    expect(await page.inputValue('#snippet-browser')).toContain('partnerd.identify(user.id);');
    expect(await page.inputValue('#snippet-server')).toContain(`curl -X POST ${svc.url}/v1/events`);
  });

  test('"Create a publishable key for the snippet" fills the real key in, once', async () => {
    await page.click('button:has-text("Create a publishable key for the snippet")');
    const snippet = await page.inputValue('#snippet-browser');
    pk = /data-key="(pk_[A-Za-z0-9_-]+)"/.exec(snippet)![1]!;
    const [row] = await svc.sql`select kind, revoked_at from api_keys where key_hash = ${sha256(pk)}`;
    expect(row).toEqual({ kind: 'publishable', revoked_at: null });
    expect(await doneText()).toBe('2 of 6 done');
    expect(await page.locator('[data-copy="#snippet-browser"]').count()).toBe(1);
    // a later visit cannot show the key again (only its hash is stored)
    await page.goto(`${svc.url}/admin`);
    expect(await page.inputValue('#snippet-browser')).toContain('data-key="pk_…"');
    expect(await page.textContent('#step-snippet')).toContain('Replace pk_… with your publishable key');
  });

  test('a partner, a click and a test event tick their steps; the event shows up without a reload', async () => {
    const partnerId = await partner(svc, 'first@example.com', [campaignId]);
    await page.goto(`${svc.url}/admin`);
    expect(await doneText()).toBe('3 of 6 done');
    expect(await stepDone('partner')).toBe('true');

    const { clickId } = await click(svc, campaignId, partnerId);
    await page.goto(`${svc.url}/admin`);
    expect(await stepDone('click')).toBe('false');
    expect(await page.textContent('#latest-event')).toBe('No event received yet.');
    // the operator sends a test event from the server call; the line polls (htmx) and shows it
    const res = await svc.api('POST', '/v1/events', { body: { userId: 'test-user-1', type: 'signup' } });
    expect(res.status).toBe(201);
    await eventually(async () => expect(await page.textContent('#latest-event')).toContain('signup for test-user-1, no identity'), { timeout: 15_000, interval: 250 });
    // the polled line is a fragment; a poll whose session ended is told to stop (286), not sent to sign-in
    const fragment = await page.evaluate(async () => (await fetch('/admin/overview/latest-event', { headers: { 'hx-request': 'true' } })).text());
    expect(fragment).toStartWith('<p class="step-facts latest-event" id="latest-event"');
    expect((await fetch(`${svc.url}/admin/overview/latest-event`, { headers: { 'hx-request': 'true' }, redirect: 'manual' })).status).toBe(286);
    await page.reload();
    expect(await stepDone('click')).toBe('true');
    expect(await doneText()).toBe('4 of 6 done');

    // the snippet's identify call, with the key the checklist made
    expect((await svc.api('POST', '/v1/identify', { key: pk, body: { userId: 'test-user-1', clickIds: [clickId] } })).status).toBe(200);
    await page.reload();
    expect(await stepDone('snippet')).toBe('true');
    expect(await doneText()).toBe('5 of 6 done');
    // no provider configured nor heard from: the step leads to the providers on the settings page
    expect(await stepDone('billing')).toBe('false');
    expect(await page.textContent('#step-billing')).toContain('Stripe, Paddle Billing or Lemon Squeezy');
    expect(await page.getAttribute('#step-billing a[href^="/admin/settings"]', 'href')).toBe('/admin/settings#billing');
    await shots('setup');
  });

  test('dismissing hides it for good (stored), and it can be shown again', async () => {
    await page.click('#setup button:has-text("Dismiss")');
    expect(new URL(page.url()).pathname).toBe('/admin');
    expect(await page.locator('#setup').count()).toBe(0);
    const [row] = await svc.sql`select onboarding_dismissed_at from settings`;
    expect(row!.onboarding_dismissed_at).toBeInstanceOf(Date);
    // another browser profile (another session) does not see it either
    const other = await browser.newContext({ viewport: LAPTOP });
    await other.addCookies(await admin.cookies());
    const second = await other.newPage();
    await second.goto(`${svc.url}/admin`);
    expect(await second.locator('#setup').count()).toBe(0);
    await other.close();
    await page.click('button:has-text("Show the setup checklist")');
    expect(await doneText()).toBe('5 of 6 done');
    const [again] = await svc.sql`select onboarding_dismissed_at from settings`;
    expect(again!.onboarding_dismissed_at).toBeNull();
  });

  test('a billing provider heard from ticks the last step; a finished checklist goes away by itself', async () => {
    // what the provider's first customer event records (modules/billing)
    await svc.sql`insert into billing_customers (provider, customer_id, user_id) values ('stripe', 'cus_1', 'test-user-1')`;
    await page.goto(`${svc.url}/admin`);
    expect(await page.locator('#setup').count()).toBe(0);
    expect(await page.locator('button:has-text("Show the setup checklist")').count()).toBe(0);
  });
});

// ---------------------------------------------------------------------------------------------
// A busy program

type ApiEvent = { id: string; amount: number | null; currency: string | null; occurredAt: string; attribution: { status: string } };
type ApiCommission = { id: string; partnerId: string; eventId: string; amount: string; currency: string; status: string };

async function list<T>(path: string, key: string): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | null = null;
  do {
    const res: { status: number; body: any } = await svc.api('GET', `${path}${path.includes('?') ? '&' : '?'}limit=200${cursor ? `&cursor=${cursor}` : ''}`);
    expect(res.status).toBe(200);
    out.push(...res.body[key]);
    cursor = res.body.nextCursor;
  } while (cursor);
  return out;
}

type Period = { start: Date; end: Date };
const inside = (iso: string, p: Period) => Date.parse(iso) >= p.start.getTime() && Date.parse(iso) < p.end.getTime();
const minor = (amount: string) => scaleDecimal(amount, 2)!;

/** What the API says about a period (clicks, which no API lists, from the database). */
async function expected(p: Period) {
  const events = (await list<ApiEvent>('/v1/events', 'events')).filter((e) => e.attribution.status === 'attributed' && inside(e.occurredAt, p));
  const eventIds = new Set(events.map((e) => e.id));
  const commissions = (await list<ApiCommission>('/v1/commissions', 'commissions')).filter((c) => eventIds.has(c.eventId));
  const partners = (await list<{ id: string; createdAt: string }>('/v1/partners', 'partners')).filter((x) => inside(x.createdAt, p));
  const clickRows = await svc.sql<{ partner_id: string; n: number }[]>`
    select partner_id, count(*)::int as n from clicks where created_at >= ${p.start} and created_at < ${p.end} group by partner_id`;
  const clicksOf = new Map(clickRows.map((r) => [r.partner_id, r.n]));
  const earned = commissions.filter((c) => c.status !== 'reversed' && c.currency === 'USD');
  const byPartner = new Map<string, { clicks: number; events: Set<string>; revenue: bigint; commissions: bigint }>();
  const row = (id: string) => byPartner.get(id) ?? byPartner.set(id, { clicks: clicksOf.get(id) ?? 0, events: new Set(), revenue: 0n, commissions: 0n }).get(id)!;
  for (const id of clicksOf.keys()) row(id);
  const amountOf = new Map(events.map((e) => [e.id, e]));
  for (const c of commissions) {
    const r = row(c.partnerId);
    if (!r.events.has(c.eventId)) {
      r.events.add(c.eventId);
      const e = amountOf.get(c.eventId)!;
      if (e.currency === 'USD') r.revenue += BigInt(e.amount!);
    }
    if (c.status !== 'reversed' && c.currency === 'USD') r.commissions += minor(c.amount);
  }
  return {
    clicks: clickRows.reduce((a, r) => a + r.n, 0),
    conversions: events.length,
    revenue: events.filter((e) => e.currency === 'USD').reduce((a, e) => a + BigInt(e.amount!), 0n),
    commissions: earned.reduce((a, c) => a + minor(c.amount), 0n),
    eur: {
      revenue: events.filter((e) => e.currency === 'EUR').reduce((a, e) => a + BigInt(e.amount!), 0n),
      commissions: commissions.filter((c) => c.status !== 'reversed' && c.currency === 'EUR').reduce((a, c) => a + minor(c.amount), 0n),
    },
    newPartners: partners.length,
    leaders: [...byPartner.entries()]
      .map(([id, r]) => ({ id, clicks: r.clicks, conversions: r.events.size, revenue: r.revenue, commissions: r.commissions }))
      .sort((a, b) => (a.commissions !== b.commissions ? (b.commissions > a.commissions ? 1 : -1) : b.revenue !== a.revenue ? (b.revenue > a.revenue ? 1 : -1) : b.conversions - a.conversions || b.clicks - a.clicks || (a.id < b.id ? -1 : 1)))
      .slice(0, 10),
  };
}

const text = async (selector: string) => ((await page.textContent(selector)) ?? '').trim();

/** The page's cards, leaderboard and note equal the API's numbers for `query`'s range. */
async function checkRange(query: Record<string, string>) {
  const range = parseRange(query);
  const now = await expected({ start: range.start ?? new Date(0), end: range.end });
  const before = range.previous ? await expected(range.previous) : null;
  const vs = (c: { text: string }) => `${c.text} vs ${range.previousLabel}`;
  expect(await text('#kpi-clicks .value')).toBe(now.clicks.toLocaleString('en-US'));
  expect(await text('#kpi-conversions .value')).toBe(now.conversions.toLocaleString('en-US'));
  expect(await text('#kpi-rate .value')).toBe(formatRate(now.conversions, now.clicks));
  expect(await text('#kpi-revenue .value')).toBe(formatMoney(now.revenue, 'USD'));
  expect(await text('#kpi-commissions .value')).toBe(formatMoney(now.commissions, 'USD'));
  expect(await text('#kpi-partners .value')).toBe(String(now.newPartners));
  if (before) {
    expect(await text('#kpi-clicks .change')).toBe(vs(compare(now.clicks, before.clicks)));
    expect(await text('#kpi-conversions .change')).toBe(vs(compare(now.conversions, before.conversions)));
    expect(await text('#kpi-revenue .change')).toBe(vs(compare(now.revenue, before.revenue)));
    expect(await text('#kpi-commissions .change')).toBe(vs(compare(now.commissions, before.commissions)));
    expect(await text('#kpi-partners .change')).toBe(vs(compare(now.newPartners, before.newPartners)));
    if (before.clicks > 0) expect(await text('#kpi-rate .change')).toBe(vs(comparePoints((now.conversions * 10_000) / now.clicks, (before.conversions * 10_000) / before.clicks)));
  } else {
    expect(await page.locator('#kpis .change').count()).toBe(0);
  }
  // the chart's totals are the cards' totals
  expect(await text('#money-chart .legend')).toContain(`Revenue: ${formatMoney(now.revenue, 'USD')}`);
  expect(await text('#money-chart .legend')).toContain(`Commissions: ${formatMoney(now.commissions, 'USD')}`);
  if (now.eur.revenue > 0n) expect(await text('#money-note')).toContain(`${formatMoney(now.eur.revenue, 'EUR')} revenue and ${formatMoney(now.eur.commissions, 'EUR')} commissions`);
  const rows = await page.locator('#leaders tbody tr').evaluateAll((trs) =>
    trs.map((tr) => ({ id: tr.getAttribute('data-id'), cells: Array.from(tr.querySelectorAll('td')).map((td) => td.textContent!.trim()) })),
  );
  expect(rows).toEqual(
    now.leaders.map((l) => {
      const epc = earningsPerClick(l.commissions, l.clicks);
      return {
        id: l.id,
        cells: [expect.any(String), String(l.clicks), String(l.conversions), formatMoney(l.revenue, 'USD'), formatMoney(l.commissions, 'USD'), epc === null ? '–' : formatMoney(epc, 'USD')],
      };
    }) as never,
  );
  return { now, before };
}

describe('a busy program', () => {
  let pk: string;
  let usd: string;
  let eur: string;
  const ids: Record<string, string> = {};

  /** A referred customer pays `amount` cents; `at` backdates the click (and the sale a day after). */
  async function sale(partnerId: string, campaignId: string, userId: string, amount: number, currency: string, daysBack?: number): Promise<string> {
    let clickId: string;
    if (daysBack === undefined) ({ clickId } = await click(svc, campaignId, partnerId));
    else clickId = await clickAt(svc.sql, { partnerId, campaignId, at: daysAgo(daysBack) });
    expect((await svc.api('POST', '/v1/identify', { key: pk, body: { userId, clickIds: [clickId] } })).status).toBe(200);
    const body = { userId, type: 'invoice_paid', amount, currency, ...(daysBack === undefined ? {} : { occurredAt: daysAgo(daysBack - 1).toISOString() }) };
    const res = await svc.api('POST', '/v1/events', { body });
    expect(res.status).toBe(201);
    const [row] = await svc.sql`select id from commissions where event_id = ${res.body.id}`;
    return row!.id;
  }

  beforeAll(async () => {
    pk = await svc.publishableKey();
    usd = await campaign(svc, { name: 'Team plan', rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 20 }] });
    eur = await campaign(svc, { name: 'Europe', currency: 'EUR', rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 10 }] });
    for (const name of ['ada', 'ben', 'eve']) ids[name] = await partner(svc, `${name}@example.com`, [usd, eur]);
    // invited by email, not signed in yet: an invite pending
    ids.cy = await invitePartner(svc, { email: 'cy@example.com', name: 'Cy Invited', campaignIds: [usd] });
    // a partner who joined in the previous period
    const old = newId('partner', daysAgo(40));
    await svc.sql`insert into partners (id, email, name, activated_at) values (${old}, 'old@example.com', 'Old Timer', now())`;

    // this period
    await sale(ids.ada!, usd, 'cust-a1', 1_234_500, 'USD');
    const toPay = await sale(ids.ada!, usd, 'cust-a2', 4999, 'USD');
    const toReverse = await sale(ids.ada!, usd, 'cust-a3', 20000, 'USD');
    await sale(ids.ada!, usd, 'cust-a4', 7000, 'USD', 10);
    await sale(ids.ben!, usd, 'cust-b1', 9900, 'USD');
    await click(svc, usd, ids.ben!);
    await click(svc, usd, ids.cy!);
    await sale(ids.eve!, eur, 'cust-e1', 5000, 'EUR');
    expect((await svc.api('POST', `/v1/commissions/${toReverse}/reverse`, { body: { reason: 'Refunded' } })).status).toBe(200);
    expect((await svc.api('POST', `/v1/commissions/${toPay}/approve`)).status).toBe(200);
    expect((await svc.api('POST', '/v1/payouts/run')).status).toBe(200);
    // the previous period
    await sale(ids.ada!, usd, 'cust-p1', 10000, 'USD', 45);
    await sale(ids.ada!, usd, 'cust-p2', 30000, 'USD', 44);
    await clickAt(svc.sql, { partnerId: ids.ben!, campaignId: usd, at: daysAgo(50) });

    // a webhook endpoint whose latest delivery failed
    const { id } = await registerEndpoint(svc, `${receiver.url}hooks`, ['partner.created'], 'Billing');
    expect((await svc.api('POST', `/webhooks/${id}/test`)).status).toBeLessThan(300);
    await svc.deliverWebhooks();
  }, 120_000);

  test('the last 30 days: cards, comparisons and top partners equal the API', async () => {
    await page.goto(`${svc.url}/admin`);
    const { now, before } = await checkRange({});
    // the scenario is what the test meant it to be: both periods have clicks and sales
    expect(before!.clicks).toBe(3);
    expect(before!.conversions).toBe(2);
    expect(now.conversions).toBe(6);
    expect(await text('#kpi-partners .change')).toBe(`${compare(now.newPartners, 1).text} vs previous 30 days`);
    expect(await page.getAttribute('#kpi-commissions a', 'href')).toBe('/admin/commissions');
    expect(await page.getAttribute(`#leaders tr[data-id="${ids.ada}"] td.lead a`, 'href')).toBe(`/admin/partners/${ids.ada}`);
    await shots('busy');
  });

  test('the to-do counts equal the API', async () => {
    const payouts = await list<{ status: string }>('/v1/payouts?status=pending', 'payouts');
    const partners = await list<{ activatedAt: string | null; revokedAt: string | null }>('/v1/partners', 'partners');
    const accrued = await list<{ status: string }>('/v1/commissions?status=accrued', 'commissions');
    expect(payouts.length).toBe(1);
    expect(await text('#todo-payouts')).toBe(`${payouts.length} payout to confirm`);
    expect(await page.getAttribute('#todo-payouts a', 'href')).toBe('/admin/payouts?status=pending');
    // invited: not signed in yet (activatedAt null), not revoked
    expect(partners.filter((p) => p.activatedAt === null && p.revokedAt === null).length).toBe(1);
    expect(await text('#todo-invites')).toBe('1 invite pending');
    // the link opens the partners list filtered to exactly those partners
    expect(await page.getAttribute('#todo-invites a', 'href')).toBe('/admin/partners?status=invited');
    expect(accrued.length).toBeGreaterThan(1);
    expect(await text('#todo-commissions')).toBe(`${accrued.length} commissions waiting for approval`);
    expect(await page.getAttribute('#todo-commissions a', 'href')).toBe('/admin/commissions?status=accrued');
    expect(await text('#todo-webhooks')).toBe('1 webhook endpoint failing');
  });

  test('the range picker changes every number; the range stays in the URL', async () => {
    await page.goto(`${svc.url}/admin`);
    await page.selectOption('#range-key', '7d');
    await page.waitForURL(/range=7d/);
    expect(await page.inputValue('#range-key')).toBe('7d');
    const seven = await checkRange({ range: '7d' });
    expect(seven.before!.conversions).toBe(1); // cust-a4, nine days ago
    expect(await text('#kpi-clicks .change')).toContain('vs previous 7 days');

    await page.goto(`${svc.url}/admin?range=90d`);
    await checkRange({ range: '90d' });
    await page.goto(`${svc.url}/admin?range=12m`);
    await checkRange({ range: '12m' });
    expect(await text('#chart-title')).toBe('Revenue and commissions per week (USD)');
    await page.screenshot({ path: `${ARTIFACTS}overview-12m-1366.png`, fullPage: true });
    await page.goto(`${svc.url}/admin?range=all`);
    await checkRange({ range: 'all' });

    // a custom range, typed into the two date inputs
    const from = daysAgo(59).toISOString().slice(0, 10);
    const to = daysAgo(31).toISOString().slice(0, 10);
    await page.goto(`${svc.url}/admin`);
    await page.selectOption('#range-key', 'custom');
    await page.fill('#range-from', from);
    await page.fill('#range-to', to);
    await page.click('form.range button[type=submit]');
    await page.waitForURL(/range=custom/);
    const custom = await checkRange({ range: 'custom', from, to });
    expect(custom.now.conversions).toBe(2);

    // a period without anything: zeros said once, the chart and the table say so in words
    await page.goto(`${svc.url}/admin?range=custom&from=2020-01-01&to=2020-01-31`);
    await checkRange({ range: 'custom', from: '2020-01-01', to: '2020-01-31' });
    expect(await text('#money-chart .chart-empty')).toContain('No data in this period');
    expect(await text('.empty-state')).toContain('No partner activity in this period');
    expect(await text('#kpi-clicks .change')).toBe('no change vs previous 31 days');
  });

  test('a malformed custom range says what is wrong and shows the last 30 days; no 500', async () => {
    for (const [query, problem] of [
      ['range=custom&from=2026-02-30&to=2026-03-01', 'Enter both dates of the custom range.'],
      ['range=custom&from=2026-03-10&to=2026-03-01', 'The range ends before it starts.'],
      ['range=custom&from=1900-01-01&to=2026-01-01', 'A custom range spans at most ten years.'],
      ['range=custom', 'Enter both dates of the custom range.'],
    ] as const) {
      const res = await page.goto(`${svc.url}/admin?${query}`);
      expect({ query, status: res!.status() }).toEqual({ query, status: 200 });
      expect(await text('#range-problem')).toBe(problem);
      await checkRange({});
    }
    for (const query of ['range=%3Cscript%3E', 'range=7d&range=30d', 'from=x&to=y', 'range=custom&from=' + '9'.repeat(500)]) {
      const res = await page.goto(`${svc.url}/admin?${query}`);
      expect({ query, status: res!.status() }).toEqual({ query, status: 200 });
    }
  });
});
