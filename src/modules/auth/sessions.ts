// Browser sessions (partner portal and admin UI): a random id in an HttpOnly cookie, stored hashed.
import type { Sql, Tx } from '../../db';
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
export async function createSession(sql: Tx, owner: SessionOwner): Promise<{ token: string; expiresAt: Date }> {
  const token = randomToken(32);
  const expiresAt = new Date(Date.now() + SESSION_TTL_MS);
  await sql`
    insert into sessions (id_hash, kind, partner_id, admin_email, expires_at)
    values (${sha256(token)}, ${owner.kind}, ${owner.kind === 'partner' ? owner.partnerId : null},
            ${owner.kind === 'admin' ? owner.email : null}, ${expiresAt})`;
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
