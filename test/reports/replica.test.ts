// DATABASE_REPLICA_URL against a real streaming standby (test/support/standby.ts): the dashboard's
// figures and the exports are read from the standby while it is current (proved by pausing its
// replay: the pages keep the old figure the primary has already moved past), from the primary once
// its lag passes DATABASE_REPLICA_MAX_LAG_SECONDS or it is down, and from the standby again once it
// is back and caught up. /metrics says which one is in use.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test';
import { ConfigError, loadConfig } from '../../src/config';
import { openSql, type Sql } from '../../src/db';
import { migrate } from '../../src/db/migrate';
import { createSession, SESSION_COOKIE } from '../../src/modules/auth/sessions';
import { referredUser } from '../support/chain';
import { eventually } from '../support/eventually';
import { startService, type TestService } from '../support/service';
import { startReplicatedPair, type ReplicatedPair } from '../support/standby';

setDefaultTimeout(120_000);

const ADMIN = 'ops@example.com';
// the pages must be read while the paused standby's lag is under this bound (see readsComeFromStandby):
// wide enough for a sale and two pages on a slow, loaded machine
const MAX_LAG = 12;

let pair: ReplicatedPair;
let primary: Sql;
let standby: Sql;
let svc: TestService;
let cookie: string;
let partnerId: string;
let sales = 0;

beforeAll(async () => {
  pair = await startReplicatedPair();
  primary = openSql(pair.primary.url, { max: 10 });
  await migrate(primary);
  standby = openSql(pair.standby.url, { max: 1, connectTimeoutSeconds: 2 });
  svc = await startService(
    { ADMIN_EMAILS: ADMIN, DATABASE_REPLICA_URL: pair.standby.url, DATABASE_REPLICA_MAX_LAG_SECONDS: String(MAX_LAG) },
    { database: { url: pair.primary.url, sql: primary, drop: () => primary.end({ timeout: 1 }) } },
  );
  cookie = `${SESSION_COOKIE}=${(await createSession(svc.sql, { kind: 'admin', email: ADMIN })).token}`;
  const chain = await referredUser(svc, { rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 10 }], userId: 'replica-user' });
  partnerId = chain.partnerId;
});

afterAll(async () => {
  await svc?.stop();
  await standby?.end({ timeout: 1 });
  await pair?.destroy();
});

/** A sale of `dollars` through the API (written on the primary). */
async function sale(dollars: number) {
  const res = await svc.api('POST', '/v1/events', { body: { userId: 'replica-user', type: 'invoice_paid', amount: dollars * 100, currency: 'USD' } });
  sales++;
  expect(res.status).toBe(201);
}

/** The partner's revenue as the admin sees it: the partners CSV export and the overview page. */
async function shown(): Promise<{ csv: string; overview: string }> {
  const csvRes = await fetch(`${svc.url}/admin/partners.csv?range=7d`, { headers: { cookie } });
  expect(csvRes.status).toBe(200);
  const [header, ...rows] = (await csvRes.text()).trim().split('\r\n').map((l) => l.split(','));
  const row = rows.find((r) => r[header!.indexOf('id')] === partnerId)!;
  const page = await fetch(`${svc.url}/admin?range=7d`, { headers: { cookie } });
  expect(page.status).toBe(200);
  const html = await page.text();
  // the "Attributed revenue" card
  const card = html.slice(html.indexOf('id="kpi-revenue"'));
  const overview = card.match(/<span class="value">([^<]*)<\/span>/)?.[1] ?? '';
  return { csv: row[header!.indexOf('revenue')]!, overview };
}

async function onReplica(): Promise<number> {
  const text = await (await fetch(`${svc.url}/metrics`)).text();
  return Number(text.match(/^partnerd_report_reads_on_replica (\S+)$/m)?.[1]);
}

const primaryRevenue = async () => {
  const [row] = await primary`select coalesce(sum(amount), 0)::int / 100 as dollars from events where user_id = 'replica-user'`;
  return Number(row!.dollars);
};

/**
 * Proves the pages read the standby: with its replay paused just after it caught up, a new sale is
 * on the primary but the pages (the lag still under the bound) keep the figure before it.
 */
