// The traffic breakdowns' rollups are exact (issue 31, migrations/0061_click_breakdown_rollups.sql):
// after clicks through the redirect (with sub-IDs, countries, devices, browsers, referrers), a bot's
// filtered click, a batch over several days and links, and a repair of a click, the day and month
// rows (clicks, and first sales' conversions) equal a recount of the raw rows, folded or not (and so does the migration's fill of an
// existing install); the traffic pages' breakdowns over whole days (rollups, for the program and a
// campaign) plus today (raw clicks) equal the same breakdowns read from the clicks alone, for every
// scope; and after CLICK_RETENTION_DAYS drops an old month of clicks, the program's and the
// campaign's breakdowns of those days still show.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test';
import { newId } from '../../src/lib/ids';
import { dropExpiredClickPartitions } from '../../src/modules/links/partitions';
import { foldRollups } from '../../src/modules/reports/rollups';
import { trafficBreakdowns, type TrafficScope } from '../../src/modules/reports/traffic';
import { BROWSER_UA, campaign, identify, partner } from '../support/chain';
import { daysAgo } from '../support/fixtures';
import { startService, type TestService } from '../support/service';

setDefaultTimeout(60_000);

const IPHONE_UA =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const BOT_UA = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';

let svc: TestService;
let pro: string;
let team: string;
let ann: string;
let bob: string;
const links: Record<string, { id: string; slug: string; partnerId: string; campaignId: string }> = {};

type Row = Record<string, string | null>;
const key = (r: Row) => [r.day, r.campaign_id, r.dimension, r.value ?? '\u0000'].join('|');
const sorted = (rows: Row[]) => [...rows].map((r) => ({ ...r })).sort((a, b) => (key(a) < key(b) ? -1 : 1));

/** Day rows, month rows and the raw recount by day and by month, in one shape (rows of all zeros left out). */
async function views() {
  const shape = (from: string, day: string, where = 'true') => `
    select * from (select ${day} as day, campaign_id, dimension, value, sum(clicks)::text as clicks, sum(filtered)::text as filtered, sum(conversions)::text as conversions
      from ${from} where ${where} group by 1, 2, 3, 4) d
    where clicks <> '0' or filtered <> '0' or conversions <> '0'`;
  return {
    days: await svc.sql.unsafe<Row[]>(shape('click_breakdown_facts', 'day::text', "unit = 'd'")),
    months: await svc.sql.unsafe<Row[]>(shape('click_breakdown_facts', 'day::text', "unit = 'm'")),
    raw: await svc.sql.unsafe<Row[]>(shape('partnerd_breakdown_recount()', 'day::text')),
    rawMonths: await svc.sql.unsafe<Row[]>(shape('partnerd_breakdown_recount()', "date_trunc('month', day)::date::text")),
  };
}

/** The rollups equal the recount, before and after folding the deltas. */
async function expectExact(what: string) {
  const before = await views();
  expect(before.raw.length).toBeGreaterThan(0);
  expect({ what, rows: sorted(before.days) }).toEqual({ what, rows: sorted(before.raw) });
  expect({ what, rows: sorted(before.months) }).toEqual({ what, rows: sorted(before.rawMonths) });
  await foldRollups(svc.sql);
  const [left] = await svc.sql`select count(*)::int as n from click_breakdown_deltas`;
  expect(left!.n).toBe(0);
  const after = await views();
  expect({ what, rows: sorted(after.days) }).toEqual({ what, rows: sorted(after.raw) });
  expect({ what, rows: sorted(after.months) }).toEqual({ what, rows: sorted(after.rawMonths) });
}

async function visit(slug: string, query: string, headers: Record<string, string>): Promise<string> {
  const res = await fetch(`${svc.url}/r/${slug}${query}`, { redirect: 'manual', headers });
  expect(res.status).toBe(302);
  return new URL(res.headers.get('location')!).searchParams.get('pp_click')!;
}

async function makeLink(name: string, campaignId: string, partnerId: string) {
  const res = await svc.api('POST', '/v1/links', { body: { campaignId, partnerId, slug: name } });
  expect(res.status).toBe(201);
  links[name] = { id: res.body.id, slug: res.body.slug, partnerId, campaignId };
}

