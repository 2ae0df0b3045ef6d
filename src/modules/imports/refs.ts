// The idempotency of imports: (source, kind, source id) -> our id (migration 0047). An object with a
// row here was imported before and is never written again.
import type { Tx } from '../../db';
import type { ImportSource } from './rows';
import { timed, type PhaseTimes } from './timing';

export type RefKind = 'partner' | 'link' | 'customer' | 'commission';

/** Every earlier import of `kind` from `source`: its source id -> our id. */
export async function loadRefs(sql: Tx, source: ImportSource, kind: RefKind): Promise<Map<string, string>> {
  const rows = await sql<{ source_id: string; target_id: string }[]>`
    select source_id, target_id from import_refs where source = ${source} and kind = ${kind}`;
  return new Map(rows.map((r) => [r.source_id, r.target_id]));
}

/** Each partner's share link imported from `source` (its old token) in `campaignId`: partner id -> link id. */
export async function importedLinks(sql: Tx, source: ImportSource, campaignId: string): Promise<Map<string, string>> {
  const rows = await sql<{ partner_id: string; id: string }[]>`
    select l.partner_id, l.id from import_refs r join links l on l.id = r.target_id
    where r.source = ${source} and r.kind = 'link' and l.campaign_id = ${campaignId}`;
  return new Map(rows.map((r) => [r.partner_id, r.id]));
}

/**
 * Saves the refs of `pairs` that are not there yet and answers their source ids: the objects this
 * import is to write. An id imported before (by an earlier import, or an earlier batch of this one)
 * is not among them. One statement: what was imported before and what is saved now are settled by
 * the primary key, with no read ahead of the write.
 */
export async function claimRefs(
  sql: Tx,
  { source, times }: { source: ImportSource; times?: PhaseTimes },
  kind: RefKind,
  pairs: [sourceId: string, targetId: string][],
): Promise<Set<string>> {
  if (pairs.length === 0) return new Set();
  const rows = await timed(times, `sql: claim ${kind} refs`, sql<{ source_id: string }[]>`
    insert into import_refs (source, kind, source_id, target_id)
    select ${source}, ${kind}, s, t from unnest(${pairs.map((p) => p[0])}::text[], ${pairs.map((p) => p[1])}::text[]) as r(s, t)
    on conflict do nothing
    returning source_id`);
  return new Set(rows.map((r) => r.source_id));
}

export async function saveRefs(
  sql: Tx,
  { source, times }: { source: ImportSource; times?: PhaseTimes },
  kind: RefKind,
  pairs: [sourceId: string, targetId: string][],
): Promise<void> {
  if (pairs.length === 0) return;
  await timed(times, `sql: insert ${kind} refs`, sql`
    insert into import_refs (source, kind, source_id, target_id)
    select ${source}, ${kind}, s, t from unnest(${pairs.map((p) => p[0])}::text[], ${pairs.map((p) => p[1])}::text[]) as r(s, t)
    on conflict do nothing`);
}
