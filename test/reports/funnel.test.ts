// The funnel (issue 31): clicks -> leads -> customers -> revenue read from the rollups for whole
// days and from the rows for today equals a recount of the raw rows, for the whole program, each
// partner, campaign, link and a partner in a campaign, over ranges of whole days, today, part-days
// and all time, before and after the deltas are folded; a refund lowers the earned money.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { reduceCommissionIn } from '../../src/modules/commissions/lifecycle';
import { funnel, commissionsOf, type FunnelScope } from '../../src/modules/reports/funnel';
import { foldRollups } from '../../src/modules/reports/rollups';
import { BROWSER_UA, campaign, identify, partner } from '../support/chain';
import { click as clickAt, daysAgo } from '../support/fixtures';
import { startService, type TestService } from '../support/service';

setDefaultTimeout(60_000);

let svc: TestService;
let usd: string;
let eur: string;
let ada: string;
let bob: string;
let cy: string;

async function redirectClick(campaignId: string, partnerId: string, ua = BROWSER_UA): Promise<string> {
  const link = await svc.api('POST', '/v1/links', { body: { campaignId, partnerId } });
  expect(link.status).toBe(201);
  const res = await fetch(`${svc.url}/r/${link.body.slug}`, { redirect: 'manual', headers: { 'user-agent': ua } });
  expect(res.status).toBe(302);
  const clickId = new URL(res.headers.get('location')!).searchParams.get('pp_click')!;
  await svc.ctx.links.clicks.flush();
  return clickId;
}

async function event(body: Record<string, unknown>): Promise<void> {
  const res = await svc.api('POST', '/v1/events', { body });
  expect(res.status).toBe(201);
}

type Span = { start: Date | null; end: Date };

/** The funnel counted straight from the raw rows, written apart from the code under test. */
async function recount(scope: FunnelScope, span: Span) {
  const sql = svc.sql;
  const from = span.start ?? new Date(0);
  const onAttribution = (a: string) => sql`
    ${scope.partnerId ? sql`and ${sql(`${a}.partner_id`)} = ${scope.partnerId}` : sql``}
    ${scope.campaignId ? sql`and ${sql(`${a}.campaign_id`)} = ${scope.campaignId}` : sql``}
    ${scope.linkId ? sql`and exists (select 1 from clicks k where k.id = ${sql(`${a}.click_id`)} and k.link_id = ${scope.linkId})` : sql``}`;
  const whole = !scope.partnerId && !scope.campaignId && !scope.linkId;
  const inScope = whole ? sql`true` : sql`exists (select 1 from attributions a where a.event_id = e.id ${onAttribution('a')})`;
  const [row] = await sql<{ clicks: number; leads: number; customers: number }[]>`
    select
      (select count(*) from clicks c where c.uncredited_reason is null and c.created_at >= ${from} and c.created_at < ${span.end}
        ${scope.partnerId ? sql`and c.partner_id = ${scope.partnerId}` : sql``}
        ${scope.campaignId ? sql`and c.campaign_id = ${scope.campaignId}` : sql``}
        ${scope.linkId ? sql`and c.link_id = ${scope.linkId}` : sql``})::int as clicks,
      (select count(*) from events e where e.type = 'signup' and e.attribution_status = 'attributed'
        and e.occurred_at >= ${from} and e.occurred_at < ${span.end} and ${inScope})::int as leads,
      (select count(distinct r.user_id) from referrals r join events e on e.user_id = r.user_id and e.occurred_at = r.started_at
        where e.attribution_status = 'attributed' and r.started_at >= ${from} and r.started_at < ${span.end} and ${inScope})::int as customers`;
  const revenue = await sql<{ currency: string; amount: string }[]>`
    select e.currency, sum(e.amount)::text as amount from events e
    where e.attribution_status = 'attributed' and e.currency is not null and e.occurred_at >= ${from} and e.occurred_at < ${span.end} and ${inScope}
    group by 1 having sum(e.amount) <> 0 order by 1`;
  const earned = await sql<{ currency: string; amount: string }[]>`
    select x.currency, sum(x.amount)::text as amount from commissions x join attributions a on a.id = x.attribution_id
    where x.status <> 'reversed' and x.occurred_at >= ${from} and x.occurred_at < ${span.end}
      ${scope.partnerId ? sql`and x.partner_id = ${scope.partnerId}` : sql``}
      ${scope.campaignId ? sql`and x.campaign_id = ${scope.campaignId}` : sql``}
      ${scope.linkId ? sql`and exists (select 1 from clicks k where k.id = a.click_id and k.link_id = ${scope.linkId})` : sql``}
    group by 1 having sum(x.amount) <> 0 order by 1`;
  return {
    ...row!,
    revenue: revenue.map((r) => ({ currency: r.currency, amount: BigInt(r.amount) })),
    earned: earned.map((r) => ({ currency: r.currency, amount: BigInt(r.amount) })),
  };
}