type PastClick = { link: string; at: Date; sub?: string; country?: string; device?: string; browser?: string; referrer?: string; filtered?: boolean };

/** Clicks of past days in one statement, as the redirect's click buffer writes a batch. */
async function pastClicks(clicks: PastClick[]): Promise<string[]> {
  const rows = clicks.map((c) => {
    const l = links[c.link]!;
    return {
      id: newId('click', c.at), link_id: l.id, partner_id: l.partnerId, campaign_id: l.campaignId, ip_hash: 'iphash', user_agent: 'test-agent', referrer: null,
      uncredited_reason: c.filtered ? 'bot_click' : null, sub_id: c.sub ?? null, country: c.country ?? null, device: c.device ?? null,
      browser: c.browser ?? null, referrer_domain: c.referrer ?? null,
    };
  });
  await svc.sql`insert into clicks ${svc.sql(rows)}`;
  return rows.map((r) => r.id);
}

const SCOPES = (): [string, TrafficScope][] => [
  ['program', {}],
  ['partner', { partnerId: ann }],
  ['campaign', { campaignId: pro }],
  ['partner in campaign', { partnerId: ann, campaignId: pro }],
  ['link', { linkId: links['ann-main']!.id }],
  ['link of its partner', { partnerId: ann, linkId: links['ann-main']!.id }],
  ['partner without traffic in campaign', { partnerId: bob, campaignId: team }],
];

/** Every scope's breakdowns over `span` as the pages read them (whole days from the rollups), and from the clicks alone. */
async function bothWays(span: { start: Date; end: Date }) {
  const out: { scope: string; pages: unknown; raw: unknown }[] = [];
  for (const [name, scope] of SCOPES()) {
    out.push({
      scope: name,
      pages: await trafficBreakdowns(svc.sql, { scope, span }),
      // `now` before the range: no whole day is "before today", every click is read raw
      raw: await trafficBreakdowns(svc.sql, { scope, span, now: new Date(span.start.getTime() - 86_400_000) }),
    });
  }
  return out;
}

beforeAll(async () => {
  svc = await startService({ TRUST_PROXY: '1' });
  const rules = [{ eventType: 'invoice_paid', kind: 'percent', percent: 20 }];
  pro = await campaign(svc, { name: 'Pro plan', rules });
  team = await campaign(svc, { name: 'Team plan', rules });
  ann = await partner(svc, 'ann@example.com', [pro, team]);
  bob = await partner(svc, 'bob@example.com', [pro, team]);
  await makeLink('ann-main', pro, ann);
  await makeLink('ann-team', team, ann);
  await makeLink('bob-main', pro, bob);
}, 60_000);

afterAll(async () => {
  await svc?.stop();
});

test('clicks of today through the redirect, with sub-IDs and a bot: the rollups equal a recount', async () => {
  const bought = await visit('ann-main', '?sub=newsletter', { 'user-agent': IPHONE_UA, 'x-forwarded-for': '194.25.2.129', referer: 'https://www.google.com/search?q=x' });
  await visit('ann-main', '?sub=newsletter', { 'user-agent': BROWSER_UA, 'x-forwarded-for': '81.2.69.160' });
  await visit('ann-team', '?sub=youtube', { 'user-agent': BROWSER_UA, 'x-forwarded-for': '8.8.8.8', referer: 'https://www.youtube.com/watch?v=1' });
  // a bot's click is counted apart (filtered), never in a bucket's clicks
  await visit('ann-main', '?sub=bots-only', { 'user-agent': BOT_UA, 'x-forwarded-for': '66.249.66.1' });
  await visit('bob-main', '', { 'user-agent': BROWSER_UA, 'x-forwarded-for': '194.25.2.130', referer: 'https://bob.example/' });
  await svc.ctx.links.clicks.flush();
  await identify(svc, 'cust-1', [bought]);
  expect((await svc.api('POST', '/v1/events', { body: { userId: 'cust-1', type: 'invoice_paid', amount: 5000, currency: 'USD' } })).status).toBe(201);

  const [filtered] = await svc.sql`
    select sum(filtered)::int as filtered, sum(clicks)::int as clicks from click_breakdown_facts
    where unit = 'd' and campaign_id = '' and dimension = 'sub' and value = 'bots-only'`;
  expect(filtered).toEqual({ filtered: 1, clicks: 0 });
  await expectExact('redirect clicks of today');
});

