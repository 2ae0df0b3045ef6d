// The rollups are exact (issue 31): after every kind of write (clicks through the redirect, filtered
// clicks, events one by one and in a backfill batch, a lead, a renewal, a multi-touch sale, an
// approval, a partial refund, a payout, a reversal, a clawback, a fraud hold), the day and month
// rows read by the pages equal a recount of the raw rows, folded or not.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { rollupPieces, rollupRows } from '../../src/modules/reports/figures';
import { foldRollups } from '../../src/modules/reports/rollups';
import { reduceCommissionIn } from '../../src/modules/commissions/lifecycle';
import { newId } from '../../src/lib/ids';
import { BROWSER_UA, campaign, identify, partner } from '../support/chain';
import { click as clickAt, daysAgo } from '../support/fixtures';
import { startService, type TestService } from '../support/service';

setDefaultTimeout(60_000);

let svc: TestService;
let usd: string;
let eur: string;
let ada: string;
let bob: string;

const COUNTERS = ['clicks', 'filtered', 'converted', 'leads', 'customers', 'sales', 'revenue', 'accrued', 'approved', 'paid', 'reversed', 'earned'];
const nonZero = COUNTERS.map((c) => `${c} <> '0'`).join(' or ');
const sums = COUNTERS.map((c) => `sum(${c})::text as ${c}`).join(', ');

type Row = Record<string, string>;
const key = (r: Row) => [r.day, r.partner_id, r.campaign_id, r.link_id, r.currency].join('|');
const sorted = (rows: Row[]) => [...rows].map((r) => ({ ...r })).sort((a, b) => (key(a) < key(b) ? -1 : 1));

/** Day rows, month rows and the raw recount, all in the same shape. */
async function views() {
  const days = await svc.sql.unsafe<Row[]>(`
    select * from (select day::text, partner_id, campaign_id, link_id, currency, ${sums} from rollup_facts where unit = 'd' group by 1, 2, 3, 4, 5) d
    where ${nonZero}`);
  const months = await svc.sql.unsafe<Row[]>(`
    select * from (select day::text, partner_id, campaign_id, link_id, currency, ${sums} from rollup_facts where unit = 'm' group by 1, 2, 3, 4, 5) d
    where ${nonZero}`);
  const raw = await svc.sql.unsafe<Row[]>(`
    select * from (select day::text, partner_id, campaign_id, link_id, currency, ${sums} from partnerd_rollup_recount() group by 1, 2, 3, 4, 5) d
    where ${nonZero}`);
  const rawMonths = await svc.sql.unsafe<Row[]>(`
    select * from (select date_trunc('month', day)::date::text as day, partner_id, campaign_id, link_id, currency, ${sums}
      from partnerd_rollup_recount() group by 1, 2, 3, 4, 5) d where ${nonZero}`);
  return { days, months, raw, rawMonths };
}

/** The rollups equal the recount, before and after folding the deltas. */
async function expectExact(what: string) {
  const before = await views();
  expect({ what, rows: sorted(before.days) }).toEqual({ what, rows: sorted(before.raw) });
  expect({ what, rows: sorted(before.months) }).toEqual({ what, rows: sorted(before.rawMonths) });
  await foldRollups(svc.sql);
  const [left] = await svc.sql`select count(*)::int as n from rollup_deltas`;
  expect(left!.n).toBe(0);
  const after = await views();
  expect({ what, rows: sorted(after.days) }).toEqual({ what, rows: sorted(after.raw) });
  expect({ what, rows: sorted(after.months) }).toEqual({ what, rows: sorted(after.rawMonths) });
}

async function redirectClick(campaignId: string, partnerId: string, ua = BROWSER_UA): Promise<string> {
  const link = await svc.api('POST', '/v1/links', { body: { campaignId, partnerId } });
  expect(link.status).toBe(201);
  const res = await fetch(`${svc.url}/r/${link.body.slug}`, { redirect: 'manual', headers: { 'user-agent': ua } });
  expect(res.status).toBe(302);
  const clickId = new URL(res.headers.get('location')!).searchParams.get('pp_click')!;
  await svc.ctx.links.clicks.flush();
  return clickId;
}

