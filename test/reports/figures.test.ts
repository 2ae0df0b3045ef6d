// The figures agree (issue 25, docs/analytics.md): the same range gives the same clicks, conversions,
// revenue and commissions on the overview, the partners list, the partner page, the campaign pages and
// the portal; a sale counts on the day it happened (an imported partner's "last 7 days" is not its
// all time), a renewal is revenue but not a conversion, filtered clicks are counted apart and the
// conversion rate never exceeds 100%.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { campaignLinks, campaignPartners, campaignTotals } from '../../src/modules/reports/campaigns';
import { conversionRate } from '../../src/modules/reports/figures';
import { overviewTotals, topPartners } from '../../src/modules/reports/overview';
import { linkStats, partnerCounts, partnerMoney, partnerStats, type Span } from '../../src/modules/reports/partners';
import { partnerDailyEarnings, partnerLinkStats, partnerPeriodTotals } from '../../src/modules/reports/portal';
import { campaign, partner } from '../support/chain';
import { click, daysAgo, identify } from '../support/fixtures';
import { startService, type TestService } from '../support/service';
import { migrate } from '../../src/db/migrate';
import { foldRollups } from '../../src/modules/reports/rollups';
import { newId } from '../../src/lib/ids';

setDefaultTimeout(30_000);

let svc: TestService;
let usd: string;
let imported: string;
let live: string;
let botty: string;

const now = () => new Date(Date.now() + 60_000);
const last7 = (): Span & { start: Date } => ({ start: daysAgo(7), end: now() });
const allTime = (): Span => ({ start: null, end: now() });

async function sale(userId: string, amount: number, at: Date, type = 'invoice_paid') {
  const res = await svc.api('POST', '/v1/events', { body: { userId, type, amount, currency: 'USD', occurredAt: at.toISOString() } });
  expect(res.status).toBe(201);
  const [row] = await svc.sql`select attribution_status from events where id = ${res.body.id}`;
  expect(row!.attribution_status).toBe('attributed');
}

/** A customer who clicked the partner's link at `clickedAt` and then bought at each of `sales`. */
async function customer(partnerId: string, userId: string, clickedAt: Date, sales: { at: Date; amount: number; type?: string }[]) {
  const clickId = await click(svc.sql, { partnerId, campaignId: usd, at: clickedAt });
  await identify(svc.sql, userId, [clickId]);
  for (const s of sales) await sale(userId, s.amount, s.at, s.type);
}

const sumList = async (span: Span) =>
  (await partnerStats(svc.sql, { span, currency: 'USD', sort: { key: 'name', dir: 'asc' }, limit: 50, offset: 0 })).rows;

beforeAll(async () => {
  svc = await startService();
  usd = await campaign(svc, { rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 10 }, { eventType: 'purchase', kind: 'percent', percent: 10 }] });
  imported = await partner(svc, 'imported@example.com', [usd]);
  live = await partner(svc, 'live@example.com', [usd]);
  botty = await partner(svc, 'botty@example.com', [usd]);

  // Imported: a year of history backfilled today (clicked 200 days ago, bought 200, 100 and 50 days ago)
  await customer(imported, 'imp-1', daysAgo(200), [
    { at: new Date(daysAgo(200).getTime() + 60_000), amount: 10_000 },
    { at: daysAgo(100), amount: 10_000 },
    { at: daysAgo(50), amount: 10_000 },
  ]);
  // Live, in the last 7 days: A buys and renews, B buys once; C clicked 20 days ago and bought yesterday
  await customer(live, 'live-a', daysAgo(5), [{ at: daysAgo(4), amount: 5_000, type: 'purchase' }, { at: daysAgo(1), amount: 5_000 }]);
  await customer(live, 'live-b', daysAgo(3), [{ at: daysAgo(2), amount: 2_000, type: 'purchase' }]);
  await customer(live, 'live-c', daysAgo(20), [{ at: daysAgo(1), amount: 1_000, type: 'purchase' }]);
  // Botty: one credited click and three filtered ones (a bot and a flood), no sale
  await click(svc.sql, { partnerId: botty, campaignId: usd, at: daysAgo(2) });
  for (const reason of ['bot_click', 'bot_click', 'click_flood']) {
    const id = await click(svc.sql, { partnerId: botty, campaignId: usd, at: daysAgo(2) });
    await svc.sql`update clicks set uncredited_reason = ${reason} where id = ${id}`;
  }
}, 60_000);
afterAll(async () => {
  await svc?.stop();
});