async function scopes(): Promise<[string, FunnelScope][]> {
  const links = await svc.sql<{ id: string }[]>`select id from links order by id`;
  return [
    ['program', {}],
    ['ada', { partnerId: ada }],
    ['bob', { partnerId: bob }],
    ['cy', { partnerId: cy }],
    ['usd campaign', { campaignId: usd }],
    ['eur campaign', { campaignId: eur }],
    ['ada in usd', { partnerId: ada, campaignId: usd }],
    ...links.map((l, i): [string, FunnelScope] => [`link ${i}`, { linkId: l.id }]),
  ];
}

function spans(): [string, Span][] {
  const now = Date.now();
  const midnight = new Date(Math.floor(now / 86_400_000) * 86_400_000);
  return [
    ['last 7 days', { start: daysAgo(7, midnight.getTime()), end: new Date(midnight.getTime() + 86_400_000) }],
    ['last 30 days', { start: daysAgo(30, midnight.getTime()), end: new Date(midnight.getTime() + 86_400_000) }],
    ['before today', { start: daysAgo(60, midnight.getTime()), end: midnight }],
    ['part-days', { start: new Date(daysAgo(10, midnight.getTime()).getTime() + 5 * 3_600_000), end: new Date(now + 1000) }],
    ['today', { start: midnight, end: new Date(midnight.getTime() + 86_400_000) }],
    ['all time', { start: null, end: new Date(midnight.getTime() + 86_400_000) }],
  ];
}

async function expectFunnelsExact(what: string) {
  for (const [who, scope] of await scopes()) {
    for (const [range, span] of spans()) {
      const [f, raw] = await Promise.all([funnel(svc.sql, scope, span), recount(scope, span)]);
      const label = `${what}: ${who}, ${range}`;
      expect({ label, clicks: f.clicks, leads: f.leads, customers: f.customers }).toEqual({ label, clicks: raw.clicks, leads: raw.leads, customers: raw.customers });
      expect({ label, revenue: [...f.revenue].sort((a, b) => (a.currency < b.currency ? -1 : 1)) }).toEqual({ label, revenue: raw.revenue });
      expect({ label, earned: commissionsOf(f) }).toEqual({ label, earned: raw.earned });
    }
  }
}

