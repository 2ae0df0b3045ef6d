// An install from before clicks were partitioned upgrades in place (migrations 0050, 0051; issue 31):
// a database migrated to 0049 with a year of clicks and a commission on one of them is brought up to
// date by the real runner while a click is written, then checked the way an operator would; last,
// CLICK_RETENTION_DAYS drops the old table whole.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test';
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { openSql, type Sql } from '../../src/db';
import { listMigrations, migrate } from '../../src/db/migrate';
import { idFloor, newId } from '../../src/lib/ids';
import { clickPartitions, dropExpiredClickPartitions } from '../../src/modules/links/partitions';
import { foldRollups } from '../../src/modules/reports/rollups';
import { linkStats, partnerCounts, partnerMoney } from '../../src/modules/reports/partners';
import { eventually } from '../support/eventually';
import { daysAgo } from '../support/fixtures';
import { createTestDatabase } from '../support/postgres';
import { startService, type TestService } from '../support/service';

setDefaultTimeout(30_000);

/** Applies the migrations numbered below `version`: the real runner, given a folder of just those files. */
async function migrateBelow(sql: Sql, version: string): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), 'partnerd-migrations-'));
  try {
    for (const m of await listMigrations()) if (m.version < version) await symlink(m.file, join(dir, basename(m.file)));
    return await migrate(sql, dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The first click id of the month after next (UTC) of `at`: the old table's bound on an install with clicks. */
const boundOf = (at: Date) => idFloor('click', Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 2, 1));

// the columns the clicks, attributions and commissions had before the upgrade
const CLICK_COLUMNS = ['id', 'link_id', 'partner_id', 'campaign_id', 'ip_hash', 'user_agent', 'referrer', 'created_at', 'uncredited_reason'];
const ATTRIBUTION_COLUMNS = ['id', 'event_id', 'user_id', 'click_id', 'partner_id', 'campaign_id', 'model', 'weight', 'created_at', 'occurred_at'];
const COMMISSION_COLUMNS = ['id', 'attribution_id', 'event_id', 'partner_id', 'user_id', 'amount', 'currency', 'status', 'approved_at', 'created_at', 'occurred_at'];

let url: string;
let sql: Sql;
let svc: TestService;
const ids = { partner: newId('partner'), campaign: newId('campaign'), link: newId('link'), slug: `up${Date.now().toString(36)}` };
const oldClicks: string[] = [];
type Rows = Record<string, unknown>[];
let before: { clicks: Rows; attributions: Rows; commissions: Rows; files: Record<string, string> };
let upgradeStarted: Date;
let duringValidate: string;

const byId = async (table: string, columns: string[]): Promise<Rows> => [...(await sql<Rows>`select ${sql(columns)} from ${sql(table)} order by id`)];

/** Where each relation of the clicks keeps its rows on disk: a rewritten table or rebuilt index gets a new file. */
async function files(names: string[]): Promise<Record<string, string>> {
  const rows = await sql<{ name: string; file: string }[]>`
    select n.name, pg_relation_filenode(n.name::regclass)::text as file from unnest(${names}::text[]) as n(name)`;
  return Object.fromEntries(rows.map((r) => [r.name, r.file]));
}

/** A sale by `userId` through `clickId`, attributed and commissioned as the service did before the upgrade. */
async function sale(input: { userId: string; clickId: string; at: Date; amount: number; status: 'accrued' | 'approved' }) {
  const event = newId('event', input.at);
  const attribution = newId('attribution', input.at);
  await sql.begin(async (tx) => {
    await tx`insert into identities (user_id) values (${input.userId})`;
    await tx`insert into identity_clicks (user_id, click_id) values (${input.userId}, ${input.clickId})`;
    await tx`
      insert into events (id, user_id, type, amount, currency, occurred_at, attribution_status, attribution_model)
      values (${event}, ${input.userId}, 'purchase', ${input.amount}, 'USD', ${input.at}, 'attributed', 'last_click')`;
    await tx`insert into referrals (user_id, model, started_at) values (${input.userId}, 'last_click', ${input.at})`;
    await tx`
      insert into referral_touches (user_id, position, click_id, partner_id, campaign_id, weight_num, weight_den)
      values (${input.userId}, 0, ${input.clickId}, ${ids.partner}, ${ids.campaign}, 1, 1)`;
    await tx`
      insert into attributions (id, event_id, user_id, click_id, partner_id, campaign_id, model, weight)
      values (${attribution}, ${event}, ${input.userId}, ${input.clickId}, ${ids.partner}, ${ids.campaign}, 'last_click', 1)`;
    await tx`
      insert into commissions (id, attribution_id, event_id, partner_id, campaign_id, user_id, amount, currency, event_type, event_value, status, holdback_days, approved_at)
      values (${newId('commission', input.at)}, ${attribution}, ${event}, ${ids.partner}, ${ids.campaign}, ${input.userId}, ${input.amount / 10}, 'USD',
        'purchase', ${input.amount}, ${input.status}, 30, ${input.status === 'approved' ? input.at : null})`;
  });
}

beforeAll(async () => {
  const database = await createTestDatabase(await globalThis.__partnerdTestServer!, { empty: true });
  ({ url, sql } = database);

  // 1. the install as it was: migrated to 0049
  const applied = await migrateBelow(sql, '0050');
  expect(applied.at(-1)).toBe('0049');

  // 2. its rows: clicks over 14 months (older than a year, months ago, this week, today), one of them
  //    filtered as a bot, and two customers whose sales were credited through clicks 400 and 40 days ago
  await sql`insert into partners (id, email, name, activated_at) values (${ids.partner}, 'ada@example.com', 'Ada', now())`;
  await sql`insert into campaigns (id, name, destination_url, currency) values (${ids.campaign}, 'Program', 'https://shop.example/landing', 'USD')`;
  await sql`insert into partner_campaigns (partner_id, campaign_id) values (${ids.partner}, ${ids.campaign})`;
  await sql`insert into links (id, slug, partner_id, campaign_id) values (${ids.link}, ${ids.slug}, ${ids.partner}, ${ids.campaign})`;
  for (const [days, reason] of [[420, null], [400, null], [370, null], [200, null], [95, null], [40, null], [40, 'bot_click'], [3, null], [0, null]] as const) {
    const id = newId('click', daysAgo(days));
    oldClicks.push(id);
    await sql`
      insert into clicks (id, link_id, partner_id, campaign_id, ip_hash, user_agent, referrer, uncredited_reason)
      values (${id}, ${ids.link}, ${ids.partner}, ${ids.campaign}, ${`hash-${days}`}, 'Mozilla/5.0 (Macintosh)', ${days % 2 ? 'https://blog.example/post' : null}, ${reason})`;
  }
  await sale({ userId: 'old-customer', clickId: oldClicks[1]!, at: daysAgo(399), amount: 10_000, status: 'approved' });
  await sale({ userId: 'recent-customer', clickId: oldClicks[5]!, at: daysAgo(39), amount: 20_000, status: 'accrued' });
  before = {
    clicks: await byId('clicks', CLICK_COLUMNS),
    attributions: await byId('attributions', ATTRIBUTION_COLUMNS),
    commissions: await byId('commissions', COMMISSION_COLUMNS),
    files: await files(['clicks', 'clicks_pkey', 'clicks_link', 'clicks_partner', 'clicks_filtered']),
  };

  // 3. the upgrade: 0050, then the rest by the runner as the service runs it at start. 0051 first
  //    validates the bound over the whole old table (seconds on a big one); another session holding
  //    the lock VALIDATE takes keeps 0051 at that step, as a long scan would, while a click is written.
  upgradeStarted = new Date();
  expect(await migrateBelow(sql, '0051')).toEqual(['0050']);
  const holder = openSql(url, { max: 1 });
  const writer = openSql(url, { max: 1 });
  let locked!: () => void;
  let release!: () => void;
  const isLocked = new Promise<void>((ok) => (locked = ok));
  const released = new Promise<void>((ok) => (release = ok));
  const holding = holder.begin(async (tx) => {
    await tx`lock table clicks in share update exclusive mode`;
    locked();
    await released;
  });
  await isLocked;
  const upgrading = migrate(sql);
  try {
    await eventually(async () => {
      const waiting = await writer`select mode from pg_locks where relation = 'clicks'::regclass and not granted`;
      expect([...waiting]).toEqual([{ mode: 'ShareUpdateExclusiveLock' }]);
    });
    const clickId = newId('click');
    await writer.begin(async (tx) => {
      // a write the migration blocked fails here rather than hang: the migration waits for the holder, the holder for us
      await tx`set local lock_timeout = '5s'`;
      await tx`
        insert into clicks (id, link_id, partner_id, campaign_id, ip_hash, user_agent, referrer)
        values (${clickId}, ${ids.link}, ${ids.partner}, ${ids.campaign}, 'hash-during', 'Mozilla/5.0 (iPhone)', null)`;
    });
    duringValidate = clickId;
  } finally {
    release();
    await holding;
    await upgrading;
    await holder.end();
    await writer.end();
  }
  expect(await migrate(sql)).toEqual([]);

  svc = await startService({}, { database });
}, 60_000);
afterAll(async () => {
  await svc?.stop();
});

test('a click written while 0051 validates the old table is not held up, and the old table is attached as it was, not copied or re-indexed', async () => {
  // the insert during VALIDATE went through (beforeAll) and its click is kept
  const [during] = await sql`select id from clicks where id = ${duringValidate}`;
  expect(during).toBeDefined();
  // after VALIDATE the upgrade holds the lock that stops click writes only for catalog changes: the
  // old table keeps its file (no rewrite), its indexes theirs (the parent's adopted them, none was
  // built), and the bound is a validated constraint (the attach proved it without a second scan)
  expect(await files(['clicks_legacy', 'clicks_legacy_pkey', 'clicks_legacy_link', 'clicks_legacy_partner', 'clicks_legacy_filtered'])).toEqual({
    clicks_legacy: before.files.clicks!,
    clicks_legacy_pkey: before.files.clicks_pkey!,
    clicks_legacy_link: before.files.clicks_link!,
    clicks_legacy_partner: before.files.clicks_partner!,
    clicks_legacy_filtered: before.files.clicks_filtered!,
  });
  const [bound] = await sql`select convalidated from pg_constraint where conname = 'clicks_legacy_bound' and conrelid = 'clicks_legacy'::regclass`;
  expect(bound).toEqual({ convalidated: true });
  const adopted = await sql`
    select c.relname::text as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
    where i.inhparent in ('clicks_pkey'::regclass, 'clicks_link'::regclass, 'clicks_partner'::regclass, 'clicks_filtered'::regclass)
      and c.relname like 'clicks_legacy%' order by 1`;
  expect(adopted.map((r) => r.name)).toEqual(['clicks_legacy_filtered', 'clicks_legacy_link', 'clicks_legacy_partner', 'clicks_legacy_pkey']);
});

test('every click is still there with the same columns, in the old table below its bound; later months get partitions of their own', async () => {
  const after = await byId('clicks', CLICK_COLUMNS);
  expect(after).toHaveLength(before.clicks.length + 1);
  expect(after.filter((c) => c.id !== duringValidate)).toEqual(before.clicks);
  // the columns added since (sub-ID, country, device, browser, referrer domain) are unknown on old clicks
  const added = await sql`select count(*)::int as n from clicks where coalesce(sub_id, country, device, browser, referrer_domain) is not null`;
  expect(added[0]!.n).toBe(0);

  // the old table holds every id below the first of the month after next (the month the upgrade ran
  // and the next are still written to it); each month from there has its partition, made ahead
  const parts = await clickPartitions(sql);
  expect(parts[0]!.name).toBe('clicks_legacy');
  expect([boundOf(upgradeStarted), boundOf(new Date())]).toContain(idFloor('click', parts[0]!.endsAt));
  const homes = await sql`select id, tableoid::regclass::text as part from clicks order by id`;
  expect(new Set(homes.map((r) => r.part))).toEqual(new Set(['clicks_legacy']));
  expect(parts.length).toBeGreaterThanOrEqual(3);
  for (const [i, p] of parts.slice(1).entries()) {
    const start = parts[i]!.endsAt;
    expect(p.name).toBe(`clicks_y${start.toISOString().slice(0, 4)}m${start.toISOString().slice(5, 7)}`);
    expect(p.endsAt.getTime()).toBe(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
  }
  // a click minted in the first month past the bound lands in that month's partition (and is counted)
  const future = newId('click', parts[1]!.endsAt.getTime() - 86_400_000);
  await sql`insert into clicks (id, link_id, partner_id, campaign_id) values (${future}, ${ids.link}, ${ids.partner}, ${ids.campaign})`;
  const [home] = await sql`select tableoid::regclass::text as part from clicks where id = ${future}`;
  expect(home!.part).toBe(parts[1]!.name);
});

test('the share link still redirects and records its click', async () => {
  const res = await fetch(`${svc.url}/r/${ids.slug}`, { redirect: 'manual', headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64)' } });
  expect(res.status).toBe(302);
  const clickId = new URL(res.headers.get('location')!).searchParams.get('pp_click')!;
  const row = await eventually(async () => {
    const [row] = await sql`select link_id, partner_id, campaign_id, tableoid::regclass::text as part from clicks where id = ${clickId}`;
    expect(row).toBeDefined();
    return row!;
  });
  expect(row).toEqual({ link_id: ids.link, partner_id: ids.partner, campaign_id: ids.campaign, part: 'clicks_legacy' });
});

test('the rollups count the old clicks: the partner\'s figures and the link\'s equal a recount, folded or not', async () => {
  await eventually(async () => {
    const [n] = await sql`select count(*)::int as n from clicks where created_at <= now()`;
    expect(n!.n).toBe(oldClicks.length + 2);
  });
  const span = { start: daysAgo(500), end: new Date(Date.now() + 60_000) };
  // 9 old clicks, one a bot's, the one written during the upgrade and the redirect's; two of them a sale's touch
  const expected = { clicks: 10, filteredClicks: 1, convertedClicks: 2, conversions: 2, previous: null };
  expect(await partnerCounts(sql, { partnerId: ids.partner, span, previous: null })).toEqual(expected);
  const [link] = await linkStats(sql, { partnerId: ids.partner, span, currency: 'USD', limit: 10 });
  expect({ clicks: link!.clicks, commissions: link!.commissions }).toEqual({ clicks: 10, commissions: 3_000n });

  const recount = async () => {
    const sums = (from: string) => sql.unsafe(`
      select * from (select day::text, partner_id, campaign_id, link_id, currency, sum(clicks)::int as clicks, sum(filtered)::int as filtered,
        sum(converted)::int as converted, sum(customers)::int as customers, sum(earned)::text as earned
        from ${from} group by 1, 2, 3, 4, 5) d where clicks <> 0 or filtered <> 0 or converted <> 0 or customers <> 0 or earned <> '0'
      order by 1, 2, 3, 4, 5`);
    expect([...(await sums(`rollup_facts where unit = 'd'`))]).toEqual([...(await sums('partnerd_rollup_recount()'))]);
    const breakdowns = (from: string) => sql.unsafe(`
      select day::text, campaign_id, dimension, value, sum(clicks)::int as clicks, sum(filtered)::int as filtered, sum(conversions)::int as conversions
      from ${from} group by 1, 2, 3, 4 having sum(clicks) <> 0 or sum(filtered) <> 0 or sum(conversions) <> 0 order by 1, 2, 3, 4`);
    expect([...(await breakdowns(`click_breakdown_facts where unit = 'd'`))]).toEqual([...(await breakdowns('partnerd_breakdown_recount()'))]);
  };
  await recount();
  await foldRollups(sql);
  await recount();
  expect(await partnerCounts(sql, { partnerId: ids.partner, span, previous: null })).toEqual(expected);
});

test('attributions and commissions are untouched, and their clicks still name their link', async () => {
  expect(await byId('attributions', ATTRIBUTION_COLUMNS)).toEqual(before.attributions);
  expect(await byId('commissions', COMMISSION_COLUMNS)).toEqual(before.commissions);
  const touches = await sql`select t.user_id, t.link_id, c.id as click from referral_touches t join clicks c on c.id = t.click_id order by 1`;
  expect(touches.map((t) => [t.user_id, t.link_id, t.click])).toEqual([
    ['old-customer', ids.link, oldClicks[1]],
    ['recent-customer', ids.link, oldClicks[5]],
  ]);
});

test('CLICK_RETENTION_DAYS drops the old table whole once its bound is older, and the figures over those days stay', async () => {
  // today reads raw rows, so compare whole days. The old table goes in one piece once its bound is
  // older than the retention (docs/analytics.md): until then its clicks older than a year stay.
  const today = new Date(new Date().toISOString().slice(0, 10));
  const span = { start: daysAgo(500), end: today };
  const figures = async () => ({
    counts: await partnerCounts(sql, { partnerId: ids.partner, span, previous: null }),
    money: await partnerMoney(sql, { partnerId: ids.partner, span }),
  });
  const kept = await figures();
  expect(kept.counts.clicks).toBe(7);
  expect(await dropExpiredClickPartitions(sql, 365)).toEqual([]);
  expect(await sql`select id from clicks where id = ${oldClicks[0]!}`).toHaveLength(1);

  const [legacy] = await clickPartitions(sql);
  expect(await dropExpiredClickPartitions(sql, 365, new Date(legacy!.endsAt.getTime() + 366 * 86_400_000))).toEqual(['clicks_legacy']);
  const [left] = await sql`select count(*)::int as n from clicks`;
  expect(left!.n).toBe(1); // the click of the first month past the bound
  expect(await figures()).toEqual(kept);
  expect(await byId('attributions', ATTRIBUTION_COLUMNS)).toEqual(before.attributions);
  expect(await byId('commissions', COMMISSION_COLUMNS)).toEqual(before.commissions);
});
