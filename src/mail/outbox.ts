// The email outbox: callers write a row in their own transaction, so an email exists exactly when the
// change that caused it commits; the worker (worker.ts) sends it. Partner emails whose kind the
// partner turned off are not written at all.
import type { JSONValue } from 'postgres';
import type { Sql, Tx } from '../db';
import { newId } from '../lib/ids';

export const EMAIL_CHANNEL = 'partnerd_emails';

export type EmailInput = {
  /** A name in the registry (registry.ts). */
  template: string;
  to: string;
  /** What the template renders (or its `load` completes at send time); JSON. */
  data: Record<string, unknown>;
  /** The partner it is about: partner emails check its notification switch and link its unsubscribe. */
  partnerId?: string;
  /** At most one email per key, ever: a second enqueue with the same key does nothing. */
  dedupeKey?: string;
  /** The partner's switch that turns this email off (the template's `notification`). */
  notification?: string;
};

/** Writes one email to the outbox; answers its id, or null when opted out or already enqueued. */
export async function enqueueEmail(sql: Tx, input: EmailInput): Promise<string | null> {
  const id = newId('email');
  const optOut = input.notification && input.partnerId ? input.notification : null;
  const rows = await sql`
    insert into email_outbox (id, template, to_address, data, partner_id, dedupe_key)
    select ${id}, ${input.template}, ${input.to}, ${sql.json(input.data as JSONValue)}, ${input.partnerId ?? null}, ${input.dedupeKey ?? null}
    where ${optOut}::text is null
       or coalesce((select (notifications ->> ${optOut}::text)::boolean from partners where id = ${input.partnerId ?? null}), true)
    on conflict (dedupe_key) do nothing
    returning id`;
  if (rows.length === 0) return null;
  await sql`select pg_notify(${EMAIL_CHANNEL}, ${id})`;
  return id;
}

/** The address of an email to the admins: every ADMIN_EMAILS address and the team members its template is for (as they are when it is sent). */
export const ADMINS = '@admins';

/** One email to each address in ADMIN_EMAILS; answers its id, or null when dedupeKey was used before. */
export async function enqueueAdminEmail(sql: Tx, input: Omit<EmailInput, 'to' | 'partnerId' | 'notification'>): Promise<string | null> {
  return enqueueEmail(sql, { ...input, to: ADMINS });
}

/** An email the worker is retrying or gave up on. */
export type OutboxTrouble = { id: string; template: string; to_address: string; status: string; attempts: number; last_error: string | null; next_attempt_at: Date; created_at: Date };

/** The outbox's recent trouble, newest first: emails retrying (tried at least once) or failed; at most 50. */
export async function outboxTrouble(sql: Sql): Promise<OutboxTrouble[]> {
  return [
    ...(await sql<OutboxTrouble[]>`
      select id, template, to_address, status, attempts, last_error, next_attempt_at, created_at from email_outbox
      where status = 'failed' or (status = 'pending' and attempts > 0)
      order by id desc limit 50`),
  ];
}