async function readsComeFromStandby(before: number, add: number) {
  // a commit the standby replays just before the pause: its lag is measured from there
  await primary`select txid_current()`;
  await pair.caughtUp();
  await standby`select pg_wal_replay_pause()`;
  const started = Date.now();
  await sale(add);
  expect(await primaryRevenue()).toBe(before + add);
  const stale = await shown();
  expect(Date.now() - started).toBeLessThan(MAX_LAG * 1000);
  expect(stale.csv).toBe(before.toFixed(2));
  expect(stale.overview).toBe(`${before.toFixed(2)} USD`);
  expect(await onReplica()).toBe(1);
}

test('dashboard and export reads follow the standby while it is current, the primary while it lags or is down', async () => {
  // 1. up and current: the pages show what the standby has replayed
  await sale(100);
  await pair.caughtUp();
  await eventually(async () => expect(await shown()).toEqual({ csv: '100.00', overview: '100.00 USD' }), { timeout: 10_000, interval: 200 });
  await eventually(async () => {
    await shown();
    expect(await onReplica()).toBe(1);
  }, { timeout: 10_000, interval: 200 });

  // 2. replay paused: the figure stays at the standby's while its lag is under the bound ...
  await readsComeFromStandby(100, 50);
  // ... and once the lag passes it, the pages read the primary and show the new sale
  await eventually(async () => expect(await shown()).toEqual({ csv: '150.00', overview: '150.00 USD' }), { timeout: MAX_LAG * 1000 + 20_000, interval: 250 });
  expect(await onReplica()).toBe(0);

  // 3. replay resumed: the standby catches up and is used again
  await standby`select pg_wal_replay_resume()`;
  await pair.caughtUp();
  await eventually(async () => {
    await shown();
    expect(await onReplica()).toBe(1);
  }, { timeout: 10_000, interval: 200 });
  await readsComeFromStandby(150, 25);
  await standby`select pg_wal_replay_resume()`;
  await pair.caughtUp();

  // 4. standby down: every page still answers, from the primary, with the latest figure
  await pair.standby.stop();
  await sale(25);
  // the very first request after it went away already answers (its connection error is retried on the primary)
  expect(await shown()).toEqual({ csv: '200.00', overview: '200.00 USD' });
  expect(await onReplica()).toBe(0);
  expect(await primaryRevenue()).toBe(200);

  // 5. standby back: once it has caught up the reads go to it again
  await pair.standby.start();
  await pair.caughtUp();
  await eventually(async () => {
    expect(await shown()).toEqual({ csv: '200.00', overview: '200.00 USD' });
    expect(await onReplica()).toBe(1);
  }, { timeout: 20_000, interval: 250 });
  await readsComeFromStandby(200, 10);
  await standby`select pg_wal_replay_resume()`;
});

test('a bad DATABASE_REPLICA_URL or lag bound stops the start, naming the variable and never echoing the URL', () => {
  const base = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/postgres' };
  const problems = (env: Record<string, string>) => {
    try {
      loadConfig({ ...base, ...env });
      return [];
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as ConfigError).problems;
    }
  };
  const bad = problems({ DATABASE_REPLICA_URL: 'mysql://secret@replica/db' });
  expect(bad).toHaveLength(1);
  expect(bad[0]).toStartWith('DATABASE_REPLICA_URL:');
  expect(bad[0]).not.toContain('secret');
  expect(problems({ DATABASE_REPLICA_URL: 'postgres://' })[0]).toStartWith('DATABASE_REPLICA_URL:');
  expect(problems({ DATABASE_REPLICA_URL: 'postgres://u@replica:5432/db', DATABASE_REPLICA_MAX_LAG_SECONDS: '0' })[0]).toStartWith('DATABASE_REPLICA_MAX_LAG_SECONDS:');
  expect(problems({ DATABASE_URL: '', DATABASE_REPLICA_URL: 'postgres://u@replica:5432/db' })[0]).toStartWith('DATABASE_REPLICA_URL:');
  const config = loadConfig({ ...base, DATABASE_REPLICA_URL: 'postgres://u@replica:5432/db' });
  expect(config.databaseReplicaUrl).toBe('postgres://u@replica:5432/db');
  expect(config.databaseReplicaMaxLagSeconds).toBe(30);
});
