// The admin team (served unprefixed and under /v1): list, invite, change a role, remove. The admin
// key or an owner's session (the role table, modules/auth/roles.ts, names these routes).
import { Elysia } from 'elysia';
import type { AppContext } from '../context';
import { authPlugin } from '../modules/auth/plugin';
import type { Principal } from '../modules/auth/scopes';
import { ChangeRoleBody, InviteMemberBody, MemberParams, TeamResponses } from '../modules/team/model';
import { changeRole, listTeam, removeMember } from '../modules/team/service';
import { inviteMember } from '../workflows/invite-member';

const inviter = (p: Principal) => (p.kind === 'admin' ? (p.email ?? (p.keyId ? `key:${p.keyId}` : null)) : null);

export function teamRoutes(ctx: AppContext) {
  return new Elysia({ tags: ['Team'] })
    .use(authPlugin(ctx))
    .get('/team', async () => ({ members: await listTeam(ctx.sql, ctx.config.adminEmails) }), {
      auth: 'admin',
      response: TeamResponses.list,
      detail: { summary: 'List the admin team (owners from ADMIN_EMAILS first)' },
    })
    .post(
      '/team',
      async ({ body, set, principal }) => {
        set.status = 201;
        return inviteMember(ctx, { email: body.email.trim().toLowerCase(), role: body.role, invitedBy: inviter(principal) });
      },
      { auth: 'admin', body: InviteMemberBody, response: TeamResponses.invite, detail: { summary: 'Invite a team member with a role (mails them a sign-in link)' } },
    )
    .patch('/team/:id', ({ params, body }) => changeRole(ctx.sql, params.id, body.role, ctx.config.adminEmails), {
      auth: 'admin',
      params: MemberParams,
      body: ChangeRoleBody,
      response: TeamResponses.change,
      detail: { summary: "Change a member's role (the last owner cannot be demoted: 409)" },
    })
    .delete('/team/:id', ({ params }) => removeMember(ctx.sql, params.id, ctx.config.adminEmails), {
      auth: 'admin',
      params: MemberParams,
      response: TeamResponses.remove,
      detail: { summary: 'Remove a member and end their sessions (not an ADMIN_EMAILS owner, not the last owner: 409)' },
    });
}