async function event(body: Record<string, unknown>): Promise<string> {
  const res = await svc.api('POST', '/v1/events', { body: body.amount === undefined ? body : { currency: 'USD', ...body } });
  expect(res.status).toBe(201);
  return res.body.id;
}

const commissionsOf = (userId: string) => svc.sql<{ id: string; status: string; amount: bigint }[]>`select id, status, amount from commissions where user_id = ${userId} order by id`;

beforeAll(async () => {
  svc = await startService({ MIN_PAYOUT: '0', REVIEW_ABOVE: '900' });
  const rules = [
    { eventType: 'purchase', kind: 'percent', percent: 10 },
    { eventType: 'invoice_paid', kind: 'percent', percent: 10 },
    { eventType: 'signup', kind: 'flat', amount: '0.01' },
  ];
  usd = await campaign(svc, { rules });
  eur = await campaign(svc, { rules, currency: 'EUR' });
  ada = await partner(svc, 'ada@example.com', [usd, eur]);
  bob = await partner(svc, 'bob@example.com', [usd]);
}, 60_000);
afterAll(async () => {
  await svc?.stop();
});

describe('rollups equal a raw recount', () => {
  test('after clicks: credited and filtered, through the redirect and written directly, on other days', async () => {
    const first = await redirectClick(usd, ada);
    await redirectClick(usd, ada, 'curl/8.0'); // a bot: filtered
    await clickAt(svc.sql, { partnerId: bob, campaignId: usd, at: daysAgo(40) });
    const later = await clickAt(svc.sql, { partnerId: bob, campaignId: usd, at: daysAgo(3) });
    // a click filtered after it was written (a fixture's way): the update moves it between counts
    await svc.sql`update clicks set uncredited_reason = 'click_flood' where id = ${later}`;
    await expectExact('clicks');
    // the redirected clicks' UTC day, read from the click (midnight may have passed since)
    const [day] = await svc.sql`select clicks::int, filtered::int from rollups where unit = 'd' and partner_id = '' and campaign_id = '' and link_id = ''
      and day = (select (created_at at time zone 'UTC')::date from clicks where id = ${first})`;
    expect(day).toEqual({ clicks: 1, filtered: 1 });
  });

  test('after a lead, a first sale, a renewal and a sale in another currency', async () => {
    const c = await redirectClick(usd, ada);
    await identify(svc, 'cust-1', [c]);
    await event({ userId: 'cust-1', type: 'signup' });
    await event({ userId: 'cust-1', type: 'purchase', amount: 50 });
    await event({ userId: 'cust-1', type: 'invoice_paid', amount: 50 });
    await event({ userId: 'cust-1', type: 'invoice_paid', amount: 20, currency: 'EUR' });
    await expectExact('sales');
    const [prog] = await svc.sql`
      select sum(customers)::int as customers, sum(leads)::int as leads, sum(sales)::int as sales
      from rollup_facts where unit = 'd' and partner_id = '' and campaign_id = '' and link_id = '' and currency = ''`;
    expect(prog).toEqual({ customers: 1, leads: 1, sales: 4 });
  });

  test("after a sale whose touch holds no link: its click's link, looked up when needed", async () => {
    // a touch written before its click reached the table (the redirect writes clicks in batches)
    // has no link of its own (here: the trigger that copies the click's link is held off for the
    // first sale); its customer's sales still count on the click's link
    const c = await redirectClick(usd, bob);
    await identify(svc, 'cust-nolink', [c]);
    await svc.sql`alter table referral_touches disable trigger referral_touches_link`;
    try {
      await event({ userId: 'cust-nolink', type: 'purchase', amount: 70 });
    } finally {
      await svc.sql`alter table referral_touches enable trigger referral_touches_link`;
    }
    const [touch] = await svc.sql`select link_id from referral_touches where user_id = 'cust-nolink'`;
    expect(touch).toEqual({ link_id: null });
    await event({ userId: 'cust-nolink', type: 'invoice_paid', amount: 70 });
    await expectExact('touch without a link');
    const [link] = await svc.sql<{ link_id: string }[]>`select link_id from clicks where id = ${c}`;
    const [rolled] = await svc.sql`
      select sum(sales)::int as sales, sum(customers)::int as customers from rollup_facts
      where unit = 'd' and partner_id = ${bob} and link_id = ${link!.link_id} and currency = ''`;
    expect(rolled).toEqual({ sales: 2, customers: 1 });
    const [money] = await svc.sql`
      select sum(revenue)::bigint as revenue, sum(accrued)::bigint as accrued from rollup_facts
      where unit = 'd' and partner_id = ${bob} and link_id = ${link!.link_id} and currency = 'USD'`;
    expect({ revenue: BigInt(money!.revenue), accrued: BigInt(money!.accrued) }).toEqual({ revenue: 140n, accrued: 14n });
  });

  test('after a multi-touch sale two partners and two links of one partner share', async () => {
    await svc.api('PATCH', '/v1/settings', { body: { attributionModel: 'linear' } });
    const a1 = await redirectClick(usd, ada);
    const a2 = await redirectClick(eur, ada);
    const b1 = await redirectClick(usd, bob);
    await identify(svc, 'cust-2', [a1, a2, b1]);
    await event({ userId: 'cust-2', type: 'purchase', amount: 300 });
    await event({ userId: 'cust-2', type: 'invoice_paid', amount: 300 });
    await expectExact('multi-touch');
    // the customer is one customer of ada's, though it came through two of her links
    const [p] = await svc.sql`
      select sum(customers)::int as n from rollup_facts where unit = 'd' and partner_id = ${ada} and campaign_id = '' and link_id = '' and currency = ''`;
    const [l] = await svc.sql`
      select sum(customers)::int as n from rollup_facts where unit = 'd' and partner_id = ${ada} and link_id <> '' and currency = ''`;
    expect(p!.n).toBe(2);
    expect(l!.n).toBe(3);
    await svc.api('PATCH', '/v1/settings', { body: { attributionModel: 'last_click' } });
  });

  test('after a backfill batch of last year, in one transaction', async () => {
    const old = await clickAt(svc.sql, { partnerId: bob, campaignId: usd, at: daysAgo(400) });
    await identify(svc, 'cust-old', [old]);
    const res = await svc.api('POST', '/v1/events/batch', {
      body: {
        events: [
          { userId: 'cust-old', type: 'purchase', amount: 100, currency: 'USD', occurredAt: daysAgo(399).toISOString() },
          { userId: 'cust-old', type: 'invoice_paid', amount: 100, currency: 'USD', occurredAt: daysAgo(369).toISOString() },
          { userId: 'cust-old', type: 'invoice_paid', amount: 100, currency: 'USD', occurredAt: daysAgo(339).toISOString() },
        ],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.results.every((r: { id?: string }) => r.id)).toBe(true);
    await expectExact('backfill');
  });

  test('after rows written statement by statement that share a click, an event and a first-sale moment', async () => {
    // what the triggers look up among earlier statements' rows: a click a second customer's touch
    // reuses (converted once), a second attribution of an event already counted (a sale once per
    // grain), a second event at a customer's first-sale moment (a customer once per grain)
    const figures = async () => (await svc.sql<{ converted: number; customers: number; sales: number }[]>`
      select coalesce(sum(converted), 0)::int as converted, coalesce(sum(customers), 0)::int as customers, coalesce(sum(sales), 0)::int as sales
      from rollup_facts where unit = 'd' and partner_id = ${ada} and campaign_id = '' and link_id = '' and currency = ''`)[0]!;
    const before = await figures();
    const c = await redirectClick(usd, ada);
    const at = new Date(Date.now() - 3_600_000);
    const sale = async (amount: number) => {
      const id = newId('event', at);
      await svc.sql`insert into events (id, user_id, type, amount, currency, occurred_at, source, attribution_status, attribution_model)
        values (${id}, 'cust-split', 'purchase', ${amount}, 'USD', ${at}, 'api', 'attributed', 'linear')`;
      return id;
    };
    // as accrual writes them: the event, then its customer's referral, then the attributions
    const first = await sale(400);
    for (const user of ['cust-split', 'cust-split-2']) {
      await svc.sql.begin(async (tx) => {
        await tx`insert into referrals (user_id, model, started_at) values (${user}, 'linear', ${at})`;
        await tx`insert into referral_touches (user_id, position, click_id, partner_id, campaign_id, weight_num, weight_den) values (${user}, 0, ${c}, ${ada}, ${usd}, 1, 1)`;
      });
    }
    const attribute = (eventId: string, partnerId: string, clickId: string) => svc.sql`
      insert into attributions (id, event_id, user_id, click_id, partner_id, campaign_id, model, weight)
      values (${newId('attribution', at)}, ${eventId}, 'cust-split', ${clickId}, ${partnerId}, ${usd}, 'linear', 0.5)`;
    await attribute(first, ada, c);
    await attribute(first, bob, newId('click', at));
    await attribute(first, ada, c);
    await attribute(await sale(100), ada, c);
    await expectExact('statement by statement');
    const after = await figures();
    expect({ converted: after.converted - before.converted, customers: after.customers - before.customers, sales: after.sales - before.sales })
      .toEqual({ converted: 1, customers: 1, sales: 2 });
  });

  test('after an approval, a partial refund, a payout, a reversal and a clawback', async () => {
    const [first, second] = (await commissionsOf('cust-1')).filter((c) => c.amount > 1n);
    expect((await svc.api('POST', `/v1/commissions/${first!.id}/approve`)).status).toBe(200);
    await expectExact('approval');
    await svc.sql.begin((tx) => reduceCommissionIn(tx, { id: second!.id, amount: 2n, actor: 'test', reason: 'refund' }));
    await expectExact('partial refund');
    expect((await svc.api('POST', '/v1/payouts/run')).status).toBe(200);
    expect((await commissionsOf('cust-1')).find((c) => c.id === first!.id)!.status).toBe('paid');
    await expectExact('payout');
    const [renewal] = (await commissionsOf('cust-2')).slice(-1);
    expect((await svc.api('POST', `/v1/commissions/${renewal!.id}/reverse`, { body: { reason: 'refund' } })).status).toBe(200);
    await expectExact('reversal');
    // a paid commission reversed: a clawback opens, the rollups move it from paid to reversed
    expect((await svc.api('POST', `/v1/commissions/${first!.id}/reverse`, { body: { reason: 'chargeback' } })).status).toBe(200);
    const [claw] = await svc.sql`select count(*)::int as n from clawbacks where commission_id = ${first!.id}`;
    expect(claw!.n).toBe(1);
    await expectExact('clawback');
  });

  test('after a fraud hold and its release', async () => {
    const c = await redirectClick(usd, bob);
    await identify(svc, 'cust-big', [c]);
    await event({ userId: 'cust-big', type: 'purchase', amount: 1_000_000 });
    const [held] = await svc.sql<{ id: string; flags: string[] }[]>`select id, flags from commissions where user_id = 'cust-big'`;
    expect(held!.flags).toContain('review_amount');
    await expectExact('fraud hold');
    expect((await svc.api('POST', `/v1/commissions/${held!.id}/approve`)).status).toBe(200);
    await expectExact('released');
    const [rev] = await svc.sql`
      select sum(approved)::bigint as n from rollup_facts where unit = 'm' and partner_id = ${bob} and campaign_id = '' and link_id = '' and currency = 'USD'`;
    const [raw] = await svc.sql`select sum(amount)::bigint as n from commissions where partner_id = ${bob} and status = 'approved' and currency = 'USD'`;
    expect(BigInt(rev!.n)).toBe(BigInt(raw!.n));
    expect(BigInt(rev!.n)).toBeGreaterThanOrEqual(100_000n);
  });
});

describe('a range read from the rollups', () => {
  const DAY = 86_400_000;
  const today = new Date(Math.floor(Date.now() / DAY) * DAY);
  const ago = (n: number) => new Date(today.getTime() - n * DAY);
  const monthStart = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), 1));

  test('a year to today reads month rows, its month less today, and the few days at its start', () => {
    const from = new Date(Date.UTC(2025, 10, 27));
    const to = new Date(Date.UTC(2026, 10, 27));
    expect(rollupPieces({ from, to })).toEqual([
      { unit: 'd', from, to: new Date(Date.UTC(2025, 11, 1)), sign: 1 },
      { unit: 'm', from: new Date(Date.UTC(2025, 11, 1)), to: new Date(Date.UTC(2026, 10, 1)), sign: 1 },
      { unit: 'm', from: new Date(Date.UTC(2026, 10, 1)), to: new Date(Date.UTC(2026, 11, 1)), sign: 1 },
      { unit: 'd', from: to, to: new Date(Date.UTC(2026, 11, 1)), sign: -1 },
    ]);
    // a few days inside one month: the days themselves
    expect(rollupPieces({ from: new Date(Date.UTC(2026, 1, 10)), to: new Date(Date.UTC(2026, 1, 13)) })).toEqual([
      { unit: 'd', from: new Date(Date.UTC(2026, 1, 10)), to: new Date(Date.UTC(2026, 1, 13)), sign: 1 },
    ]);
  });

  test('every way of covering a range sums to its day rows, for every grain', async () => {
    await foldRollups(svc.sql);
    // a delta not folded yet counts too
    await redirectClick(usd, ada);
    const cols = COUNTERS.map((c) => `sum(${c})::text as ${c}`).join(', ');
    const ranges: { from: Date | null; to: Date }[] = [
      { from: ago(365), to: today },
      { from: ago(30), to: today },
      { from: monthStart, to: today },
      { from: ago(400), to: ago(350) },
      { from: null, to: today },
      { from: ago(2), to: today },
      { from: ago(45), to: ago(44) },
      { from: new Date(Date.UTC(today.getUTCFullYear() - 1, today.getUTCMonth(), 2)), to: new Date(Date.UTC(today.getUTCFullYear() - 1, today.getUTCMonth() + 1, 1)) },
    ];
    for (const days of ranges) {
      if (days.from && days.from >= days.to) continue;
      const read = await svc.sql<Row[]>`
        select * from (select partner_id, campaign_id, link_id, currency, ${svc.sql.unsafe(cols)} from ${rollupRows(svc.sql, 'rollup_facts', days)} r group by 1, 2, 3, 4) x
        where ${svc.sql.unsafe(nonZero)}`;
      const daily = await svc.sql<Row[]>`
        select * from (select partner_id, campaign_id, link_id, currency, ${svc.sql.unsafe(cols)} from rollup_facts
          where unit = 'd' ${days.from ? svc.sql`and day >= ${days.from}::date` : svc.sql``} and day < ${days.to}::date group by 1, 2, 3, 4) x
        where ${svc.sql.unsafe(nonZero)}`;
      const k = (r: Row) => [r.partner_id, r.campaign_id, r.link_id, r.currency].join('|');
      const order = (rows: Row[]) => [...rows].map((r) => ({ ...r })).sort((a, b) => (k(a) < k(b) ? -1 : 1));
      expect({ days, rows: order(read) }).toEqual({ days, rows: order(daily) });
      if (days.from === null || days.to.getTime() - days.from.getTime() > 40 * DAY) expect(daily.length).toBeGreaterThan(0);
    }
  });
});
