// Writing the audit log: record() inserts one entry inside the caller's transaction, so an entry
// exists exactly when its change committed. The actor, address, user agent and request id come
// from the request-scoped context (lib/audit-context.ts); secrets never reach the table.
import type { JSONValue } from 'postgres';
import type { Transaction } from '../../db';
import { currentAuditContext, type Actor } from '../../lib/audit-context';
import { newId } from '../../lib/ids';

export type Changes = Record<string, [unknown, unknown]>;

export type AuditInput = {
  /** `<noun>.<verb>`: partner.revoked, payout.run, settings.updated. */
  action: string;
  target: { type: string; id: string };
  /** The fields that changed, `{field: [before, after]}` (see changesOf). */
  changes?: Changes;
  /** Who, when the work is not the context's actor (rarely: a partner's own sign-up). */
  actor?: Actor;
};

export const REDACTED = '[redacted]';

/**
 * Field names whose values never enter the log: secrets, tokens, key hashes and plaintext keys,
 * passwords, tax ids (TINs) and dates of birth. Matched on camelCase and snake_case names alike.
 */
const SECRET_FIELD = /secret|token|hash|password|passcode|^key$|api_?key|plaintext|(^|_)tin(_|$)|^tin[A-Z]|[a-z]Tin([A-Z]|$)|tax_?id|ssn|birth|^dob$/i;
/** Values that look like a credential whatever their field is called. */
const SECRET_VALUE = /^(sk_|pk_|whsec_|rk_)/;

/** A value with every secret-named field inside it, and every credential-looking string, replaced. */
export function redact(value: unknown): unknown {
  if (typeof value === 'string') return SECRET_VALUE.test(value) ? REDACTED : value;
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(redact);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, SECRET_FIELD.test(k) ? REDACTED : redact(v)]));
  }
  return value ?? null;
}

function redactChanges(changes: Changes): Changes {
  return Object.fromEntries(
    Object.entries(changes).map(([field, [before, after]]) =>
      SECRET_FIELD.test(field) ? [field, [before == null ? null : REDACTED, after == null ? null : REDACTED]] : [field, [redact(before), redact(after)]],
    ),
  );
}

const same = (a: unknown, b: unknown) => JSON.stringify(redact(a)) === JSON.stringify(redact(b));

/**
 * `{field: [before, after]}` for the fields of `after` whose value differs from `before` (all of
 * `after`'s fields when there was no before: a creation). `fields` limits which are compared.
 */
export function changesOf(before: Record<string, unknown> | null, after: Record<string, unknown>, fields?: readonly string[]): Changes | undefined {
  const changes: Changes = {};
  for (const field of fields ?? Object.keys(after)) {
    const was = before ? (before[field] ?? null) : null;
    const now = after[field] ?? null;
    if (!same(was, now)) changes[field] = [was, now];
  }
  return Object.keys(changes).length ? changes : undefined;
}

/** Writes one entry in the caller's transaction; with nothing changed (an update to the same values) it writes none. */
export async function record(tx: Transaction, input: AuditInput & { skipIfUnchanged?: boolean }): Promise<void> {
  if (input.skipIfUnchanged && !input.changes) return;
  const context = currentAuditContext();
  const actor = input.actor ?? context.actor;
  const changes = input.changes ? redactChanges(input.changes) : null;
  await tx`
    insert into audit_log (id, actor_type, actor_id, actor_email, action, target_type, target_id, changes, ip, user_agent, request_id)
    values (${newId('audit')}, ${actor.type}, ${actor.id.slice(0, 320)}, ${actor.email ?? null}, ${input.action}, ${input.target.type},
            ${input.target.id}, ${changes ? tx.json(changes as JSONValue) : null}, ${context.ip},
            ${context.userAgent?.slice(0, 512) ?? null}, ${context.requestId})`;
}
