// Import benchmark (issue 30): a Rewardful export of 10,000 affiliates, 100,000 referrals and
// 300,000 commissions imported by `bun run import` (against DATABASE_URL, its own process) into a
// fresh database, timed, with the process's peak RSS; beside it the batch-ingest floor of the same
// run: the same rows written by set-based SQL straight from generate_series (no files, no parsing,
// no checks), in one transaction, rolled back, timed per table. The import prints where its time
// went (`--timings`: per phase and statement). bench/README.md has the figures.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres bun bench/import.ts
//   PARTNERS=1000 REFERRALS=10000 COMMISSIONS=30000 bun bench/import.ts      (a tenth of it)
//   FLOOR=0 ...                                                              (without the floor)
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { newId } from '../src/lib/ids';
import { createTestDatabase, startTestServer } from '../test/support/postgres';

const PARTNERS = Number(process.env.PARTNERS ?? 10_000);
const REFERRALS = Number(process.env.REFERRALS ?? 100_000);
const COMMISSIONS = Number(process.env.COMMISSIONS ?? 300_000);
const STATES = ['pending', 'due', 'paid', 'paid', 'voided'];
const CURRENCIES = ['USD', 'EUR', 'GBP'];
/** FLOOR=0: skip the floor (quicker runs while working on the import; its ratio is then not printed). */
const FLOOR = process.env.FLOOR !== '0';

async function write(path: string, header: string, rows: number, line: (i: number) => string) {
  const out = createWriteStream(path);
  out.write(`\uFEFF${header}\r\n`);
  for (let i = 0; i < rows; i++) if (!out.write(`${line(i)}\r\n`)) await new Promise((ok) => out.once('drain', ok));
  await new Promise((ok) => out.end(ok));
}