test('a batch over several days and links, and a repaired click: exact, folded or not; the pages read the same as the clicks', async () => {
  const ids = await pastClicks([
    { link: 'ann-main', at: daysAgo(1), sub: 'newsletter', country: 'DE', device: 'mobile', browser: 'Safari', referrer: 'google.com' },
    { link: 'ann-main', at: daysAgo(1), sub: 'newsletter', country: 'DE', device: 'desktop', browser: 'Chrome' },
    { link: 'ann-main', at: daysAgo(3), sub: 'youtube', country: 'US', device: 'desktop', browser: 'Firefox', referrer: 'youtube.com' },
    { link: 'ann-main', at: daysAgo(3), country: 'US', filtered: true },
    { link: 'ann-team', at: daysAgo(3), sub: 'newsletter', country: 'GB', device: 'tablet', browser: 'Safari' },
    { link: 'bob-main', at: daysAgo(40), sub: 'bob-secret', country: 'FR', device: 'mobile', browser: 'Chrome', referrer: 'bob.example' },
    { link: 'ann-main', at: daysAgo(70), sub: 'podcast', country: 'CA', device: 'desktop', browser: 'Edge', referrer: 'spotify.com' },
    { link: 'ann-main', at: daysAgo(70), sub: 'podcast' },
  ]);
  await expectExact('a batch of past clicks');

  // first sales of past days through those clicks (and a renewal, never a conversion): a customer
  // through Ann's youtube click, one through two clicks of hers (a split sale: once in each bucket)
  await identify(svc, 'cust-2', [ids[2]!]);
  await identify(svc, 'cust-3', [ids[0]!, ids[4]!]);
  for (const [userId, at] of [['cust-2', daysAgo(2)], ['cust-2', daysAgo(1)], ['cust-3', daysAgo(1)]] as const) {
    const res = await svc.api('POST', '/v1/events', { body: { userId, type: 'invoice_paid', amount: 2000, currency: 'USD', occurredAt: at.toISOString() } });
    expect(res.status).toBe(201);
  }
  await expectExact('first sales of past days');

  // a repair (the service never changes a click): a credited click found to be a bot's, and a sub-ID corrected
  await svc.sql`update clicks set uncredited_reason = 'bot_click' where id = ${ids[1]!}`;
  await svc.sql`update clicks set sub_id = 'podcast-ep1' where id = ${ids[7]!}`;
  await expectExact('repaired clicks');

  // more clicks after the fold: some deltas unfolded over folded rows
  await pastClicks([
    { link: 'ann-main', at: daysAgo(1), sub: 'newsletter', country: 'DE', device: 'mobile', browser: 'Safari', referrer: 'google.com' },
    { link: 'bob-main', at: daysAgo(2), sub: 'newsletter', country: 'DE', device: 'mobile', browser: 'Safari' },
  ]);
  const span = { start: daysAgo(365), end: new Date(Date.now() + 60_000) };
  const unfolded = await bothWays(span);
  await expectExact('clicks after a fold');
  const folded = await bothWays(span);
  for (const both of [...unfolded, ...folded]) expect({ scope: both.scope, breakdowns: both.pages }).toEqual({ scope: both.scope, breakdowns: both.raw });

  // what the page shows over the year for Ann on the Pro plan: whole days and today together
  const annPro = folded.find((b) => b.scope === 'partner in campaign')!.pages as Awaited<ReturnType<typeof trafficBreakdowns>>;
  const sub = annPro.find((b) => b.dimension === 'sub')!;
  expect(sub.rows).toEqual([
    // today two (one bought), days ago one more on day 1 (the other became a bot's; cust-3 bought) and one more after the fold
    { value: 'newsletter', clicks: 4, conversions: 2 },
    { value: 'youtube', clicks: 1, conversions: 1 },
    { value: 'podcast', clicks: 1, conversions: 0 },
    { value: 'podcast-ep1', clicks: 1, conversions: 0 },
  ]);
  // the campaign's, whole days from the rollups: Bob's newsletter click too; cust-3's other click was on the Team plan
  const proSub = (folded.find((b) => b.scope === 'campaign')!.pages as Awaited<ReturnType<typeof trafficBreakdowns>>).find((b) => b.dimension === 'sub')!;
  expect(proSub.rows.slice(0, 2)).toEqual([
    { value: 'newsletter', clicks: 5, conversions: 2 },
    { value: 'youtube', clicks: 1, conversions: 1 },
  ]);
  // a range starting mid-day: a part-day read raw, whole days from the rollups, today raw
  const midDay = { start: new Date(daysAgo(3).getTime() - 3_600_000), end: new Date(Date.now() + 60_000) };
  for (const both of await bothWays(midDay)) expect({ scope: both.scope, breakdowns: both.pages }).toEqual({ scope: both.scope, breakdowns: both.raw });
});

