// Reading what the audit log holds, for the audit tests: the rows as the table has them.
import type { Sql } from '../../src/db';

export type AuditRow = {
  id: string;
  actor_type: string;
  actor_id: string;
  actor_email: string | null;
  action: string;
  target_type: string;
  target_id: string;
  changes: Record<string, [unknown, unknown]> | null;
  ip: string | null;
  user_agent: string | null;
  request_id: string | null;
};

/** Every entry about one object, oldest first. */
export async function entriesFor(sql: Sql, targetId: string): Promise<AuditRow[]> {
  return sql<AuditRow[]>`
    select id, actor_type, actor_id, actor_email, action, target_type, target_id, changes, ip, user_agent, request_id
    from audit_log where target_id = ${targetId} order by id`;
}

/** Every entry with one action, oldest first. */
export async function entriesWith(sql: Sql, action: string): Promise<AuditRow[]> {
  return sql<AuditRow[]>`
    select id, actor_type, actor_id, actor_email, action, target_type, target_id, changes, ip, user_agent, request_id
    from audit_log where action = ${action} order by id`;
}

/** The whole log as text: what a secret must never be found in. */
export async function wholeLog(sql: Sql): Promise<string> {
  const rows = await sql`select row_to_json(a)::text as line from audit_log a order by id`;
  return rows.map((r) => r.line as string).join('\n');
}
