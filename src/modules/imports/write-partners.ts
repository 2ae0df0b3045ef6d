// Imported affiliates -> partners (active, or pending an invite) holding the import's campaign, and
// their referral tokens -> share-link slugs, so /r/<token> and ?via=<token> keep crediting them.
// A partner whose email is already here is the same partner: the import joins it, never doubles it.
import type { Tx } from '../../db';
import { idTime, newId } from '../../lib/ids';
import { slugProblem } from '../links/service';
import { saveRefs } from './refs';
import type { ImportReport } from './report';
import type { ImportedPartner, ImportSource } from './rows';
import { timed, type PhaseTimes } from './timing';

export type Lined<T> = { line: number; row: T };
export type ImportTarget = { source: ImportSource; campaignId: string; file: string; invite: boolean; report: ImportReport; times?: PhaseTimes };

/**
 * Writes one batch of partners (rows already imported are counted as skipped) and answers the
 * partners it created: the caller invites them with `--invite`. `partners` (source id -> our id)
 * gains every row it placed.
 */
export async function writePartners(
  sql: Tx,
  target: ImportTarget,
  batch: Lined<ImportedPartner>[],
  partners: Map<string, string>,
): Promise<{ id: string; email: string; name: string }[]> {
  const { source, report, file } = target;
  const fresh: Lined<ImportedPartner>[] = [];
  const seen = new Set<string>();
  for (const item of batch) {
    if (partners.has(item.row.sourceId)) report.skipped++;
    else if (seen.has(item.row.sourceId)) report.problem(file, item.line, `id ${item.row.sourceId} appears twice; the first row is kept`);
    else (seen.add(item.row.sourceId), fresh.push(item));
  }
  if (fresh.length === 0) return [];
  const emails = fresh.map((f) => f.row.email);
  const existing = await timed(target.times, 'sql: partners by email', sql<{ id: string; email: string }[]>`select id, email from partners where email = any(${emails}::text[])`);
  const byEmail = new Map(existing.map((e) => [e.email, e.id]));
  const rows: Record<string, unknown>[] = [];
  const created: { id: string; email: string; name: string }[] = [];
  const createdIds = new Set<string>();
  const placed: [string, string][] = [];
  for (const { row, line } of fresh) {
    const known = byEmail.get(row.email);
    if (known !== undefined) {
      if (createdIds.has(known)) {
        report.problem(file, line, `email ${row.email} is on an earlier row; the first row is kept`);
        continue;
      }
      placed.push([row.sourceId, known]);
      continue;
    }
    const id = newId('partner', row.createdAt ?? Date.now());
    byEmail.set(row.email, id);
    created.push({ id, email: row.email, name: row.name });
    createdIds.add(id);
    placed.push([row.sourceId, id]);
    rows.push({
      id,
      email: row.email,
      name: row.name,
      metadata: { importedFrom: source, importedId: row.sourceId },
      activated_at: target.invite ? null : idTime(id).toISOString(),
      payout_email: row.payoutEmail,
    });
  }
  if (rows.length > 0) {
    await timed(target.times, 'sql: insert partners', sql`
      insert into partners (id, email, name, metadata, activated_at, payout_email)
      select id, email, name, metadata, activated_at, payout_email
      from jsonb_to_recordset(${sql.json(rows as never)}) as r(id text, email text, name text, metadata jsonb, activated_at timestamptz, payout_email text)`);
  }
  const ids = placed.map((p) => p[1]);
  await timed(target.times, 'sql: insert partner_campaigns', sql`
    insert into partner_campaigns (partner_id, campaign_id, source)
    select p, ${target.campaignId}, 'admin' from unnest(${ids}::text[]) as p
    on conflict do nothing`);
  await saveRefs(sql, target, 'partner', placed);
  for (const [sourceId, id] of placed) partners.set(sourceId, id);
  report.counts.partners += created.length;
  await writeTokens(sql, target, fresh, partners);
  return created;
}

/** Each partner's old referral token becomes a share link with that slug, on the import's campaign. */
async function writeTokens(sql: Tx, target: ImportTarget, batch: Lined<ImportedPartner>[], partners: Map<string, string>) {
  const { source, report, file } = target;
  const wanted = batch.filter((b) => b.row.token !== null);
  if (wanted.length === 0) return;
  const taken = await timed(target.times, 'sql: links by slug', sql<{ slug: string; partner_id: string }[]>`
    select lower(slug) as slug, partner_id from links where lower(slug) = any(${wanted.map((w) => w.row.token!.toLowerCase())}::text[])`);
  const owner = new Map(taken.map((t) => [t.slug, t.partner_id]));
  const rows: { id: string; slug: string; partner_id: string }[] = [];
  const placed: [string, string][] = [];
  for (const { row, line } of wanted) {
    const token = row.token!;
    const partnerId = partners.get(row.sourceId)!;
    const problem = slugProblem(token);
    if (problem) {
      report.problem(file, line, `token "${token}" cannot be a link slug: it ${problem}; the partner is imported without it`);
      continue;
    }
    const holder = owner.get(token.toLowerCase());
    if (holder !== undefined) {
      if (holder !== partnerId) report.problem(file, line, `token "${token}" is already another partner's link; the partner is imported without it`);
      continue;
    }
    const id = newId('link', row.createdAt ?? Date.now());
    owner.set(token.toLowerCase(), partnerId);
    rows.push({ id, slug: token, partner_id: partnerId });
    placed.push([token, id]);
  }
  if (rows.length === 0) return;
  await timed(target.times, 'sql: insert links', sql`
    insert into links (id, slug, partner_id, campaign_id)
    select id, slug, partner_id, ${target.campaignId} from jsonb_to_recordset(${sql.json(rows)}) as r(id text, slug text, partner_id text)`);
  await saveRefs(sql, target, 'link', placed);
  report.counts.links += rows.length;
}
