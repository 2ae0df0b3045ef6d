// Browser sessions (partner portal and admin UI): a random id in an HttpOnly cookie, stored hashed.
import type { Sql, Transaction, Tx } from '../../db';
import { record } from '../audit/service';
import { randomToken, sha256 } from '../../lib/crypto';
import { DAY } from '../../lib/time';
import type { Role } from './roles';
import type { Principal } from './scopes';

export const SESSION_COOKIE = 'partnerd_session';
export const SESSION_TTL_MS = 30 * DAY;

/** The Set-Cookie value of the session cookie; an empty value with maxAge 0 clears it. */
export function sessionCookie(baseUrl: string, value: string, maxAgeSeconds: number): string {
  const secure = baseUrl.startsWith('https://');
  return `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure ? '; Secure' : ''}`;
}

export type SessionOwner = { kind: 'partner'; partnerId: string } | { kind: 'admin'; email: string };

/** Opens a session; answers the cookie value. */
export async function createSession(sql: Tx, owner: SessionOwner, userAgent: string | null = null): Promise<{ token: string; expiresAt: Date }> {
  const token = randomToken(32);
  const expiresAt = new Date(Date.now() + SESSION_TTL_MS);
  await sql`
    insert into sessions (id_hash, kind, partner_id, admin_email, expires_at, user_agent)
    values (${sha256(token)}, ${owner.kind}, ${owner.kind === 'partner' ? owner.partnerId : null},
            ${owner.kind === 'admin' ? owner.email : null}, ${expiresAt}, ${userAgent?.slice(0, 300) ?? null})`;
  return { token, expiresAt };
}

/**
 * The principal behind a session cookie; null when unknown, ended, expired, or its partner revoked.
 * An admin session carries its role, read afresh each time: an ADMIN_EMAILS address is an owner, a
 * team member has their role; anyone else (removed from both) has no access at once.
 */
export async function principalForSession(sql: Sql, token: string, adminEmails: string[]): Promise<Principal | null> {
  const [row] = await sql<{ kind: 'partner' | 'admin'; partner_id: string; admin_email: string; role: Role | null; source: string | null }[]>`
    select s.kind, s.partner_id, s.admin_email, t.role, t.source
    from sessions s left join partners p on p.id = s.partner_id
      left join team_members t on t.email = s.admin_email
    where s.id_hash = ${sha256(token)} and s.revoked_at is null and s.expires_at > now()
      and (s.kind = 'admin' or p.revoked_at is null)`;
  if (!row) return null;
  if (row.kind === 'partner') return { kind: 'partner', partnerId: row.partner_id, keyId: null };
  const role = adminRole(row.admin_email, adminEmails, row.role && row.source !== 'env' ? row.role : null);
  if (!role) return null;
  return { kind: 'admin', keyId: null, email: row.admin_email, role };
}

/** An admin's role: owner for an ADMIN_EMAILS address, else the team member's role, else none. */
export function adminRole(email: string, adminEmails: string[], memberRole: Role | null): Role | null {
  return adminEmails.includes(email) ? 'owner' : memberRole;
}

/**
 * The revoke reason behind a partner session that its partner's revocation ended (revoking ends
 * every session): `{ reason }` (null when none was given), or null for any other cookie.
 */
export async function revokedSessionReason(sql: Sql, token: string): Promise<{ reason: string | null } | null> {
  const [row] = await sql<{ revoke_reason: string | null }[]>`
    select p.revoke_reason from sessions s join partners p on p.id = s.partner_id
    where s.id_hash = ${sha256(token)} and s.kind = 'partner' and s.expires_at > now()
      and p.revoked_at is not null and s.revoked_at >= p.revoked_at`;
  return row ? { reason: row.revoke_reason ?? null } : null;
}

export async function endSession(sql: Sql, token: string): Promise<void> {
  await sql`update sessions set revoked_at = now() where id_hash = ${sha256(token)} and revoked_at is null`;
}

