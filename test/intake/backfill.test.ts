// `bun run backfill` against a real service: partners, customers credited from their referral date,
// past conversions with their commissions, bad rows reported by line without stopping, and a
// second run that records nothing new.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as fx from '../support/fixtures';
import { startService, type TestService } from '../support/service';

let svc: TestService;
let campaignId: string;
let dir: string;
beforeAll(async () => {
  svc = await startService();
  campaignId = await fx.campaign(svc.sql, {
    rules: [
      { eventType: 'invoice_paid', kind: 'percent', percent: 25 },
      { eventType: 'signup', kind: 'flat', amount: '1.00' },
    ],
  });
  dir = mkdtempSync(join(tmpdir(), 'partnerd-backfill-'));
  writeFileSync(
    join(dir, 'partners.csv'),
    ['email,name', 'Ann@Example.com,Ann Archer', 'bob@example.com,"Bob, the Builder"', 'not-an-email,Nobody'].join('\n') + '\n',
  );
  writeFileSync(
    join(dir, 'customers.csv'),
    [
      'user_id,partner_email,referred_at,email',
      'cust-1,ann@example.com,2025-01-10,c1@example.com',
      'cust-2,bob@example.com,2025-02-01T12:00:00Z,',
      'cust-3,ann@example.com,last tuesday,',
      'cust-4,carol@example.com,2025-03-01,',
    ].join('\r\n'),
  );
  writeFileSync(
    join(dir, 'conversions.csv'),
    [
      'id,user_id,type,amount,currency,occurred_at,metadata',
      'inv_1,cust-1,invoice_paid,40.00,USD,2025-01-15T00:00:00Z,"{""plan"":""pro, yearly""}"',
      'inv_2,cust-1,invoice_paid,40.00,USD,2025-02-15T00:00:00Z,',
      'inv_3,cust-2,invoice_paid,10.5,usd,2025-02-02T00:00:00Z,',
      'inv_4,cust-2,invoice_paid,12.345,USD,2025-03-02T00:00:00Z,',
      'inv_5,cust-2,invoice_paid,10.00,ABC,2025-04-02T00:00:00Z,',
    ].join('\n'),
  );
}, 60_000);
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await svc.stop();
});

async function backfill(): Promise<{ code: number; out: string; err: string }> {
  const proc = Bun.spawn(['bun', 'run', 'backfill', dir, '--campaign', campaignId, '--url', svc.url, '--batch', '2'], {
    cwd: join(import.meta.dir, '..', '..'),
    env: { ...process.env, PARTNERD_API_KEY: svc.adminKey },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, out, err };
}

test('loads partners, credits customers from their referral date, accrues past conversions; bad rows are reported by line', async () => {
  const run = await backfill();
  expect(run.code).toBe(1);
  expect(run.out).toContain('backfill: 7 of 12 rows loaded');
  // one line per bad row, with its file and line, in the order met
  const bad = run.out.split('\n').filter((l) => l.startsWith('  ')).map((l) => l.trim().split(': ')[0]);
  expect(bad).toEqual(['partners.csv:4', 'customers.csv:4', 'customers.csv:5', 'conversions.csv:5', 'conversions.csv:6']);
  expect(run.out).toContain('customers.csv:4: referred_at: not a date or timestamp');
  expect(run.out).toContain('customers.csv:5: no partner with the email carol@example.com');
  expect(run.out).toContain('conversions.csv:5: amount: USD allows at most 2 decimals');
  expect(run.out).toContain('conversions.csv:6: currency: unknown currency code');
  // the progress bar, one line per step when stderr is not a terminal
  expect(run.err).toMatch(/conversions +\[#+\] 100% 12\/12 rows/);

  const partners = await svc.sql`select email, name, activated_at is not null as active from partners order by email`;
  expect(partners.map((p) => ({ ...p }))).toEqual([
    { email: 'ann@example.com', name: 'Ann Archer', active: true },
    { email: 'bob@example.com', name: 'Bob, the Builder', active: true },
  ]);
  const referrals = await svc.sql`
    select r.user_id, r.started_at, p.email from referrals r join referral_touches t using (user_id) join partners p on p.id = t.partner_id
    order by r.user_id`;
  expect(referrals.map((r) => ({ ...r }))).toEqual([
    { user_id: 'cust-1', started_at: new Date('2025-01-10T00:00:00Z'), email: 'ann@example.com' },
    { user_id: 'cust-2', started_at: new Date('2025-02-01T12:00:00Z'), email: 'bob@example.com' },
  ]);
  // 25% of 10.50 = 2.625, half-even: 2.62
  const commissions = await svc.sql`
    select e.user_id, e.type, e.occurred_at, e.metadata, c.amount, p.email
    from commissions c join events e on e.id = c.event_id join partners p on p.id = c.partner_id
    order by e.occurred_at`;
  expect(commissions.map((c) => ({ ...c }))).toEqual([
    { user_id: 'cust-1', type: 'signup', occurred_at: new Date('2025-01-10T00:00:00Z'), metadata: {}, amount: 100n, email: 'ann@example.com' },
    { user_id: 'cust-1', type: 'invoice_paid', occurred_at: new Date('2025-01-15T00:00:00Z'), metadata: { plan: 'pro, yearly', migratedId: 'inv_1' }, amount: 1000n, email: 'ann@example.com' },
    { user_id: 'cust-2', type: 'signup', occurred_at: new Date('2025-02-01T12:00:00Z'), metadata: {}, amount: 100n, email: 'bob@example.com' },
    { user_id: 'cust-2', type: 'invoice_paid', occurred_at: new Date('2025-02-02T00:00:00Z'), metadata: { migratedId: 'inv_3' }, amount: 262n, email: 'bob@example.com' },
    { user_id: 'cust-1', type: 'invoice_paid', occurred_at: new Date('2025-02-15T00:00:00Z'), metadata: { migratedId: 'inv_2' }, amount: 1000n, email: 'ann@example.com' },
  ]);
  const [customer] = await svc.sql`select customer_email from events where user_id = 'cust-1' and type = 'signup'`;
  expect(customer!.customer_email).toBe('c1@example.com');
  // the migration codes credit nobody once the run is over
  const codes = await svc.sql`select code, archived_at is not null as archived from promotion_codes`;
  expect(codes.length).toBe(2);
  expect(codes.every((c) => c.archived && /^MIGRATED-[0-9A-F]{12}$/.test(c.code))).toBe(true);
});

test('a second run records nothing new and reports the same bad rows', async () => {
  const count = async () => (await svc.sql`select (select count(*)::int from events) as events, (select count(*)::int from commissions) as commissions, (select count(*)::int from partners) as partners`)[0];
  const before = await count();
  const run = await backfill();
  expect(run.code).toBe(1);
  expect(run.out).toContain('backfill: 7 of 12 rows loaded');
  expect(await count()).toEqual(before);
});
