// The audit entries of set-based changes (the holdback job's approvals, a payout run): one entry
// per changed row, written by the same statement as the change, with the context's actor.
import type postgres from 'postgres';
import type { Tx } from '../../db';
import { currentAuditContext } from '../../lib/audit-context';
import { newId } from '../../lib/ids';

/**
 * An `insert into audit_log ... select ... from <source>` for a CTE: `source` is the name of a
 * CTE whose `targetColumn` holds each changed object's id; `changes` an SQL jsonb expression over
 * its columns; the entries commit with the statement they are part of. Ids share one time and random stem, numbered per row (still time-sorted).
 */
export function auditInsertFrom(
  tx: Tx,
  input: { source: string; targetColumn: string; action: string; targetType: string; changes: postgres.Fragment },
): postgres.Fragment {
  const context = currentAuditContext();
  const stem = auditStem();
  return tx`
    insert into audit_log (id, actor_type, actor_id, actor_email, action, target_type, target_id, changes, ip, user_agent, request_id)
    select ${stem} || lpad(to_hex(row_number() over ()), 8, '0'), ${context.actor.type}, ${context.actor.id}, ${context.actor.email ?? null},
      ${input.action}, ${input.targetType}, ${tx(input.targetColumn)}, ${input.changes}, ${context.ip}, ${context.userAgent?.slice(0, 512) ?? null}, ${context.requestId}
    from ${tx(input.source)}
    returning id`;
}

/** `aud_`, the time (10 characters) and 8 random ones: each statement's own stem, so two in one millisecond never meet. */
function auditStem(): string {
  const alphabet = '0123456789abcdefghjkmnpqrstvwxyz';
  let tail = '';
  for (const byte of crypto.getRandomValues(new Uint8Array(8))) tail += alphabet[byte & 31];
  return `aud_${newId('audit').slice(4, 14)}${tail}`;
}
