// `bun run backfill <dir> --campaign <cmp_…>`: loads a program's history from another platform
// (CSV files of partners, their customers and those customers' past conversions) into a running
// Partnerd through its API, 500 events a call. Safe to run again: every row becomes the same
// request with the same idempotency key. docs/migrating.md says what each file holds and how a
// customer is credited to its partner.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Partnerd, PartnerdError, type BatchEventInput } from '../src/sdk';
import { parseMajor } from '../src/lib/money';

const USAGE = `usage: bun run backfill <dir> --campaign <campaign id> [--url <service address>] [--key <API key>] [--invite] [--batch <1-1000>]
  <dir> holds partners.csv, customers.csv and conversions.csv (any may be missing); see docs/migrating.md.
  --url and --key default to PARTNERD_URL and PARTNERD_API_KEY. The key needs partners:read, partners:write,
  campaigns:write and events:write (the admin key has them all).
  --invite  sends new partners their magic-link invite (default: they are created active, with no email).`;

type Row = { line: number; cells: Record<string, string> };
type Problem = { file: string; line: number; message: string };

const problems: Problem[] = [];
const report = (file: string, line: number, message: string) => {
  problems.push({ file, line, message });
  progress.note(`${file}:${line}: ${message}`);
};

/** RFC 4180 CSV: quoted fields may hold commas, quotes ("") and line breaks. Rows keep the line they start on. */
export function parseCsv(text: string): { header: string[]; rows: Row[] } {
  const records: { line: number; fields: string[] }[] = [];
  let fields: string[] = [];
  let field = '';
  let quoted = false;
  let line = 1;
  let start = 1;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') (field += '"'), i++;
      else if (ch === '"') quoted = false;
      else {
        if (ch === '\n') line++;
        field += ch;
      }
    } else if (ch === '"' && field === '') quoted = true;
    else if (ch === ',') fields.push(field), (field = '');
    else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      fields.push(field);
      if (fields.length > 1 || fields[0] !== '') records.push({ line: start, fields });
      fields = [];
      field = '';
      start = ++line;
    } else field += ch;
  }
  fields.push(field);
  if (fields.length > 1 || fields[0] !== '') records.push({ line: start, fields });
  const [head, ...body] = records;
  const header = (head?.fields ?? []).map((h) => h.trim().replace(/^\uFEFF/, '').toLowerCase());
  return { header, rows: body.map((r) => ({ line: r.line, cells: Object.fromEntries(header.map((h, k) => [h, (r.fields[k] ?? '').trim()])) })) };
}

function readFile(dir: string, name: string, required: string[]): Row[] {
  const path = join(dir, name);
  if (!existsSync(path)) return [];
  const { header, rows } = parseCsv(readFileSync(path, 'utf8'));
  const missing = required.filter((c) => !header.includes(c));
  if (missing.length > 0) {
    report(name, 1, `missing column(s) ${missing.join(', ')}; the file is skipped`);
    return [];
  }
  return rows;
}

const digest = (text: string) => createHash('sha256').update(text).digest('hex');

/** The code that credits a partner's migrated customers: derived from its email, so a re-run finds it again. */
const migrationCode = (email: string) => `MIGRATED-${digest(email.toLowerCase()).slice(0, 12).toUpperCase()}`;

/** A timestamp as the API takes it, or null. */
function timestamp(value: string): string | null {
  if (!/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$/i.test(value)) return null;
  // a bare date is midnight UTC; a time without a zone is read as UTC
  const withTime = value.length === 10 ? `${value}T00:00:00Z` : /(Z|[+-]\d{2}:?\d{2})$/i.test(value) ? value : `${value}Z`;
  const time = Date.parse(withTime.replace(' ', 'T'));
  return Number.isNaN(time) ? null : new Date(time).toISOString();
}

/** The progress bar on stderr: redrawn in place on a terminal, a line per step otherwise. */
const progress = {
  total: 0,
  done: 0,
  started: performance.now(),
  tty: process.stderr.isTTY === true,
  draw(label: string) {
    const width = 30;
    const share = this.total === 0 ? 1 : this.done / this.total;
    const filled = Math.round(share * width);
    const rate = this.done / Math.max(0.001, (performance.now() - this.started) / 1000);
    const text = `${label.padEnd(12)} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(share * 100).toFixed(0).padStart(3)}% ${this.done.toLocaleString('en')}/${this.total.toLocaleString('en')} rows, ${Math.round(rate).toLocaleString('en')}/s`;
    process.stderr.write(this.tty ? `\r${text}` : `${text}\n`);
  },
  note(text: string) {
    process.stderr.write(this.tty ? `\r\x1b[K${text}\n` : `${text}\n`);
  },
};

