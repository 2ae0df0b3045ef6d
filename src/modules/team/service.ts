// The admin team: members and their roles. ADMIN_EMAILS addresses are owners the API cannot change
// or remove (kept as rows of source 'env' so they have an id and a last sign-in); the last owner can
// be neither demoted nor removed. Removing a member ends their sessions in the same transaction.
import type { Config } from '../../config';
import type { Sql, Transaction, Tx } from '../../db';
import { adminCanSignIn } from '../../lib/first-run';
import { conflict, notFound } from '../../lib/errors';
import { isId, newId } from '../../lib/ids';
import { iso } from '../../lib/time';
import type { Role } from '../auth/roles';
import { record } from '../audit/service';
import { endAdminSessions } from '../auth/sessions';
import type { MemberRecord } from './model';

export type Member = typeof MemberRecord.static;
type Source = Member['source'];

type MemberRow = { id: string; email: string; role: Role; source: Source; created_at: Date; last_sign_in_at: Date | null };

function toMember(row: MemberRow): Member {
  return { id: row.id, email: row.email, role: row.role, source: row.source, createdAt: iso(row.created_at)!, lastSignInAt: iso(row.last_sign_in_at) };
}

/**
 * Makes the table agree with ADMIN_EMAILS: each address an owner row of source 'env' (a member
 * named there since becomes one), and env rows of addresses taken out of it gone.
 */
export async function syncEnvOwners(sql: Tx, adminEmails: string[]): Promise<void> {
  await sql`delete from team_members where source = 'env' and not (email = any(${adminEmails}))`;
  for (const email of adminEmails) {
    await sql`
      insert into team_members (id, email, role, source) values (${newId('teamMember')}, ${email}, 'owner', 'env')
      on conflict (email) do update set role = 'owner', source = 'env'
      where team_members.source <> 'env' or team_members.role <> 'owner'`;
  }
}

/** Every member, owners from ADMIN_EMAILS first, then by when they joined. */
export async function listTeam(sql: Sql, adminEmails: string[]): Promise<Member[]> {
  return sql.begin(async (tx) => {
    await syncEnvOwners(tx, adminEmails);
    const rows = await tx<MemberRow[]>`
      select id, email, role, source, created_at, last_sign_in_at from team_members
      order by source = 'env' desc, id`;
    return rows.map(toMember);
  });
}

export async function findMember(sql: Tx, id: string): Promise<Member | null> {
  if (!isId('teamMember', id)) return null;
  const [row] = await sql<MemberRow[]>`select id, email, role, source, created_at, last_sign_in_at from team_members where id = ${id}`;
  return row ? toMember(row) : null;
}

/** Whether anyone besides ADMIN_EMAILS is on the team (and so can sign in to the admin). */
/**
 * Whether nobody can sign in to the admin: no ADMIN_EMAILS owner, nobody on the team, and no single
 * sign-on domain to join from (the sign-in page's note and the start log's warning).
 */
export async function nobodyCanSignIn(sql: Tx, config: Pick<Config, 'adminEmails'>, ssoDomains: readonly string[]): Promise<boolean> {
  return !adminCanSignIn(config) && ssoDomains.length === 0 && !(await anyMemberCanSignIn(sql));
}

export async function anyMemberCanSignIn(sql: Tx): Promise<boolean> {
  const [row] = await sql<{ any: boolean }[]>`select exists (select 1 from team_members where source <> 'env') as any`;
  return row!.any;
}

/** The role of a member who may sign in to the admin (not counting ADMIN_EMAILS), or null. */
export async function memberRole(sql: Tx, email: string): Promise<Role | null> {
  const [row] = await sql<{ role: Role }[]>`select role from team_members where email = ${email} and source <> 'env'`;
  return row?.role ?? null;
}

const target = (m: Pick<Member, 'id'>) => ({ type: 'team_member', id: m.id });

/**
 * Adds a member; 409 when the address already is one (or an ADMIN_EMAILS owner). The audit log
 * reads `team.member_invited` (an invitation) or `team.member_joined` (single sign-on).
 */
