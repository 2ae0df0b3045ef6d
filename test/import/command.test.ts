// `bun run import -- --from X --dir D`: against DATABASE_URL (the workflow in the command's own
// process) and over HTTP to a running service (--url, --key); both print the same report.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { campaign } from '../support/chain';
import { startService, type TestService } from '../support/service';
import { FIXTURES, tableCounts } from './helpers';

const ROOT = join(import.meta.dir, '..', '..');
let svc: TestService;
let campaignId: string;
beforeAll(async () => {
  svc = await startService();
  campaignId = await campaign(svc, {});
});
afterAll(() => svc.stop());

async function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
  const proc = Bun.spawn(['bun', 'run', 'import', '--', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', LOG_LEVEL: 'silent', ...env },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, out, err };
}

describe('bun run import', () => {
  test('against DATABASE_URL: the dry run prints the counts and problems and writes nothing; the import writes them; again, nothing new', async () => {
    const env = { DATABASE_URL: svc.config.databaseUrl! };
    const args = ['--from', 'tolt', '--dir', join(FIXTURES, 'tolt'), '--campaign', campaignId];
    const before = await tableCounts(svc);
    const dry = await run([...args, '--dry-run'], env);
    expect(dry.code).toBe(0);
    expect(dry.out).toContain('dry run: nothing written; would create: 2 partners, 2 links, 3 customers, 4 commissions, 1 payouts');
    expect(dry.out).toContain('commissions.csv:6: amount must be a whole number of cents (got "-200")');
    expect(await tableCounts(svc)).toEqual(before);

    const real = await run(args, env);
    expect(real.code).toBe(0);
    expect(real.out).toContain('created: 2 partners, 2 links, 3 customers, 4 commissions, 1 payouts');
    expect((await tableCounts(svc)).commissions - before.commissions).toBe(4);
    expect([...(await svc.sql`select slug from links order by slug`)].map((r) => r.slug)).toEqual(['maria', 'omar']);

    const again = await run(args, env);
    expect(again.out).toContain('created: 0 partners, 0 links, 0 customers, 0 commissions, 0 payouts');
    expect(again.out).toContain('already imported: 9 rows');

    // the audit log: one import.completed per import that wrote (the dry run none), the command its actor
    const entries = await svc.sql`select actor_type, actor_id, target_type, target_id, changes from audit_log where action = 'import.completed' order by id`;
    expect(entries.map((e) => [e.actor_type, e.actor_id, e.target_type, e.target_id])).toEqual([
      ['job', 'import-command', 'import', 'tolt'],
      ['job', 'import-command', 'import', 'tolt'],
    ]);
    expect(entries[0]!.changes).toEqual({
      source: [null, 'tolt'], partners: [null, 2], links: [null, 2], customers: [null, 3], commissions: [null, 4], payouts: [null, 1], skipped: [null, 0], problems: [null, 1],
    });
    expect(entries[1]!.changes).toMatchObject({ partners: [null, 0], commissions: [null, 0], skipped: [null, 9] });
  });

  test('with --url and --key: the files go to POST /v1/imports and the same report is printed', async () => {
    const args = ['--from', 'partnerstack', '--dir', join(FIXTURES, 'partnerstack'), '--campaign', campaignId, '--url', svc.url, '--key', svc.adminKey];
    const res = await run(args);
    expect(res.code).toBe(0);
    expect(res.out).toContain('created: 2 partners, 2 links, 2 customers, 5 commissions, 2 payouts');
    expect(res.out).toContain('rewards.csv:7: partner pk_nobody is not in partners.csv');
    expect([...(await svc.sql`select email from partners where email = 'sam@example.com'`)]).toHaveLength(1);
  });

  test('an unknown source, a folder missing a file and a wrong key are refused with a reason and a failing exit code', async () => {
    const unknown = await run(['--from', 'impact', '--dir', FIXTURES]);
    expect(unknown.code).not.toBe(0);
    expect(unknown.err).toContain('--from must be one of rewardful, firstpromoter, tolt, partnerstack');
    const missing = await run(['--from', 'rewardful', '--dir', join(FIXTURES, 'tolt'), '--campaign', campaignId], { DATABASE_URL: svc.config.databaseUrl! });
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('missing files affiliates.csv, referrals.csv');
    const key = await run(['--from', 'tolt', '--dir', join(FIXTURES, 'tolt'), '--url', svc.url, '--key', 'sk_admin_wrong']);
    expect(key.code).toBe(1);
    expect(key.err).toContain('import refused (401)');
  });
});
