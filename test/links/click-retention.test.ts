// Clicks partitioned by month (migrations 0050, 0051): the months ahead exist before the redirect
// needs them, and CLICK_RETENTION_DAYS drops whole old months while attributions, commissions and
// every figure over those months (read from the rollups) stay what they were (issue 31).
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test';
import { clickPartitions, dropExpiredClickPartitions, ensureClickPartitions } from '../../src/modules/links/partitions';
import { linkStats, partnerCounts, partnerMoney } from '../../src/modules/reports/partners';
import { campaign, partner } from '../support/chain';
import { click, daysAgo, identify } from '../support/fixtures';
import { startService, type TestService } from '../support/service';

setDefaultTimeout(60_000);

let svc: TestService;
let usd: string;
let ada: string;

beforeAll(async () => {
  svc = await startService();
  usd = await campaign(svc, { rules: [{ eventType: 'purchase', kind: 'percent', percent: 10 }, { eventType: 'invoice_paid', kind: 'percent', percent: 10 }] });
  ada = await partner(svc, 'ada@example.com', [usd]);
}, 60_000);
afterAll(async () => {
  await svc?.stop();
});

test('the redirect writes into this month\'s partition, and the scheduler creates months ahead', async () => {
  const parts = await clickPartitions(svc.sql);
  const month = new Date().toISOString().slice(0, 7).replace('-', 'm');
  expect(parts.map((p) => p.name)).toContain(`clicks_y${month}`);
  // three months ahead already exist; seven months on, four more are made, and a second run makes none
  expect(await ensureClickPartitions(svc.sql)).toBe(0);
  const later = new Date(Date.now() + 7 * 31 * 86_400_000);
  expect(await ensureClickPartitions(svc.sql, 3, later)).toBeGreaterThanOrEqual(4);
  expect(await ensureClickPartitions(svc.sql, 3, later)).toBe(0);
  const id = await click(svc.sql, { partnerId: ada, campaignId: usd });
  const [row] = await svc.sql`select tableoid::regclass::text as part from clicks where id = ${id}`;
  expect(row!.part).toBe(`clicks_y${month}`);
  // each month, existing or made ahead, is analyzed once 1% of it and 10,000 clicks are new (migration 0074)
  const options = await svc.sql<{ name: string; options: string[] }[]>`
    select c.relname as name, c.reloptions as options from click_partitions p join pg_class c on c.relname = p.name where p.name <> 'clicks_legacy'`;
  expect(options.length).toBeGreaterThanOrEqual(8);
  for (const p of options) expect(p).toEqual({ name: p.name, options: ['autovacuum_analyze_scale_factor=0.01', 'autovacuum_analyze_threshold=10000'] });
});

test('dropping the months older than the retention keeps attributions, commissions and the figures', async () => {
  // a customer who clicked 400 days ago and bought then and again 300 days ago; another click 10 days ago
  const old = await click(svc.sql, { partnerId: ada, campaignId: usd, at: daysAgo(400) });
  await identify(svc.sql, 'old-customer', [old]);
  for (const at of [daysAgo(399), daysAgo(300)]) {
    const res = await svc.api('POST', '/v1/events', { body: { userId: 'old-customer', type: 'purchase', amount: 10_000, currency: 'USD', occurredAt: at.toISOString() } });
    expect(res.status).toBe(201);
    expect([...(await svc.sql`select attribution_status from events where id = ${res.body.id}`)]).toEqual([{ attribution_status: "attributed" }]);
  }
  await click(svc.sql, { partnerId: ada, campaignId: usd, at: daysAgo(10) });
  const span = { start: daysAgo(500), end: new Date(Date.now() + 60_000) };
  const before = {
    counts: await partnerCounts(svc.sql, { partnerId: ada, span, previous: null }),
    money: await partnerMoney(svc.sql, { partnerId: ada, span }),
    links: await linkStats(svc.sql, { partnerId: ada, span, currency: 'USD', limit: 10 }),
  };
  expect(before.counts.conversions).toBe(1);
  expect(before.counts.clicks).toBe(3);

  const dropped = await dropExpiredClickPartitions(svc.sql, 365);
  expect(dropped.length).toBeGreaterThan(0);
  // whole months dropped as tables, no row deleted one by one (what keeps it quick; a wall-clock
  // bound said the same but could fail when a loaded machine was slow to commit the DDL)
  const remaining = new Set((await clickPartitions(svc.sql)).map((p) => p.name));
  for (const name of dropped) {
    expect(remaining.has(name)).toBe(false);
    expect((await svc.sql`select to_regclass(${name}) as t`)[0]!.t).toBeNull();
  }
  // the old click is gone with its month; the recent ones stay
  expect(await svc.sql`select 1 from clicks where id = ${old}`).toHaveLength(0);
  const [left] = await svc.sql`select count(*)::int as n from clicks where partner_id = ${ada}`;
  expect(left!.n).toBe(2);
  // attributions and commissions stay, and so does every figure over those months
  const [kept] = await svc.sql`select (select count(*) from attributions where user_id = 'old-customer')::int as a, (select count(*) from commissions where user_id = 'old-customer')::int as c`;
  expect(kept).toEqual({ a: 2, c: 2 });
  expect({
    counts: await partnerCounts(svc.sql, { partnerId: ada, span, previous: null }),
    money: await partnerMoney(svc.sql, { partnerId: ada, span }),
    links: await linkStats(svc.sql, { partnerId: ada, span, currency: 'USD', limit: 10 }),
  }).toEqual(before);
  // a renewal after the click's month is gone is still credited to its partner and its link
  const res = await svc.api('POST', '/v1/events', { body: { userId: 'old-customer', type: 'invoice_paid', amount: 10_000, currency: 'USD' } });
  expect(res.status).toBe(201);
  expect([...(await svc.sql`select attribution_status from events where id = ${res.body.id}`)]).toEqual([{ attribution_status: "attributed" }]);
  const links = await linkStats(svc.sql, { partnerId: ada, span: { start: daysAgo(2), end: new Date(Date.now() + 60_000) }, currency: 'USD', limit: 10 });
  expect(links.reduce((n, l) => n + l.commissions, 0n)).toBe(1_000n);
});