test('a batch across midnight: each click counts on its own UTC day, in the breakdowns and in the rollups', async () => {
  // the triggers work out a batch's days once per millisecond (migration 0073): 1 ms either side of a midnight
  const midnight = new Date(Math.floor(daysAgo(5).getTime() / 86_400_000) * 86_400_000);
  const before = new Date(midnight.getTime() - 1);
  await pastClicks([
    { link: 'bob-main', at: before, sub: 'midnight', country: 'NZ', device: 'mobile', browser: 'Safari', referrer: 'late.example' },
    { link: 'bob-main', at: before, sub: 'midnight', country: 'NZ', filtered: true },
    { link: 'bob-main', at: midnight, sub: 'midnight', country: 'AU', device: 'desktop', browser: 'Chrome', referrer: 'early.example' },
    { link: 'bob-main', at: new Date(midnight.getTime() + 86_400_000 - 1), sub: 'midnight', country: 'AU', device: 'desktop' },
  ]);
  await expectExact('a batch across midnight');
  const rows = await svc.sql<{ day: string; dimension: string; value: string | null; clicks: number; filtered: number }[]>`
    select day::text, dimension, value, sum(clicks)::int as clicks, sum(filtered)::int as filtered from click_breakdown_facts
    where unit = 'd' and campaign_id = '' and day in (${before.toISOString().slice(0, 10)}::date, ${midnight.toISOString().slice(0, 10)}::date)
      and ((dimension = 'sub' and value = 'midnight') or (dimension = 'country' and value in ('NZ', 'AU')))
    group by 1, 2, 3 order by 1, 2, 3`;
  expect([...rows]).toEqual([
    { day: before.toISOString().slice(0, 10), dimension: 'country', value: 'NZ', clicks: 1, filtered: 1 },
    { day: before.toISOString().slice(0, 10), dimension: 'sub', value: 'midnight', clicks: 1, filtered: 1 },
    { day: midnight.toISOString().slice(0, 10), dimension: 'country', value: 'AU', clicks: 2, filtered: 0 },
    { day: midnight.toISOString().slice(0, 10), dimension: 'sub', value: 'midnight', clicks: 2, filtered: 0 },
  ]);
  // the link's own rollup rows: the same split
  const link = await svc.sql<{ day: string; clicks: number; filtered: number }[]>`
    select day::text, sum(clicks)::int as clicks, sum(filtered)::int as filtered from rollup_facts
    where unit = 'd' and link_id = ${links['bob-main']!.id} and currency = '' and day in (${before.toISOString().slice(0, 10)}::date, ${midnight.toISOString().slice(0, 10)}::date)
    group by 1 order by 1`;
  expect([...link]).toEqual([
    { day: before.toISOString().slice(0, 10), clicks: 1, filtered: 1 },
    { day: midnight.toISOString().slice(0, 10), clicks: 2, filtered: 0 },
  ]);
});

