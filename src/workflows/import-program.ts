// Moving a program in from another platform (DESIGN.md "Moving in from another platform"): the
// source's export files are read as streams (parse), each row checked (validate) and turned into
// ours (map), and written a batch at a time (write), all in ONE transaction: an import lands whole
// or not at all, and a dry run is the same import rolled back, so it reports exactly what the real
// one would. The route (POST /v1/imports), the command (scripts/import.ts) and the admin page all
// come through here.
import type { AppContext } from '../context';
import type { Transaction } from '../db';
import { AppError } from '../lib/errors';
import { record } from '../modules/audit/service';
import { issueMagicLink } from '../modules/auth/magic';
import { readCommissionsAhead } from '../modules/imports/ahead';
import { importCampaign } from '../modules/imports/campaign';
import { CsvFileError, readCsv } from '../modules/imports/csv';
import { importedLinks, loadRefs } from '../modules/imports/refs';
import { ImportReport } from '../modules/imports/report';
import { RowProblem, type ImportSource } from '../modules/imports/rows';
import { filesOf, SOURCES, type FileSpec } from '../modules/imports/sources';
import { timed, type PhaseTimes } from '../modules/imports/timing';
import { PaidPayouts, settlePaidPayouts, writeCommissions } from '../modules/imports/write-commissions';
import { writeCustomers } from '../modules/imports/write-customers';
import { writePartners, type ImportTarget, type Lined } from '../modules/imports/write-partners';
import { sendInvite, type IssuedInvite } from './invite-partner';

/** An export's files by name (null: not given), as a stream; each call opens a new one (the commissions file is read twice). */
export type ImportFiles = (name: string) => ReadableStream<Uint8Array> | null;

export type ImportRequest = {
  source: ImportSource;
  files: ImportFiles;
  campaignId?: string;
  dryRun: boolean;
  invite: boolean;
  /** Given: filled with where the time went (bench/import.ts, the command's --timings). */
  times?: PhaseTimes;
};

export type ImportAnswer = ReturnType<ImportReport['toJSON']>;

/** Rows written together: big enough to share statements, small enough to keep memory flat. */
const BATCH = 2000;
/**
 * Commissions go in larger batches: each batch's statement runs the rollup triggers once, and
 * those read the tables written so far (a batch costs more as the import grows), so fewer, larger
 * statements cost less; bench/README.md (issue 30) has the figures.
 */
const COMMISSION_BATCH = 5_000;
/** Rows written between two forced garbage collections (each takes a few tens of ms). */
const COLLECT_EVERY = 10_000;

class RolledBack extends Error {}

export async function importProgram(ctx: AppContext, request: ImportRequest): Promise<ImportAnswer> {
  const spec = SOURCES[request.source];
  const streams = filesOf(request.source).map((name) => ({ name, stream: request.files(name) }));
  const missing = streams.filter((s) => s.stream === null).map((s) => s.name);
  if (missing.length > 0) {
    throw new AppError(
      'invalid_body',
      `missing file${missing.length > 1 ? 's' : ''} ${missing.join(', ')} (a ${request.source} import reads ${filesOf(request.source).join(', ')})`,
      missing.map((name) => ({ field: name, message: 'missing: the export file of this name is required' })),
    );
  }
  const [partnersFile, customersFile, commissionsFile] = streams.map((s) => s.stream!) as [ReadableStream<Uint8Array>, ReadableStream<Uint8Array>, ReadableStream<Uint8Array>];
  const report = new ImportReport();
  let invites: IssuedInvite[] = [];
  try {
    // the commissions file is read twice: first for each customer's first sale and each partner's
    // last payment (ahead.ts), then for the commissions themselves, after the customers
    const clock = new Date();
    const ahead = await timed(request.times, 'read commissions.csv ahead', readCommissionsAhead(spec.commissions, request.files(spec.commissions.file)!, clock));
    Bun.gc(true);
    invites = await ctx.sql.begin(async (tx) => {
      // two imports of one source wait for each other (their idempotency reads must see each other)
      await tx`select pg_advisory_xact_lock(hashtextextended(${`partnerd:import:${request.source}`}, 0))`;
      // no JIT for the import's own statements either (the triggers have it off since migration 0062):
      // estimated past jit_above_cost as the tables grow, compiling costs more than running them
      await tx`set local jit = off`;
      const campaignId = await importCampaign(tx, request.campaignId);
      const base = { source: request.source, campaignId, invite: request.invite, report, times: request.times };
      const files = { partnersFile: spec.partners.file, customersFile: spec.customers.file };
      const [partners, customers] = await timed(request.times, 'sql: load earlier refs', Promise.all([loadRefs(tx, request.source, 'partner'), loadRefs(tx, request.source, 'customer')]));
      const created: { id: string; email: string; name: string }[] = [];
      const partnerTarget: ImportTarget = { ...base, file: spec.partners.file };
      await eachBatch(base, spec.partners, partnersFile, BATCH, async (batch) => void created.push(...(await writePartners(tx, partnerTarget, batch, partners))));
      const customerTarget = { ...base, ...files, file: spec.customers.file };
      const links = await timed(request.times, 'sql: imported links', importedLinks(tx, request.source, campaignId));
      const firstSales = ahead.firstSales;
      await eachBatch(base, spec.customers, customersFile, BATCH, (batch) => writeCustomers(tx, customerTarget, batch, { partners, customers, links, firstSales }));
      // the customers are written: their first sales are no longer needed, and the commissions' batches need the room
      firstSales.clear();
      Bun.gc(true);
      const commissionTarget = { ...base, ...files, file: spec.commissions.file, clock, payouts: new PaidPayouts(ahead.lastPaid) };
      await eachBatch(base, spec.commissions, commissionsFile, COMMISSION_BATCH, (batch) => writeCommissions(tx, commissionTarget, batch, partners, customers));
      await settlePaidPayouts(tx, commissionTarget);
      if (request.dryRun) throw new RolledBack();
      const issued = request.invite ? await issueInvites(tx, created) : [];
      await recordImport(tx, request.source, report);
      return issued;
    });
  } catch (error) {
    if (error instanceof CsvFileError) {
      throw new AppError('invalid_body', `${error.file}${error.line > 1 ? ` line ${error.line}` : ''}: ${error.message}`, [{ field: error.file, message: error.message }]);
    }
    if (!(error instanceof RolledBack)) throw error;
  }
  for (const invite of invites) await sendInvite(ctx, invite);
  return report.toJSON(request.dryRun);
}