export async function endPartnerSessions(sql: Tx, partnerId: string): Promise<number> {
  const rows = await sql`
    update sessions set revoked_at = now()
    where partner_id = ${partnerId} and revoked_at is null
    returning id_hash`;
  return rows.length;
}

/** Ends every session of an admin (removed from the team, or signed out everywhere by an owner). */
export async function endAdminSessions(sql: Tx, email: string): Promise<number> {
  const rows = await sql`
    update sessions set revoked_at = now()
    where kind = 'admin' and admin_email = ${email} and revoked_at is null
    returning id_hash`;
  return rows.length;
}

/**
 * The audit entry of ended admin sessions (`session.revoked`), on the member whose they were (by
 * their team id; an ADMIN_EMAILS owner without a row yet by address). `which`: one, others, all.
 */
async function recordRevoked(tx: Transaction, email: string, ended: number, which: 'one' | 'others' | 'all'): Promise<void> {
  if (ended === 0) return;
  const [member] = await tx<{ id: string }[]>`select id from team_members where email = ${email}`;
  await record(tx, { action: 'session.revoked', target: { type: 'team_member', id: member?.id ?? email }, changes: { sessionsEnded: [0, ended], which: [null, which] } });
}

/** An owner signs a member out everywhere (the team page): every session of theirs ends, logged. */
export async function signOutEverywhere(sql: Sql, email: string): Promise<number> {
  return sql.begin(async (tx) => {
    const ended = await endAdminSessions(tx, email);
    await recordRevoked(tx, email, ended, 'all');
    return ended;
  });
}

/** An admin's live session as their sessions page shows it; `id` is a handle, not the cookie. */
export type AdminSession = { id: string; createdAt: Date; expiresAt: Date; userAgent: string | null; current: boolean };

/** The handle of a session: the start of its stored hash (the cookie cannot be had from it). */
const handleOf = (idHash: string) => idHash.slice(0, 24);

/** The live sessions of `email`, newest first; `current` marks the one of `token`. */
export async function listAdminSessions(sql: Sql, email: string, token: string): Promise<AdminSession[]> {
  const rows = await sql<{ id_hash: string; created_at: Date; expires_at: Date; user_agent: string | null }[]>`
    select id_hash, created_at, expires_at, user_agent from sessions
    where kind = 'admin' and admin_email = ${email} and revoked_at is null and expires_at > now()
    order by created_at desc limit 100`;
  const mine = sha256(token);
  return rows.map((r) => ({ id: handleOf(r.id_hash), createdAt: r.created_at, expiresAt: r.expires_at, userAgent: r.user_agent, current: r.id_hash === mine }));
}

/** Ends one session of `email` by its handle; false when none such is live. */
export async function endAdminSession(sql: Sql, email: string, handle: string): Promise<boolean> {
  if (!/^[0-9a-f]{24}$/.test(handle)) return false;
  return sql.begin(async (tx) => {
    const rows = await tx`
      update sessions set revoked_at = now()
      where kind = 'admin' and admin_email = ${email} and left(id_hash, 24) = ${handle} and revoked_at is null
      returning id_hash`;
    await recordRevoked(tx, email, rows.length, 'one');
    return rows.length > 0;
  });
}

/** Ends every session of `email` but the one of `token` (sign out everywhere else). */
export async function endOtherAdminSessions(sql: Sql, email: string, token: string): Promise<number> {
  return sql.begin(async (tx) => {
    const rows = await tx`
      update sessions set revoked_at = now()
      where kind = 'admin' and admin_email = ${email} and id_hash <> ${sha256(token)} and revoked_at is null
      returning id_hash`;
    await recordRevoked(tx, email, rows.length, 'others');
    return rows.length;
  });
}

/** How many live sessions each admin has (the team page's column). */
export async function liveAdminSessionCounts(sql: Sql): Promise<Map<string, number>> {
  const rows = await sql<{ admin_email: string; n: number }[]>`
    select admin_email, count(*)::int as n from sessions
    where kind = 'admin' and revoked_at is null and expires_at > now() group by admin_email`;
  return new Map(rows.map((r) => [r.admin_email, r.n]));
}
