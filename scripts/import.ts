// `bun run import -- --from rewardful|firstpromoter|tolt|partnerstack --dir <folder> [--campaign <cmp_id>]
// [--dry-run] [--invite] [--url <service> --key <admin key>]`: moves a program in from another platform
// (DESIGN.md "Moving in from another platform", docs/migrating.md). Against DATABASE_URL by default
// (the same workflow as POST /v1/imports, in this process), or over HTTP to a running service with
// --url and --key. Prints what was (or would be) created per kind and every problem row.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../src/config';
import { openSql } from '../src/db';
import { migrationsApplied } from '../src/db/migrate';
import { asActor } from '../src/lib/audit-context';
import { AppError } from '../src/lib/errors';
import { createLogger } from '../src/lib/log';
import { IMPORT_SOURCES, isImportSource, type ImportSource } from '../src/modules/imports/rows';
import { filesOf } from '../src/modules/imports/sources';
import { PhaseTimes } from '../src/modules/imports/timing';
import { createContext } from '../src/server';
import { importProgram, type ImportAnswer } from '../src/workflows/import-program';

const USAGE = `usage: bun run import -- --from ${IMPORT_SOURCES.join('|')} --dir <folder> [--campaign <cmp_id>] [--dry-run] [--invite]
                      [--url <service address> --key <admin API key>] [--timings]
  Without --url: writes through DATABASE_URL. With --url and --key: sends the files to POST /v1/imports.
  --timings (without --url): also prints where the time went, per phase and statement.`;

function fail(message: string, code = 2): never {
  console.error(message);
  process.exit(code);
}

const { values } = parseArgs({
  args: Bun.argv.slice(2).filter((a) => a !== '--'),
  options: {
    from: { type: 'string' },
    dir: { type: 'string' },
    campaign: { type: 'string' },
    'dry-run': { type: 'boolean', default: false },
    invite: { type: 'boolean', default: false },
    url: { type: 'string' },
    key: { type: 'string' },
    timings: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
  strict: true,
});
if (values.help) fail(USAGE, 0);
if (!isImportSource(values.from)) fail(`--from must be one of ${IMPORT_SOURCES.join(', ')}\n${USAGE}`);
const source: ImportSource = values.from;
if (!values.dir || !existsSync(values.dir)) fail(`--dir must be the folder holding ${filesOf(source).join(', ')}\n${USAGE}`);
const dir = values.dir;
const present = (name: string) => existsSync(join(dir, name));

function print(report: ImportAnswer) {
  const c = report.counts;
  console.log(`${report.dryRun ? 'dry run: nothing written; would create' : 'created'}: ${c.partners} partners, ${c.links} links, ${c.customers} customers, ${c.commissions} commissions, ${c.payouts} payouts`);
  console.log(`already imported: ${report.skipped} rows`);
  console.log(`problems: ${report.problemCount}`);
  for (const p of report.problems) console.log(`  ${p.file}:${p.line}: ${p.reason}`);
}

async function overHttp(url: string, key: string): Promise<ImportAnswer> {
  const form = new FormData();
  form.set('source', source);
  form.set('dryRun', String(values['dry-run']));
  form.set('invite', String(values.invite));
  if (values.campaign) form.set('campaignId', values.campaign);
  for (const name of filesOf(source)) if (present(name)) form.set(name, Bun.file(join(dir, name)), name);
  const res = await fetch(`${url.replace(/\/+$/, '')}/v1/imports`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
  const body = (await res.json().catch(() => null)) as { message?: string } | null;
  if (!res.ok) fail(`import refused (${res.status}): ${body?.message ?? 'no answer'}`, 1);
  return body as ImportAnswer;
}

async function inProcess(): Promise<ImportAnswer> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    fail(error instanceof ConfigError ? `partnerd: ${error.message}` : String(error));
  }
  if (!config.databaseUrl) fail('DATABASE_URL is not set: set it, or send the files to a running service with --url and --key');
  const sql = openSql(config.databaseUrl, { max: 2 });
  try {
    if (!(await migrationsApplied(sql))) fail('the database is not migrated: start the service once (it migrates), then import', 1);
    const ctx = createContext(config, sql, createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel));
    const times = values.timings ? new PhaseTimes() : undefined;
    const started = performance.now();
    // the audit log names the command as the actor of what it imports
    const report = await asActor({ type: 'job', id: 'import-command' }, () => importProgram(ctx, {
      source: source,
      dryRun: values['dry-run'],
      invite: values.invite,
      campaignId: values.campaign,
      files: (name) => (present(name) ? Bun.file(join(dir, name)).stream() : null),
      times,
    }));
    if (times) {
      console.log(`timings (${((performance.now() - started) / 1000).toFixed(2)} s in all; phases overlap: a file's write holds its statements):`);
      for (const line of times.lines()) console.log(`  ${line}`);
    }
    ctx.mailer.close();
    return report;
  } catch (error) {
    if (error instanceof AppError) fail(`import refused: ${error.message}`, 1);
    throw error;
  } finally {
    await sql.end();
  }
}

const url = values.url ?? process.env.PARTNERD_URL;
const key = values.key ?? process.env.PARTNERD_API_KEY;
if (values.url && !key) fail(`--url needs --key (an admin API key)\n${USAGE}`);
print(url && key && values.url !== undefined ? await overHttp(url, key) : await inProcess());