beforeAll(async () => {
  svc = await startService({ MIN_PAYOUT: '0' });
  const rules = [
    { eventType: 'purchase', kind: 'percent', percent: 10 },
    { eventType: 'invoice_paid', kind: 'percent', percent: 10 },
  ];
  usd = await campaign(svc, { rules });
  eur = await campaign(svc, { rules, currency: 'EUR' });
  ada = await partner(svc, 'ada@example.com', [usd, eur]);
  bob = await partner(svc, 'bob@example.com', [usd]);
  cy = await partner(svc, 'cy@example.com', [eur]);

  // earlier days: clicks that became leads and customers, one that did not
  const old = async (partnerId: string, campaignId: string, days: number, userId: string | null, sales: { type: string; amount?: number; currency?: string; daysAgo: number }[]) => {
    const c = await clickAt(svc.sql, { partnerId, campaignId, at: daysAgo(days) });
    if (!userId) return;
    await identify(svc, userId, [c]);
    for (const s of sales) {
      await event({ userId, type: s.type, ...(s.amount !== undefined ? { amount: s.amount, currency: s.currency ?? 'USD' } : {}), occurredAt: daysAgo(s.daysAgo).toISOString() });
    }
  };
  await old(ada, usd, 20, 'a-old', [{ type: 'signup', daysAgo: 20 }, { type: 'purchase', amount: 100, daysAgo: 19 }, { type: 'invoice_paid', amount: 100, daysAgo: 5 }]);
  await old(ada, eur, 9, 'a-eur', [{ type: 'signup', daysAgo: 9 }, { type: 'purchase', amount: 80, currency: 'EUR', daysAgo: 8 }]);
  await old(bob, usd, 3, 'b-old', [{ type: 'signup', daysAgo: 3 }]);
  await old(bob, usd, 45, null, []);
  await old(cy, eur, 2, 'c-old', [{ type: 'purchase', amount: 40, currency: 'EUR', daysAgo: 2 }]);

  // today: through the redirect, a bot, a lead and a customer
  const today = await redirectClick(usd, bob);
  await redirectClick(usd, bob, 'curl/8.0');
  await redirectClick(eur, ada);
  await identify(svc, 'b-new', [today]);
  await event({ userId: 'b-new', type: 'signup' });
  await event({ userId: 'b-new', type: 'purchase', amount: 60, currency: 'USD' });
}, 120_000);
afterAll(async () => {
  await svc?.stop();
});

describe('the funnel equals a raw recount', () => {
  test('the seeded program: the numbers a reader checks', async () => {
    const midnight = new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000);
    const f = await funnel(svc.sql, {}, { start: daysAgo(30, midnight.getTime()), end: new Date(midnight.getTime() + 86_400_000) });
    // credited clicks: 20, 9, 3, 2 days ago and three today less the bot
    expect(f.clicks).toBe(6);
    expect(f.leads).toBe(4);
    // a customer is one whose referral started in the range: its first attributed event, a signup too
    expect(f.customers).toBe(5);
    expect(f.revenue).toEqual([
      { currency: 'USD', amount: 260n },
      { currency: 'EUR', amount: 120n },
    ]);
    const bobs = await funnel(svc.sql, { partnerId: bob }, { start: daysAgo(30, midnight.getTime()), end: new Date(midnight.getTime() + 86_400_000) });
    expect({ clicks: bobs.clicks, leads: bobs.leads, customers: bobs.customers }).toEqual({ clicks: 2, leads: 2, customers: 2 });
  });

  test('every scope and range, before folding and after', async () => {
    await expectFunnelsExact('unfolded');
    await foldRollups(svc.sql);
    await expectFunnelsExact('folded');
  });

  test('after a partial refund and a reversal: the money earned follows', async () => {
    const [first] = await svc.sql<{ id: string; amount: bigint }[]>`select id, amount from commissions where user_id = 'a-old' order by occurred_at limit 1`;
    await svc.sql.begin((tx) => reduceCommissionIn(tx, { id: first!.id, amount: 4n, actor: 'test', reason: 'refund' }));
    const [renewal] = await svc.sql<{ id: string }[]>`select id from commissions where user_id = 'a-old' order by occurred_at desc limit 1`;
    expect((await svc.api('POST', `/v1/commissions/${renewal!.id}/reverse`, { body: { reason: 'refund' } })).status).toBe(200);
    const f = await funnel(svc.sql, { partnerId: ada }, { start: null, end: new Date(Date.now() + 86_400_000) });
    expect(commissionsOf(f)).toEqual([
      { currency: 'EUR', amount: 8n },
      { currency: 'USD', amount: 4n },
    ]);
    await expectFunnelsExact('after a refund');
    await foldRollups(svc.sql);
    await expectFunnelsExact('after a refund, folded');
  });
});
