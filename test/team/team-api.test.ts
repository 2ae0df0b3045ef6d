// The team API: invite with a role (a sign-in link arrives), list, change roles, remove; owners from
// ADMIN_EMAILS cannot be changed or removed, the last owner is kept, bad input is a 400 naming the
// field and changes nothing; an owner's session may manage the team, other roles may not; a removed
// member's sessions end at once.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startService, type TestService } from '../support/service';

const OWNER = 'owner@operator.example';
let svc: TestService;

beforeAll(async () => {
  svc = await startService({ ADMIN_EMAILS: OWNER });
});
afterAll(() => svc?.stop());

/** Follows the member's newest sign-in link as a browser would; answers the session cookie. */
async function signInByMail(email: string, before = 0): Promise<string> {
  const link = await svc.mail.magicLink(email, (m) => svc.mail.messages.indexOf(m) >= before);
  const res = await fetch(link, { redirect: 'manual' });
  expect(res.status).toBe(302);
  expect(res.headers.get('location')).toBe('/admin');
  return res.headers.get('set-cookie')!.split(';')[0]!;
}

const withSession = (cookie: string, write = false) => ({ key: null, headers: { cookie, ...(write ? { origin: svc.url } : {}) } });
const count = async () => (await svc.sql`select count(*)::int as n from team_members where source <> 'env'`)[0]!.n as number;

describe('inviting', () => {
  test('an invite adds the member with their role and mails them a sign-in link to the admin', async () => {
    const before = svc.mail.messages.length;
    const res = await svc.api('POST', '/v1/team', { body: { email: 'Fin@Operator.example', role: 'finance' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ email: 'fin@operator.example', role: 'finance', source: 'invite', lastSignInAt: null });
    expect(res.body.id).toMatch(/^mbr_/);
    const cookie = await signInByMail('fin@operator.example', before);
    // signed in as finance: the member's last sign-in is noted
    const team = await svc.api('GET', '/v1/team');
    const fin = team.body.members.find((m: { email: string }) => m.email === 'fin@operator.example');
    expect(fin.lastSignInAt).not.toBeNull();
    // the session is a finance one: reads pass, the team is refused
    expect((await svc.api('GET', '/v1/partners', withSession(cookie))).status).toBe(200);
    const refused = await svc.api('GET', '/v1/team', withSession(cookie));
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'forbidden', message: 'your role (finance) may not do this' });
  });

  test('a team member asks for a sign-in link on the admin sign-in like an owner does', async () => {
    await svc.api('POST', '/v1/team', { body: { email: 'asks@operator.example', role: 'viewer' } });
    const before = svc.mail.messages.length;
    expect((await svc.api('POST', '/auth/magic-link', { key: null, body: { email: 'asks@operator.example' } })).status).toBe(202);
    await signInByMail('asks@operator.example', before);
  });

  test('the list names the ADMIN_EMAILS owner first, as an owner the API cannot remove', async () => {
    const res = await svc.api('GET', '/v1/team');
    expect(res.status).toBe(200);
    expect(res.body.members[0]).toMatchObject({ email: OWNER, role: 'owner', source: 'env' });
  });

  test.each([
    [{ email: 'x@operator.example', role: 'boss' }, 'role'],
    [{ email: 'not-an-email', role: 'viewer' }, 'email'],
    [{ email: 'x@operator.example' }, 'role'],
    [{ email: 'x@operator.example', role: 'viewer', extra: 1 }, 'extra'],
  ])('a bad body %j is a 400 naming %s and adds no one', async (body, field) => {
    const before = await count();
    const res = await svc.api('POST', '/v1/team', { body });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_body');
    expect(JSON.stringify(res.body.details)).toContain(`"field":"${field}"`);
    expect(await count()).toBe(before);
  });

  test('the same address twice, or an ADMIN_EMAILS owner, is a 409', async () => {
    await svc.api('POST', '/v1/team', { body: { email: 'twice@operator.example', role: 'viewer' } });
    expect((await svc.api('POST', '/v1/team', { body: { email: 'twice@operator.example', role: 'admin' } })).status).toBe(409);
    expect((await svc.api('POST', '/v1/team', { body: { email: OWNER, role: 'viewer' } })).status).toBe(409);
  });
});