export async function addMember(sql: Transaction, input: { email: string; role: Role; source: Exclude<Source, 'env'>; invitedBy: string | null }, adminEmails: string[]): Promise<Member> {
  const email = input.email.trim().toLowerCase();
  if (adminEmails.includes(email)) throw conflict(`${email} is an owner through ADMIN_EMAILS already`);
  const [row] = await sql<MemberRow[]>`
    insert into team_members (id, email, role, source, invited_by)
    values (${newId('teamMember')}, ${email}, ${input.role}, ${input.source}, ${input.invitedBy})
    on conflict (email) do nothing
    returning id, email, role, source, created_at, last_sign_in_at`;
  if (!row) throw conflict(`${email} is on the team already`);
  await record(sql, {
    action: input.source === 'sso' ? 'team.member_joined' : 'team.member_invited',
    target: target(row),
    changes: { email: [null, row.email], role: [null, row.role], source: [null, row.source] },
    // who joins by single sign-on is their own actor (nobody else is signed in on that request)
    ...(input.source === 'sso' ? { actor: { type: 'admin' as const, id: row.email, email: row.email } } : {}),
  });
  return toMember(row);
}

/**
 * The member `id`, locked for a change: 404 when unknown, 409 for an ADMIN_EMAILS owner. The owner
 * rows are locked too, so two owners demoting each other at once cannot leave none.
 */
async function lockForChange(tx: Tx, id: string, adminEmails: string[], verb: string): Promise<{ member: Member; otherOwners: number }> {
  await syncEnvOwners(tx, adminEmails);
  const owners = await tx<{ id: string }[]>`select id from team_members where role = 'owner' order by id for update`;
  const member = await findMember(tx, id);
  if (!member) throw notFound('team member');
  if (member.source === 'env') throw conflict(`${member.email} is an owner through ADMIN_EMAILS; the API cannot ${verb} it (change ADMIN_EMAILS instead)`);
  return { member, otherOwners: owners.filter((o) => o.id !== id).length };
}

export async function changeRole(sql: Sql, id: string, role: Role, adminEmails: string[]): Promise<Member> {
  return sql.begin(async (tx) => {
    const { member, otherOwners } = await lockForChange(tx, id, adminEmails, 'change');
    if (member.role === 'owner' && role !== 'owner' && otherOwners === 0) throw conflict('the last owner cannot be demoted; make another member an owner first');
    const [row] = await tx<MemberRow[]>`
      update team_members set role = ${role} where id = ${id}
      returning id, email, role, source, created_at, last_sign_in_at`;
    if (member.role !== role) await record(tx, { action: 'team.role_changed', target: target(member), changes: { role: [member.role, role] } });
    return toMember(row!);
  });
}

/** Removes a member and ends every session of theirs at once. */
export async function removeMember(sql: Sql, id: string, adminEmails: string[]): Promise<Member> {
  return sql.begin(async (tx) => {
    const { member, otherOwners } = await lockForChange(tx, id, adminEmails, 'remove');
    if (member.role === 'owner' && otherOwners === 0) throw conflict('the last owner cannot be removed; make another member an owner first');
    await tx`delete from team_members where id = ${id}`;
    const ended = await endAdminSessions(tx, member.email);
    await record(tx, { action: 'team.member_removed', target: target(member), changes: { email: [member.email, null], role: [member.role, null], liveSessions: [ended, 0] } });
    return member;
  });
}

/** Notes a sign-in: an ADMIN_EMAILS owner gets their row first. */
export async function recordSignIn(sql: Tx, email: string, adminEmails: string[]): Promise<void> {
  if (adminEmails.includes(email)) await syncEnvOwners(sql, adminEmails);
  await sql`update team_members set last_sign_in_at = now() where email = ${email}`;
}

/** An admin's role now: owner for ADMIN_EMAILS, the member's role, or null (no admin access). */
export async function roleOf(sql: Tx, email: string, adminEmails: string[]): Promise<Role | null> {
  if (adminEmails.includes(email)) return 'owner';
  return memberRole(sql, email);
}