const day = (i: number) => new Date(Date.UTC(2023, 0, 1) + (i % 600) * 86_400_000).toISOString();
const server = await startTestServer();
const db = await createTestDatabase(server);
const dir = mkdtempSync(join(tmpdir(), 'partnerd-import-bench-'));
try {
  const [version] = await db.sql`select current_setting('server_version') as v`;
  console.log(`PostgreSQL ${version!.v}; ${cpus().length} x ${cpus()[0]?.model}; load ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  await db.sql`insert into campaigns (id, name, destination_url, currency) values (${newId('campaign')}, 'Bench', 'https://app.example.com/', 'USD')`;
  let t = performance.now();
  await write(join(dir, 'affiliates.csv'), 'id,first_name,last_name,email,paypal_email,wise_email,token,created_at', PARTNERS,
    (i) => `aff-${i},"Partner ${i}","Surname, ${i}",p${i}@example.com,,,tok${i},${day(i)}`);
  await write(join(dir, 'referrals.csv'), 'id,affiliate_id,stripe_customer_id,customer_email,created_at,became_conversion_at', REFERRALS,
    (i) => `ref-${i},aff-${i % PARTNERS},cus_B${i},c${i}@buyer.example,${day(i)},`);
  await write(join(dir, 'commissions.csv'), 'id,affiliate_id,referral_id,amount_cents,currency,state,created_at,paid_at', COMMISSIONS, (i) => {
    const referral = i % REFERRALS;
    return `cm-${i},aff-${referral % PARTNERS},ref-${referral},${500 + (i % 5000)},${CURRENCIES[i % 3]},${STATES[i % STATES.length]},${day(i)},${day(i + 30)}`;
  });
  console.log(`files written in ${((performance.now() - t) / 1000).toFixed(1)} s: ${PARTNERS} affiliates, ${REFERRALS} referrals, ${COMMISSIONS} commissions`);

  // the floor: the same rows by set-based SQL, rolled back
  const floorSteps = new Map<string, number>();
  t = performance.now();
  if (FLOOR) await db.sql
    .begin(async (tx) => {
      const [{ c }] = (await tx`select id as c from campaigns limit 1`) as unknown as [{ c: string }];
      const step = async (label: string, run: () => Promise<unknown>) => {
        const started = performance.now();
        await run();
        floorSteps.set(label, performance.now() - started);
      };
      const id = (prefix: string, n: string) => tx.unsafe(`'${prefix}_01hq00' || lpad((${n})::text, 20, '0')`);
      await step('partners', () => tx`insert into partners (id, email, name, activated_at) select ${id('ptn', 'i')}, 'p' || i || '@example.com', 'Partner ' || i, now() from generate_series(1, ${PARTNERS}) i`);
      await step('links', () => tx`insert into links (id, slug, partner_id, campaign_id) select ${id('lnk', 'i')}, 'tok' || i, ${id('ptn', 'i')}, ${c} from generate_series(1, ${PARTNERS}) i`);
      await step('referrals', () => tx`insert into referrals (user_id, model, started_at) select 'cus_B' || i, 'last_click', now() from generate_series(1, ${REFERRALS}) i`);
      await step('referral_touches', () => tx`insert into referral_touches (user_id, position, click_id, partner_id, campaign_id, weight_num, weight_den, link_id)
               select 'cus_B' || i, 0, ${id('clk', 'i')}, ${id('ptn', `1 + i % ${PARTNERS}`)}, ${c}, 1, 1, ${id('lnk', `1 + i % ${PARTNERS}`)} from generate_series(1, ${REFERRALS}) i`);
      await step('billing_customers', () => tx`insert into billing_customers (provider, customer_id, user_id) select 'stripe', 'cus_B' || i, 'cus_B' || i from generate_series(1, ${REFERRALS}) i`);
      await step('events', () => tx`insert into events (id, user_id, type, occurred_at, source, attribution_status, attribution_model)
               select ${id('evt', 'i')}, 'cus_B' || (1 + i % ${REFERRALS}), 'sale', now(), 'import', 'attributed', 'last_click' from generate_series(1, ${COMMISSIONS}) i`);
      await step('attributions', () => tx`insert into attributions (id, event_id, user_id, click_id, partner_id, campaign_id, model, weight, occurred_at)
               select ${id('att', 'i')}, ${id('evt', 'i')}, 'cus_B' || (1 + i % ${REFERRALS}), ${id('clk', `1 + i % ${REFERRALS}`)}, ${id('ptn', `1 + i % ${PARTNERS}`)}, ${c}, 'last_click', 1, now()
               from generate_series(1, ${COMMISSIONS}) i`);
      await step('commissions', () => tx`insert into commissions (id, attribution_id, event_id, partner_id, campaign_id, user_id, amount, currency, event_type, status, holdback_days, occurred_at)
               select ${id('com', 'i')}, ${id('att', 'i')}, ${id('evt', 'i')}, ${id('ptn', `1 + i % ${PARTNERS}`)}, ${c}, 'cus_B' || (1 + i % ${REFERRALS}), 500, 'USD', 'sale', 'accrued', 0, now()
               from generate_series(1, ${COMMISSIONS}) i`);
      await step('commission_transitions', () => tx`insert into commission_transitions (commission_id, to_status, actor) select ${id('com', 'i')}, 'accrued', 'floor' from generate_series(1, ${COMMISSIONS}) i`);
      await step('import_refs', () => tx`insert into import_refs (source, kind, source_id, target_id) select 'rewardful', 'commission', 'cm-' || i, ${id('com', 'i')} from generate_series(1, ${COMMISSIONS}) i`);
      throw new Error('rollback');
    })
    .catch((error) => {
      if ((error as Error).message !== 'rollback') throw error;
    });
  const floor = FLOOR ? (performance.now() - t) / 1000 : 0;
  await db.sql`vacuum analyze`;
  if (FLOOR) {
    console.log(`floor (the same rows by set-based SQL, rolled back): ${floor.toFixed(1)} s`);
    console.log(`  ${[...floorSteps].map(([label, ms]) => `${label} ${(ms / 1000).toFixed(2)} s`).join(', ')}`);
  } else console.log('floor: not run (FLOOR=0)');

  const run = async (label: string) => {
    const started = performance.now();
    const proc = Bun.spawn(['/usr/bin/time', '-f', 'maxrss_kb=%M', 'bun', 'scripts/import.ts', '--from', 'rewardful', '--dir', dir, '--timings'], {
      cwd: join(import.meta.dir, '..'),
      env: { ...process.env, DATABASE_URL: db.url, LOG_LEVEL: 'warn' },
      stdout: 'pipe',
      stderr: 'pipe',
    });
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    const seconds = (performance.now() - started) / 1000;
    const rss = Number(/maxrss_kb=(\d+)/.exec(err)?.[1] ?? 0) / 1024;
    if (code !== 0) throw new Error(`import failed (${code}): ${err}`);
    const ratio = floor > 0 ? ` (${(seconds / floor).toFixed(2)}x the floor)` : '';
    console.log(`${label}: ${seconds.toFixed(1)} s${ratio}, peak RSS ${rss.toFixed(0)} MB\n  ${out.trim().split('\n').join('\n  ')}`);
  };
  await run('import');
  await run('the same import again (nothing new)');
} finally {
  rmSync(dir, { recursive: true, force: true });
  await db.drop();
  await server.stop();
}