describe('figures that agree', () => {
  test("the monthly statement's earnings are those of the month's sales, however late they were recorded", async () => {
    const { enqueueMonthlyStatements } = await import('../../src/mail/statements');
    const month = daysAgo(100).toISOString().slice(0, 7);
    const thisMonth = new Date().toISOString().slice(0, 7);
    await enqueueMonthlyStatements(svc.sql, month);
    await enqueueMonthlyStatements(svc.sql, thisMonth);
    const statements = await svc.sql<{ dedupe_key: string; data: { lines: { currency: string; earned: string }[] } }[]>`
      select dedupe_key, data from email_outbox where partner_id = ${imported} and template = 'monthly_statement'`;
    const of = (m: string) => statements.find((r) => r.dedupe_key.endsWith(`:${m}`))?.data.lines;
    // the sale of 100 days ago earned 10.00 in its own month (recorded today)
    expect(of(month)?.find((l) => l.currency === 'USD')?.earned).toBe('10.00');
    // and nothing is earned this month: none of Imported's sales happened in it
    expect(of(thisMonth)?.find((l) => l.currency === 'USD')?.earned ?? '0.00').toBe('0.00');
  });

  test("an imported partner's last 7 days is not its all time: its sales count on the days they happened", async () => {
    const week = (await sumList(last7())).find((r) => r.id === imported)!;
    expect({ conversions: week.conversions, revenue: week.revenue, commissions: week.commissions }).toEqual({ conversions: 0, revenue: 0n, commissions: 0n });
    const ever = (await sumList(allTime())).find((r) => r.id === imported)!;
    expect({ conversions: ever.conversions, revenue: ever.revenue, commissions: ever.commissions }).toEqual({ conversions: 1, revenue: 30_000n, commissions: 3_000n });

    // the partner page, its links, the portal and the campaign page say the same
    expect((await partnerCounts(svc.sql, { partnerId: imported, span: last7(), previous: null })).conversions).toBe(0);
    expect(await partnerMoney(svc.sql, { partnerId: imported, span: last7() })).toEqual([]);
    expect((await linkStats(svc.sql, { partnerId: imported, span: last7(), currency: 'USD', limit: 10 }))[0]!.commissions).toBe(0n);
    const portal = await partnerPeriodTotals(svc.sql, { partnerId: imported, currency: 'USD', ...last7(), previous: null });
    expect({ conversions: portal.current.conversions, earnings: portal.current.earnings }).toEqual({ conversions: 0, earnings: 0n });
    const days = await partnerDailyEarnings(svc.sql, { partnerId: imported, currency: 'USD', ...last7() });
    expect(days.reduce((n, d) => n + d.amount, 0)).toBe(0);
    const inCampaign = (await campaignPartners(svc.sql, { campaignId: usd, currency: 'USD', limit: 10, ...last7() })).partners.find((p) => p.id === imported)!;
    expect({ conversions: inCampaign.conversions, commissions: inCampaign.commissions }).toEqual({ conversions: 0, commissions: 0n });

    // commissions carry the day of their sale, copied from the event
    const rows = await svc.sql<{ occurred_at: Date; event_at: Date }[]>`
      select c.occurred_at, e.occurred_at as event_at from commissions c join events e on e.id = c.event_id where c.partner_id = ${imported}`;
    expect(rows).toHaveLength(3);
    for (const r of rows) expect(r.occurred_at.getTime()).toBe(r.event_at.getTime());
    // the API shows it and filters on it: sold before 60 days ago, though all recorded today
    const cut = daysAgo(60).toISOString();
    const sold = await svc.api('GET', `/v1/commissions?partnerId=${imported}&occurredTo=${cut}`);
    expect(sold.body.commissions.map((c: { occurredAt: string }) => c.occurredAt.slice(0, 10)).sort()).toEqual(
      rows.map((r) => r.event_at.toISOString().slice(0, 10)).sort().slice(0, 2),
    );
    expect((await svc.api('GET', `/v1/commissions?partnerId=${imported}&to=${cut}`)).body.commissions).toEqual([]);
  });

  test('the overview, the partners list, the partner page, the campaign page and the portal give the same figures for the same range', async () => {
    const span = last7();
    const overview = await overviewTotals(svc.sql, span);
    const listed = (await sumList(span)).find((r) => r.id === live)!;
    const counts = await partnerCounts(svc.sql, { partnerId: live, span, previous: null });
    const [money] = await partnerMoney(svc.sql, { partnerId: live, span });
    const portal = (await partnerPeriodTotals(svc.sql, { partnerId: live, currency: 'USD', ...span, previous: null })).current;
    const camp = await campaignTotals(svc.sql, { campaignId: usd, ...span });
    const [top] = await topPartners(svc.sql, { ...span, currency: 'USD', limit: 5 });
    const usdMoney = overview.money.find((m) => m.currency === 'USD')!;

    // only Live sold in the range: every page says 3 conversions, 13,000 of revenue, 1,300 of commissions
    expect(overview.conversions).toBe(3);
    for (const n of [listed.conversions, counts.conversions, portal.conversions, camp.conversions, top!.conversions]) expect(n).toBe(3);
    expect(usdMoney.revenue).toBe(13_000n);
    for (const n of [listed.revenue, money!.revenue, camp.revenue, top!.revenue]) expect(n).toBe(13_000n);
    expect(usdMoney.commissions).toBe(1_300n);
    for (const n of [listed.commissions, portal.earnings, camp.commissions, top!.commissions, money!.accrued]) expect(n).toBe(1_300n);
    // clicks: Live's two of the week on every page (C's click is older)
    expect([listed.clicks, counts.clicks, portal.clicks, top!.clicks]).toEqual([2, 2, 2, 2]);
  });

  test('a renewal is revenue but not a conversion', async () => {
    const span = last7();
    const overview = await overviewTotals(svc.sql, span);
    // four sales (A's renewal among them), three customers
    expect(overview.sales).toBe(4);
    expect(overview.conversions).toBe(3);
    // A alone, over the day of its renewal: revenue, no conversion
    const renewalDay = { start: daysAgo(1.5), end: daysAgo(0.5) };
    const listed = (await sumList(renewalDay)).find((r) => r.id === live)!;
    expect(listed.revenue).toBe(6_000n); // A's renewal and C's first purchase
    expect(listed.conversions).toBe(1); // C only
  });

  test('filtered clicks are counted apart and the conversion rate never exceeds 100%', async () => {
    const span = last7();
    const overview = await overviewTotals(svc.sql, span);
    // Live 2 + Botty 1 credited; Botty's bot and flood clicks apart
    expect(overview.clicks).toBe(3);
    expect(overview.filteredClicks).toBe(3);
    const list = await sumList(span);
    const b = list.find((r) => r.id === botty)!;
    expect({ clicks: b.clicks, filtered: b.filteredClicks }).toEqual({ clicks: 1, filtered: 3 });
    expect((await partnerCounts(svc.sql, { partnerId: botty, span, previous: null })).filteredClicks).toBe(3);
    const links = await partnerLinkStats(svc.sql, { partnerId: botty, linkIds: (await linkStats(svc.sql, { partnerId: botty, span, currency: 'USD', limit: 5 })).map((l) => l.id) });
    expect([...links.values()].map((l) => [l.clicks, l.filteredClicks])).toEqual([[1, 3]]);

    // Live: three conversions from two clicks of the week, yet at most 100%: two of two clicks converted
    const l = list.find((r) => r.id === live)!;
    expect(l.conversions).toBe(3);
    expect(l.convertedClicks).toBe(2);
    expect(conversionRate(l.convertedClicks, l.clicks)).toBe(1);
    for (const r of list) expect(conversionRate(r.convertedClicks, r.clicks) ?? 0).toBeLessThanOrEqual(1);
    expect(overview.convertedClicks).toBeLessThanOrEqual(overview.clicks);
    // sorted by rate, the list's own rate stays a share
    const byRate = await partnerStats(svc.sql, { span, currency: 'USD', sort: { key: 'rate', dir: 'desc' }, limit: 5, offset: 0 });
    expect(byRate.rows[0]!.id).toBe(live);
  });

  test('the partners list, the top partners and a campaign\'s partners and links choose each page as the whole sorted list would', async () => {
    const value = (r: Awaited<ReturnType<typeof sumList>>[number], key: string): string | number | bigint | null =>
      ({
        name: r.name.toLowerCase(),
        status: r.status,
        created: r.id,
        clicks: r.clicks,
        conversions: r.conversions,
        rate: r.clicks === 0 ? null : r.convertedClicks / r.clicks,
        revenue: r.revenue,
        commissions: r.commissions,
        epc: r.clicks === 0 ? null : Number(r.commissions) / r.clicks,
      })[key]!;
    for (const span of [last7(), allTime()]) {
      for (const key of ['name', 'status', 'created', 'clicks', 'conversions', 'rate', 'revenue', 'commissions', 'epc'] as const) {
        for (const dir of ['desc', 'asc'] as const) {
          const whole = await partnerStats(svc.sql, { span, currency: 'USD', sort: { key, dir }, limit: 50, offset: 0 });
          expect(whole.total).toBeGreaterThanOrEqual(3);
          for (let k = 0; k < whole.total; k++) {
            const page = await partnerStats(svc.sql, { span, currency: 'USD', sort: { key, dir }, limit: 1, offset: k });
            expect({ key, dir, k, total: page.total, row: page.rows[0] }).toEqual({ key, dir, k, total: whole.total, row: whole.rows[k] });
          }
          // the money sorts really are sorted by what the list shows
          if (key === 'revenue' || key === 'commissions') {
            const shown = whole.rows.map((r) => value(r, key) as bigint);
            const sorted = [...shown].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
            expect(shown).toEqual(dir === 'asc' ? sorted : sorted.reverse());
          }
        }
      }
    }
    // the overview's top partners: the leaders chosen among the biggest earners first are those of every partner's numbers
    for (const span of [last7(), { start: daysAgo(400), end: now() }]) {
      const every = await topPartners(svc.sql, { ...span, currency: 'USD', limit: 100 });
      const earners = every.filter((r) => r.commissions > 0n).length;
      expect(earners).toBeGreaterThanOrEqual(1);
      for (let k = 1; k <= every.length; k++) expect(await topPartners(svc.sql, { ...span, currency: 'USD', limit: k })).toEqual(every.slice(0, k));
    }
    // a campaign's links, most clicks first: each shorter page is the start of the whole list. A
    // range to midnight chooses its page from today's rollup rows, folded or not: a new partner's
    // five clicks today (two folded, three waiting: more than any other link in the range) put its link first
    const fresh = await partner(svc, 'fresh@example.com', [usd]);
    for (let i = 0; i < 5; i++) {
      await click(svc.sql, { partnerId: fresh, campaignId: usd });
      if (i === 1) await foldRollups(svc.sql);
    }
    const midnight = new Date(Math.ceil(Date.now() / 86_400_000) * 86_400_000);
    const [first] = (await campaignLinks(svc.sql, { start: daysAgo(400), end: midnight, campaignId: usd, currency: 'USD', limit: 1 })).links;
    expect({ partnerId: first!.partnerId, clicks: first!.clicks }).toEqual({ partnerId: fresh, clicks: 5 });
    for (const span of [last7(), { start: daysAgo(400), end: now() }, { start: daysAgo(400), end: midnight }]) {
      const whole = await campaignLinks(svc.sql, { ...span, campaignId: usd, currency: 'USD', limit: 100 });
      expect(whole.total).toBe(whole.links.length);
      expect(whole.total).toBeGreaterThanOrEqual(3);
      const clicks = whole.links.map((l) => l.clicks);
      expect(clicks).toEqual([...clicks].sort((a, b) => b - a));
      for (let k = 1; k <= whole.total; k++) expect(await campaignLinks(svc.sql, { ...span, campaignId: usd, currency: 'USD', limit: k })).toEqual({ total: whole.total, links: whole.links.slice(0, k) });
    }
    // a campaign's partners, most commissions first: a page chosen among the biggest earners in the
    // campaign (while at least as many earned) is the start of the whole list
    for (const span of [last7(), { start: daysAgo(400), end: now() }]) {
      const whole = await campaignPartners(svc.sql, { ...span, campaignId: usd, currency: 'USD', limit: 100 });
      expect(whole.total).toBe(whole.partners.length);
      expect(whole.total).toBeGreaterThanOrEqual(3);
      expect(whole.partners[0]!.commissions).toBeGreaterThan(0n);
      const commissions = whole.partners.map((p) => p.commissions);
      expect(commissions).toEqual([...commissions].sort((a, b) => (a < b ? 1 : a > b ? -1 : 0)));
      for (let k = 1; k <= whole.total; k++) expect(await campaignPartners(svc.sql, { ...span, campaignId: usd, currency: 'USD', limit: k })).toEqual({ total: whole.total, partners: whole.partners.slice(0, k) });
    }
    const past = await partnerStats(svc.sql, { span: allTime(), currency: 'USD', sort: { key: 'commissions', dir: 'desc' }, limit: 1, offset: 99 });
    expect(past.rows).toEqual([]);
    expect(past.total).toBeGreaterThanOrEqual(3);
  });

  test('0033 gives commissions recorded before it the time of their sale, and a row written without it takes its event\'s', async () => {
    // back to the schema before 0033, then migrate
    await svc.sql`drop trigger commissions_occurred_at on commissions`;
    await svc.sql`drop function partnerd_commission_occurred_at()`;
    await svc.sql`alter table commissions drop column occurred_at`;
    await svc.sql`drop index clicks_filtered, referrals_started, referral_touches_click`;
    await svc.sql`create index commissions_campaign on commissions (campaign_id, created_at)`;
    await svc.sql`delete from schema_migrations where version = '0033'`;
    expect(await migrate(svc.sql)).toEqual(['0033']);
    const rows = await svc.sql<{ occurred_at: Date; event_at: Date }[]>`
      select c.occurred_at, e.occurred_at as event_at from commissions c join events e on e.id = c.event_id`;
    expect(rows.length).toBeGreaterThanOrEqual(7);
    for (const r of rows) expect(r.occurred_at.getTime()).toBe(r.event_at.getTime());
    // and the pages read the same numbers as before the round trip
    const week = (await sumList(last7())).find((r) => r.id === imported)!;
    expect(week.commissions).toBe(0n);
    // an insert that does not name it (an import, a fixture) gets its event's
    const [written] = await svc.sql<{ occurred_at: Date; event_at: Date }[]>`
      with c as (
        insert into commissions (id, attribution_id, event_id, partner_id, campaign_id, user_id, amount, currency, event_type, holdback_days, rule_source, source_commission_id)
        select ${newId('commission')}, attribution_id, event_id, partner_id, campaign_id, user_id, 1, currency, 'recruit_override', holdback_days, 'campaign', id
        from commissions where partner_id = ${imported} order by id limit 1
        returning event_id, occurred_at
      )
      select c.occurred_at, e.occurred_at as event_at from c join events e on e.id = c.event_id`;
    expect(written!.occurred_at.getTime()).toBe(written!.event_at.getTime());
  });
});
