// The limits on sign-in mails (magic links, signups), counted in PostgreSQL so that every replica
// sees the same count and a restart forgets nothing (sliding windows): per email, at most
// SIGN_IN_LIMIT.requests in SIGN_IN_LIMIT.windowMs; per network the request came from (an IPv4
// address, an IPv6 /64), at most SIGN_IN_NETWORK_LIMIT, so one address cannot mail many emails.
import type { Sql } from '../../db';
import { sha256 } from '../../lib/crypto';
import { RateLimited } from '../../lib/errors';
import { MINUTE } from '../../lib/time';
import { networkOf } from '../fraud/signals';

export const SIGN_IN_LIMIT = { requests: 5, windowMs: 15 * MINUTE } as const;
export const SIGN_IN_NETWORK_LIMIT = { requests: 20, windowMs: 15 * MINUTE } as const;

/** How many expired rows one request deletes at most: more than it adds, so the table stays small. */
const PRUNE_BATCH = 100;

/** The stored form of an email: its hash, so the table is not a list of addresses. */
export const signInEmailHash = (email: string) => sha256(`partnerd:sign-in:${email.trim().toLowerCase()}`);

type Window = { table: 'sign_in_requests' | 'sign_in_networks'; column: 'email_hash' | 'network_hash'; limit: { requests: number; windowMs: number } };

/**
 * Counts one request under `hash` in a window, or throws RateLimited when the window already holds
 * the limit (a refused request is not counted). A transaction-scoped advisory lock on the hash
 * serialises concurrent requests for it, whichever replica they reach.
 */
async function take(sql: Sql, { table, column, limit }: Window, hash: string): Promise<void> {
  const window = limit.windowMs;
  const retryInMs = await sql.begin(async (tx): Promise<number | null> => {
    await tx`select pg_advisory_xact_lock(hashtextextended(${`partnerd:${table}:` + hash}, 0))`;
    // expired rows of any key; skip locked: a concurrent request is already deleting those
    await tx`
      delete from ${tx(table)} where id in (
        select id from ${tx(table)} where created_at <= now() - ${window} * interval '1 millisecond'
        order by created_at limit ${PRUNE_BATCH} for update skip locked)`;
    const recent = await tx<{ retry_in_ms: string }[]>`
      select extract(epoch from (created_at + ${window} * interval '1 millisecond' - now())) * 1000 as retry_in_ms
      from ${tx(table)}
      where ${tx(column)} = ${hash} and created_at > now() - ${window} * interval '1 millisecond'
      order by created_at`;
    if (recent.length >= limit.requests) return Number(recent[0]!.retry_in_ms);
    await tx`insert into ${tx(table)} (${tx(column)}) values (${hash})`;
    return null;
  });
  if (retryInMs !== null) throw new RateLimited(Math.max(1, Math.ceil(retryInMs / 1000)));
}

/** Counts one sign-in mail for `email`, or throws rate_limited (429) past the per-email limit. */
export async function takeSignInRequest(sql: Sql, email: string): Promise<void> {
  await take(sql, { table: 'sign_in_requests', column: 'email_hash', limit: SIGN_IN_LIMIT }, signInEmailHash(email));
}

/** This machine: a local script, or a proxy on this host not declared with TRUST_PROXY. */
const isLoopback = (ip: string) => ip === '::1' || ip.startsWith('127.');

/**
 * Counts one sign-in request from `ip`'s network, or throws rate_limited (429) past the
 * per-network limit. Requests from this machine are not counted: behind a proxy on the same host
 * that TRUST_PROXY does not name, every visitor would share one address and lock each other out
 * (the per-email limit still holds for them).
 */
export async function takeSignInNetwork(sql: Sql, ip: string | null): Promise<void> {
  if (ip === null || isLoopback(ip)) return;
  await take(sql, { table: 'sign_in_networks', column: 'network_hash', limit: SIGN_IN_NETWORK_LIMIT }, sha256(`partnerd:sign-in-ip:${networkOf(ip)}`));
}
