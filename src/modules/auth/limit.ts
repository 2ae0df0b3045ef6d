// The per-email limit on sign-in mails (magic links, signups), counted in PostgreSQL so that every
// replica sees the same count and a restart forgets nothing: at most SIGN_IN_LIMIT.requests in any
// SIGN_IN_LIMIT.windowMs (a sliding window).
import type { Sql } from '../../db';
import { sha256 } from '../../lib/crypto';
import { AppError } from '../../lib/errors';
import { MINUTE } from '../../lib/time';

export const SIGN_IN_LIMIT = { requests: 5, windowMs: 15 * MINUTE } as const;

/** How many expired rows one request deletes at most: more than it adds, so the table stays small. */
const PRUNE_BATCH = 100;

/** The stored form of an email: its hash, so the table is not a list of addresses. */
export const signInEmailHash = (email: string) => sha256(`partnerd:sign-in:${email.trim().toLowerCase()}`);

/**
 * Counts one sign-in mail for `email`, or throws rate_limited when the window already holds the
 * limit (a refused request is not counted). A transaction-scoped advisory lock on the email's hash
 * serialises concurrent requests for one email, whichever replica they reach.
 */
export async function takeSignInRequest(sql: Sql, email: string): Promise<void> {
  const emailHash = signInEmailHash(email);
  const window = SIGN_IN_LIMIT.windowMs;
  const retryInMs = await sql.begin(async (tx): Promise<number | null> => {
    await tx`select pg_advisory_xact_lock(hashtextextended(${'partnerd:sign-in:' + emailHash}, 0))`;
    // expired rows of any email; skip locked: a concurrent request is already deleting those
    await tx`
      delete from sign_in_requests where id in (
        select id from sign_in_requests where created_at <= now() - ${window} * interval '1 millisecond'
        order by created_at limit ${PRUNE_BATCH} for update skip locked)`;
    const recent = await tx<{ retry_in_ms: string }[]>`
      select extract(epoch from (created_at + ${window} * interval '1 millisecond' - now())) * 1000 as retry_in_ms
      from sign_in_requests
      where email_hash = ${emailHash} and created_at > now() - ${window} * interval '1 millisecond'
      order by created_at`;
    if (recent.length >= SIGN_IN_LIMIT.requests) return Number(recent[0]!.retry_in_ms);
    await tx`insert into sign_in_requests (email_hash) values (${emailHash})`;
    return null;
  });
  if (retryInMs !== null) {
    throw new AppError('rate_limited', `too many requests; try again in ${Math.max(1, Math.ceil(retryInMs / 1000))} s`);
  }
}
