// Reading the audit log: the API's list, the admin page and its CSV, and an object's own history.
import type { Sql } from '../../db';
import type { Actor } from '../../lib/audit-context';
import { AppError } from '../../lib/errors';
import { iso } from '../../lib/time';
import type { AuditEntry as AuditEntrySchema } from './model';

export type AuditEntry = typeof AuditEntrySchema.static;

export type AuditFilter = {
  actor?: string;
  actorType?: Actor['type'];
  /** An action, or every action on a noun when it ends in a dot (`partner.`). */
  action?: string;
  targetId?: string;
  /** What kind of object (`partner`, `payout`...): the admin page's "which object". */
  targetType?: string;
  from?: Date;
  to?: Date;
};

type AuditRow = {
  id: string;
  at: Date;
  actor_type: Actor['type'];
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

const COLUMNS = ['id', 'at', 'actor_type', 'actor_id', 'actor_email', 'action', 'target_type', 'target_id', 'changes', 'ip', 'user_agent', 'request_id'];

function toEntry(row: AuditRow): AuditEntry {
  return {
    id: row.id,
    at: iso(row.at)!,
    actor: { type: row.actor_type, id: row.actor_id, ...(row.actor_email ? { email: row.actor_email } : {}) },
    action: row.action,
    target: { type: row.target_type, id: row.target_id },
    ...(row.changes ? { changes: row.changes } : {}),
    ip: row.ip,
    userAgent: row.user_agent,
    requestId: row.request_id,
  };
}

/**
 * The `from` / `to` of a query as moments: a bare day is its start (from) or the start of the next
 * day (to, so "to 2026-11-27" includes that day). A date that does not exist is a 400 naming it.
 */
export function readAuditFilter(query: { actor?: string; actorType?: Actor['type']; action?: string; targetId?: string; from?: string; to?: string }): AuditFilter {
  const when = (field: 'from' | 'to', value: string | undefined): Date | undefined => {
    if (value === undefined) return undefined;
    const day = /^\d{4}-\d{2}-\d{2}$/.test(value);
    const date = new Date(day ? `${value}T00:00:00Z` : value);
    if (Number.isNaN(date.getTime()) || (day && date.toISOString().slice(0, 10) !== value)) {
      throw new AppError('invalid_query', `${field}: not a date`, [{ field, message: 'must be an ISO 8601 date or date-time' }]);
    }
    if (day && field === 'to') date.setUTCDate(date.getUTCDate() + 1);
    return date;
  };
  const filter: AuditFilter = { actor: query.actor, actorType: query.actorType, action: query.action, targetId: query.targetId, from: when('from', query.from), to: when('to', query.to) };
  if (filter.from && filter.to && filter.from >= filter.to) {
    throw new AppError('invalid_query', 'to: must be after from', [{ field: 'to', message: 'must be after from' }]);
  }
  return filter;
}

/** One page of entries, newest first (limit+1 rows: see lib/http paginate). */
export async function listAuditLog(sql: Sql, filter: AuditFilter & { limit: number; cursor?: string }): Promise<AuditEntry[]> {
  const noun = filter.action?.endsWith('.');
  const rows = await sql<AuditRow[]>`
    select ${sql(COLUMNS)} from audit_log
    where true
      ${filter.actor ? sql`and actor_id = ${filter.actor}` : sql``}
      ${filter.actorType ? sql`and actor_type = ${filter.actorType}` : sql``}
      ${filter.action ? (noun ? sql`and action like ${filter.action.replace(/_/g, '\\_') + '%'}` : sql`and action = ${filter.action}`) : sql``}
      ${filter.targetId ? sql`and target_id = ${filter.targetId}` : sql``}
      ${filter.targetType ? sql`and target_type = ${filter.targetType}` : sql``}
      ${filter.from ? sql`and at >= ${filter.from}` : sql``}
      ${filter.to ? sql`and at < ${filter.to}` : sql``}
      ${filter.cursor ? sql`and id < ${filter.cursor}` : sql``}
    order by id desc
    limit ${filter.limit + 1}`;
  return rows.map(toEntry);
}

/** An object's own history, newest first (the partner, commission, payout and campaign pages). */
export async function historyOf(sql: Sql, targetId: string, limit = 50): Promise<AuditEntry[]> {
  const rows = await sql<AuditRow[]>`
    select ${sql(COLUMNS)} from audit_log where target_id = ${targetId} order by id desc limit ${limit}`;
  return rows.map(toEntry);
}

/** The actions the log holds, for the admin page's "what" choice: a skip scan of the action index, one probe per action, however long the log. */
export async function auditActions(sql: Sql): Promise<string[]> {
  const rows = await sql<{ action: string }[]>`
    with recursive seen as (
      select min(action) as action from audit_log
      union all
      select (select min(action) from audit_log where action > seen.action) from seen where seen.action is not null
    )
    select action from seen where action is not null`;
  return rows.map((r) => r.action);
}