test("an existing install: the migration's own fill from the clicks there are equals the recount", async () => {
  const text = await Bun.file(new URL('../../migrations/0061_click_breakdown_rollups.sql', import.meta.url)).text();
  const fill = text.slice(text.lastIndexOf('insert into click_breakdowns'));
  const rollback = new Error('rollback');
  await svc.sql
    .begin(async (tx) => {
      await tx`delete from click_breakdowns`;
      await tx`delete from click_breakdown_deltas`;
      await tx.unsafe(fill);
      const shape = (from: string, day: string, where = 'true') => `
        select ${day} as day, campaign_id, dimension, value, sum(clicks)::text as clicks, sum(filtered)::text as filtered, sum(conversions)::text as conversions
        from ${from} where ${where} group by 1, 2, 3, 4`;
      const days = await tx.unsafe<Row[]>(shape('click_breakdowns', 'day::text', "unit = 'd'"));
      const months = await tx.unsafe<Row[]>(shape('click_breakdowns', 'day::text', "unit = 'm'"));
      expect(days.length).toBeGreaterThan(0);
      expect(sorted(days)).toEqual(sorted(await tx.unsafe<Row[]>(shape('partnerd_breakdown_recount()', 'day::text'))));
      expect(sorted(months)).toEqual(sorted(await tx.unsafe<Row[]>(shape('partnerd_breakdown_recount()', "date_trunc('month', day)::date::text"))));
      throw rollback;
    })
    .catch((e) => {
      if (e !== rollback) throw e;
    });
});

test("after the retention drops an old month of clicks, its days still show in the program's and the campaign's breakdowns", async () => {
  await pastClicks([
    { link: 'ann-main', at: daysAgo(400), sub: 'old-campaign', country: 'JP', device: 'desktop', browser: 'Chrome', referrer: 'old.example' },
    { link: 'bob-main', at: daysAgo(400), sub: 'old-campaign', country: 'JP', device: 'mobile', browser: 'Safari' },
    { link: 'ann-main', at: daysAgo(401), filtered: true, sub: 'old-campaign' },
  ]);
  // a customer who came through the old JP desktop click and bought the next day
  const [oldClick] = await svc.sql<{ id: string; at: Date }[]>`select id, created_at as at from clicks where sub_id = 'old-campaign' and device = 'desktop'`;
  await identify(svc, 'cust-old', [oldClick!.id]);
  const sale = await svc.api('POST', '/v1/events', { body: { userId: 'cust-old', type: 'invoice_paid', amount: 2000, currency: 'USD', occurredAt: new Date(oldClick!.at.getTime() + 60_000).toISOString() } });
  expect(sale.status).toBe(201);
  await expectExact('old clicks and a first sale');
  const span = { start: daysAgo(500), end: new Date(Date.now() + 60_000) };
  const before = { program: await trafficBreakdowns(svc.sql, { scope: {}, span }), pro: await trafficBreakdowns(svc.sql, { scope: { campaignId: pro }, span }) };
  expect(before.pro.find((b) => b.dimension === 'country')!.rows).toContainEqual({ value: 'JP', clicks: 2, conversions: 1 });

  const dropped = await dropExpiredClickPartitions(svc.sql, 365);
  expect(dropped.length).toBeGreaterThan(0);
  const [left] = await svc.sql`select count(*)::int as n from clicks where sub_id = 'old-campaign'`;
  expect(left!.n).toBe(0);
  // the pages' breakdowns are what they were: the old days come from the rollups
  expect({ program: await trafficBreakdowns(svc.sql, { scope: {}, span }), pro: await trafficBreakdowns(svc.sql, { scope: { campaignId: pro }, span }) }).toEqual(before);
  // whole days only, so nothing of the range is read from the (dropped) clicks
  const days = { start: new Date(Math.floor(daysAgo(402).getTime() / 86_400_000) * 86_400_000), end: new Date(Math.floor(daysAgo(398).getTime() / 86_400_000) * 86_400_000) };
  const old = await trafficBreakdowns(svc.sql, { scope: { campaignId: pro }, span: days });
  expect(old.find((b) => b.dimension === 'sub')!.rows).toEqual([{ value: 'old-campaign', clicks: 2, conversions: 1 }]);
  expect(old.find((b) => b.dimension === 'referrer')!.rows).toEqual([
    { value: 'old.example', clicks: 1, conversions: 1 },
    { value: null, clicks: 1, conversions: 0 },
  ]);
  // a link's breakdown reads its clicks: what the retention dropped is gone from it
  const link = await trafficBreakdowns(svc.sql, { scope: { linkId: links['ann-main']!.id }, span: days });
  expect(link.find((b) => b.dimension === 'sub')!.rows).toEqual([]);
});