async function main() {
  const { values, positionals } = parseArgs({
    args: process.argv.slice(2),
    options: {
      campaign: { type: 'string' },
      url: { type: 'string', default: process.env.PARTNERD_URL },
      key: { type: 'string', default: process.env.PARTNERD_API_KEY },
      invite: { type: 'boolean', default: false },
      batch: { type: 'string', default: '500' },
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: true,
  });
  const batchSize = Number(values.batch);
  if (values.help || positionals.length !== 1 || !values.campaign || !values.url || !values.key || !(batchSize >= 1 && batchSize <= 1000)) {
    console.error(USAGE);
    process.exit(2);
  }
  const dir = positionals[0]!;
  const campaignId = values.campaign;
  const client = new Partnerd({ baseUrl: values.url, apiKey: values.key, timeoutMs: 120_000 });

  const partners = readFile(dir, 'partners.csv', ['email', 'name']);
  const customers = readFile(dir, 'customers.csv', ['user_id', 'partner_email', 'referred_at']);
  const conversions = readFile(dir, 'conversions.csv', ['user_id', 'type', 'occurred_at']);
  progress.total = partners.length + customers.length + conversions.length;

  // 1. partners: created (active, or invited with --invite), or found by email when they exist
  const partnerIds = new Map<string, string>();
  const findPartner = async (email: string) => (await client.partners.list({ email })).partners[0]?.id;
  for (const row of partners) {
    const email = row.cells.email!.toLowerCase();
    try {
      const created = await client.partners.create({ email, name: row.cells.name || email, sendInvite: values.invite });
      partnerIds.set(email, created.id);
    } catch (error) {
      const id = error instanceof PartnerdError && error.status === 409 ? await findPartner(email) : undefined;
      if (id) partnerIds.set(email, id);
      else report('partners.csv', row.line, describe(error));
    }
    progress.done++;
    if (progress.done % 50 === 0) progress.draw('partners');
  }
  if (partners.length > 0) progress.draw('partners');

  // 2. one migration code per partner with customers, active for the run (step 5 archives it)
  const codes = new Map<string, { id: string; code: string }>();
  const codeFor = async (email: string): Promise<{ id: string; code: string }> => {
    const known = codes.get(email);
    if (known) return known;
    const partnerId = partnerIds.get(email) ?? (await findPartner(email));
    if (!partnerId) throw new Error(`no partner with the email ${email} (add it to partners.csv)`);
    partnerIds.set(email, partnerId);
    const code = migrationCode(email);
    let found: { id: string; code: string; archivedAt: string | null } | undefined;
    try {
      found = await client.codes.create({ code, partnerId, campaignId });
    } catch (error) {
      if (!(error instanceof PartnerdError && error.status === 409)) throw error;
      found = (await client.codes.list({ partnerId, campaignId, limit: 200 })).codes.find((c) => c.code === code);
      if (!found) throw new Error(`the code ${code} belongs to another partner or campaign`);
    }
    if (found.archivedAt) await client.codes.archive(found.id, false);
    codes.set(email, { id: found.id, code });
    return codes.get(email)!;
  };

  // 3. customers: a signup at referred_at naming the partner's code starts the customer's referral
  const customerEvents: { file: string; row: Row; event: BatchEventInput }[] = [];
  for (const row of customers) {
    const { user_id: userId, partner_email: partnerEmail, referred_at: referredAt, email } = row.cells;
    const at = timestamp(referredAt!);
    if (!userId) report('customers.csv', row.line, 'user_id: empty');
    else if (!partnerEmail) report('customers.csv', row.line, 'partner_email: empty');
    else if (at === null) report('customers.csv', row.line, `referred_at: not a date or timestamp (${JSON.stringify(referredAt)})`);
    else {
      try {
        const { code } = await codeFor(partnerEmail.toLowerCase());
        customerEvents.push({
          file: 'customers.csv',
          row,
          event: { userId, type: 'signup', occurredAt: at, couponCode: code, idempotencyKey: `backfill:customer:${digest(userId)}`, ...(email ? { customerEmail: email } : {}) },
        });
        continue;
      } catch (error) {
        report('customers.csv', row.line, describe(error));
      }
    }
    progress.done++;
  }
  await sendAll(client, customerEvents, batchSize, 'customers');

  // 4. conversions, oldest first: a customer's earlier conversions count first (maxOccurrences)
  const conversionEvents: { file: string; row: Row; event: BatchEventInput; at: string }[] = [];
  for (const row of conversions) {
    const { user_id: userId, type, amount, currency, occurred_at: occurredAt, id, metadata } = row.cells;
    const at = timestamp(occurredAt!);
    try {
      if (!userId) throw new Error('user_id: empty');
      if (!type) throw new Error('type: empty');
      if (at === null) throw new Error(`occurred_at: not a date or timestamp (${JSON.stringify(occurredAt)})`);
      if (Boolean(amount) !== Boolean(currency)) throw new Error('amount and currency go together');
      const minor = amount && currency ? parseMajor(amount, currency.toUpperCase(), 'amount') : undefined;
      let meta: Record<string, unknown> | undefined;
      if (metadata) {
        meta = JSON.parse(metadata);
        if (meta === null || typeof meta !== 'object' || Array.isArray(meta)) throw new Error('metadata: must be a JSON object');
      }
      // the old platform's id when there is one, else the row itself: a re-run sends the same key
      const identity = id ? `id:${id}` : `row:${[userId, type, amount, currency, at].join('\u0000')}`;
      conversionEvents.push({
        file: 'conversions.csv',
        row,
        at,
        event: {
          userId,
          type,
          occurredAt: at,
          ...(minor !== undefined ? { amount: Number(minor), currency: currency!.toUpperCase() } : {}),
          metadata: { ...meta, ...(id ? { migratedId: id } : {}) },
          idempotencyKey: `backfill:conversion:${digest(identity)}`,
        },
      });
    } catch (error) {
      report('conversions.csv', row.line, describe(error));
      progress.done++;
    }
  }
  conversionEvents.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.row.line - b.row.line));
  await sendAll(client, conversionEvents, batchSize, 'conversions');

  // 5. the migration codes credit nobody after the run: nobody can type them at a checkout
  for (const { id } of codes.values()) await client.codes.archive(id, true);

  if (progress.tty) process.stderr.write('\n');
  const seconds = ((performance.now() - progress.started) / 1000).toFixed(1);
  console.log(`backfill: ${progress.total - problems.length} of ${progress.total} rows loaded in ${seconds} s; ${problems.length} bad row(s)`);
  for (const p of problems) console.log(`  ${p.file}:${p.line}: ${p.message}`);
  process.exit(problems.length > 0 ? 1 : 0);
}