describe('roles and owners', () => {
  test('an ADMIN_EMAILS owner cannot be demoted or removed through the API (409)', async () => {
    const owner = (await svc.api('GET', '/v1/team')).body.members[0];
    const patch = await svc.api('PATCH', `/v1/team/${owner.id}`, { body: { role: 'viewer' } });
    expect(patch.status).toBe(409);
    expect(patch.body.message).toContain('ADMIN_EMAILS');
    expect((await svc.api('DELETE', `/v1/team/${owner.id}`)).status).toBe(409);
  });

  test('a role change takes effect on the next request; an invalid role is a 400 naming role', async () => {
    const member = (await svc.api('POST', '/v1/team', { body: { email: 'moves@operator.example', role: 'viewer' } })).body;
    const cookie = await signInByMail('moves@operator.example');
    expect((await svc.api('POST', '/v1/partners', { ...withSession(cookie, true), body: { email: 'p1@example.com', name: 'P1', sendInvite: false } })).status).toBe(403);
    const bad = await svc.api('PATCH', `/v1/team/${member.id}`, { body: { role: 'superuser' } });
    expect(bad.status).toBe(400);
    expect(bad.body.details).toEqual([expect.objectContaining({ field: 'role' })]);
    expect((await svc.api('PATCH', `/v1/team/${member.id}`, { body: { role: 'support' } })).body.role).toBe('support');
    expect((await svc.api('POST', '/v1/partners', { ...withSession(cookie, true), body: { email: 'p1@example.com', name: 'P1', sendInvite: false } })).status).toBe(201);
    // support has no money actions
    expect((await svc.api('POST', '/v1/payouts/run', withSession(cookie, true))).status).toBe(403);
  });

  test("an owner's session manages the team; an admin's session may not", async () => {
    await svc.api('POST', '/v1/team', { body: { email: 'second-owner@operator.example', role: 'owner' } });
    const owner = await signInByMail('second-owner@operator.example');
    const made = await svc.api('POST', '/v1/team', { ...withSession(owner, true), body: { email: 'by-owner@operator.example', role: 'admin' } });
    expect(made.status).toBe(201);
    const admin = await signInByMail('by-owner@operator.example');
    const before = await count();
    const refused = await svc.api('POST', '/v1/team', { ...withSession(admin, true), body: { email: 'by-admin@operator.example', role: 'owner' } });
    expect(refused.status).toBe(403);
    expect(await count()).toBe(before);
    // but an admin does everything else: settings, API keys
    expect((await svc.api('GET', '/v1/settings', withSession(admin))).status).toBe(200);
  });
});

describe('removing', () => {
  test("removing a member ends their sessions at once and they cannot sign in again", async () => {
    const member = (await svc.api('POST', '/v1/team', { body: { email: 'leaves@operator.example', role: 'admin' } })).body;
    const cookie = await signInByMail('leaves@operator.example');
    expect((await svc.api('GET', '/v1/partners', withSession(cookie))).status).toBe(200);
    const res = await svc.api('DELETE', `/v1/team/${member.id}`);
    expect(res.status).toBe(200);
    expect(res.body.email).toBe('leaves@operator.example');
    expect((await svc.api('GET', '/v1/partners', withSession(cookie))).status).toBe(401);
    const [row] = await svc.sql`select count(*)::int as n from sessions where admin_email = 'leaves@operator.example' and revoked_at is null`;
    expect(row!.n).toBe(0);
    const before = svc.mail.messages.length;
    expect((await svc.api('POST', '/auth/magic-link', { key: null, body: { email: 'leaves@operator.example' } })).status).toBe(202);
    await Bun.sleep(300);
    expect(svc.mail.messages.slice(before).filter((m) => m.to === 'leaves@operator.example')).toEqual([]);
    expect((await svc.api('DELETE', `/v1/team/${member.id}`)).status).toBe(404);
  });
});

describe('the last owner', () => {
  let alone: TestService;
  beforeAll(async () => {
    // no ADMIN_EMAILS: the owners are members only
    alone = await startService();
  });
  afterAll(() => alone?.stop());

  test('cannot be demoted or removed (409); with a second owner both work', async () => {
    const first = (await alone.api('POST', '/v1/team', { body: { email: 'only@operator.example', role: 'owner' } })).body;
    const demote = await alone.api('PATCH', `/v1/team/${first.id}`, { body: { role: 'admin' } });
    expect(demote.status).toBe(409);
    expect(demote.body.message).toContain('last owner');
    expect((await alone.api('DELETE', `/v1/team/${first.id}`)).status).toBe(409);
    expect((await alone.sql`select role from team_members where id = ${first.id}`)[0]!.role).toBe('owner');
    await alone.api('POST', '/v1/team', { body: { email: 'next@operator.example', role: 'owner' } });
    expect((await alone.api('PATCH', `/v1/team/${first.id}`, { body: { role: 'viewer' } })).body.role).toBe('viewer');
    expect((await alone.api('DELETE', `/v1/team/${first.id}`)).status).toBe(200);
  });
});
