// The audit log as CSV (the admin page's download): the filtered entries, newest first, streamed a
// page at a time (keyset on the id), with readable names beside the ids.
import type { Sql } from '../../db';
import { csvStream } from '../../lib/csv';
import { listAuditLog, type AuditEntry, type AuditFilter } from './list';
import { actorName, auditNames, nameKey, type AuditNames } from './names';

export const AUDIT_CSV_COLUMNS = [
  'id', 'at', 'actor_type', 'actor_id', 'actor_name', 'action', 'target_type', 'target_id', 'target_name', 'changes', 'ip', 'user_agent', 'request_id',
] as const;

type Named = { entry: AuditEntry; names: AuditNames; id: string };

export function auditCsv(sql: Sql, filter: AuditFilter, pageSize = 1000): ReadableStream<Uint8Array> {
  return csvStream<Named>({
    header: AUDIT_CSV_COLUMNS,
    pageSize,
    page: async (after, limit) => {
      // listAuditLog answers limit + 1 rows (a list page's look-ahead): ask for one fewer
      const entries = await listAuditLog(sql, { ...filter, limit: limit - 1, cursor: after?.id });
      const names = await auditNames(sql, entries);
      return entries.map((entry) => ({ entry, names, id: entry.id }));
    },
    cells: ({ entry: e, names }) => [
      e.id, e.at, e.actor.type, e.actor.id, actorName(e.actor, names), e.action, e.target.type, e.target.id,
      names.get(nameKey(e.target.type, e.target.id)) ?? '', e.changes ? JSON.stringify(e.changes) : '', e.ip, e.userAgent, e.requestId,
    ],
  });
}