/** Sends events in batches, in order; an event the service refuses is reported with its line. */
async function sendAll(client: Partnerd, items: { file: string; row: Row; event: BatchEventInput }[], size: number, label: string) {
  for (let i = 0; i < items.length; i += size) {
    const chunk = items.slice(i, i + size);
    let results: Awaited<ReturnType<Partnerd['events']['batch']>>['results'];
    try {
      results = (await client.events.batch(chunk.map((c) => c.event))).results;
    } catch (error) {
      // the whole call failed (service down, key refused): every row of it is reported, the run goes on
      for (const c of chunk) report(c.file, c.row.line, describe(error));
      progress.done += chunk.length;
      progress.draw(label);
      continue;
    }
    results.forEach((result, k) => {
      if ('error' in result) {
        const { message, details } = result.error;
        const fields = Array.isArray(details) ? ` (${details.map((d: { field?: string }) => d.field).join(', ')})` : '';
        report(chunk[k]!.file, chunk[k]!.row.line, `${message}${fields}`);
      }
    });
    progress.done += chunk.length;
    progress.draw(label);
  }
}

function describe(error: unknown): string {
  if (error instanceof PartnerdError) return `${error.status} ${error.code}: ${error.message}`;
  if (error instanceof SyntaxError) return `metadata: not JSON (${error.message})`;
  return error instanceof Error ? error.message : String(error);
}

if (import.meta.main) await main();