/** Reads `stream` as `spec`'s file, a row a time: a bad row is reported and skipped, the rest written `size` rows at a time (the garbage collected every `COLLECT_EVERY` rows). */
async function eachBatch<T>(
  { report, times }: { report: ImportReport; times?: PhaseTimes },
  spec: FileSpec<T>,
  stream: ReadableStream<Uint8Array>,
  size: number,
  write: (batch: Lined<T>[]) => Promise<void>,
) {
  const flush = (batch: Lined<T>[]) => timed(times, `write ${spec.file} (map + sql)`, write(batch));
  const rows = readCsv(spec.file, stream, spec.required);
  let batch: Lined<T>[] = [];
  let written = 0;
  for (;;) {
    let started = times ? performance.now() : 0;
    const next = await rows.next();
    if (times) times.add(`parse ${spec.file}`, performance.now() - started);
    if (next.done) break;
    const { line, cells } = next.value;
    started = times ? performance.now() : 0;
    try {
      batch.push({ line, row: spec.read(cells) });
    } catch (error) {
      if (!(error instanceof RowProblem)) throw error;
      report.problem(spec.file, line, error.message);
      continue;
    } finally {
      if (times) times.add(`validate + map ${spec.file}`, performance.now() - started);
    }
    if (batch.length >= size) {
      await flush(batch);
      batch = [];
      written += size;
      // the batches leave megabytes of garbage (their rows, their JSON) that the heap would keep
      // growing around: collected every COLLECT_EVERY rows, the import's peak stays lower
      if (written >= COLLECT_EVERY) (Bun.gc(true), (written = 0));
    }
  }
  if (batch.length > 0) await flush(batch);
}

/**
 * One audit entry per import that wrote (a dry run writes none), as its transaction ends: who ran
 * it (the admin, the key, or the command as a job) and what it created per kind.
 */
async function recordImport(tx: Transaction, source: ImportSource, report: ImportReport) {
  const after = { source, ...report.counts, skipped: report.skipped, problems: report.problemCount };
  const changes = Object.fromEntries(Object.entries(after).map(([field, value]) => [field, [null, value] as [unknown, unknown]]));
  await record(tx, { action: 'import.completed', target: { type: 'import', id: source }, changes });
}

async function issueInvites(tx: Transaction, created: { id: string; email: string; name: string }[]): Promise<IssuedInvite[]> {
  const invites: IssuedInvite[] = [];
  for (const partner of created) {
    const { token } = await issueMagicLink(tx, { purpose: 'invite', email: partner.email, partnerId: partner.id });
    invites.push({ email: partner.email, name: partner.name, token });
  }
  return invites;
}
