// Settings > Team (owners only, as the role table says): invite with a role, change a role, sign a
// member out everywhere, remove one (their sessions end at once). The same rules as /v1/team
// (modules/team/service.ts): ADMIN_EMAILS owners and the last owner are kept, with a 409 saying why.
import { Elysia, t } from 'elysia';
import type { AppContext } from '../../context';
import { AppError } from '../../lib/errors';
import { liveAdminSessionCounts, signOutEverywhere } from '../../modules/auth/sessions';
import { isRole } from '../../modules/auth/roles';
import { InviteMemberBody } from '../../modules/team/model';
import { changeRole, findMember, listTeam, removeMember } from '../../modules/team/service';
import { inviteMember } from '../../workflows/invite-member';
import { schemaErrors, type FormErrors } from '../forms';
import { render, seeOther } from '../render';
import type { AdminPage } from '../session';
import type { AdminKit } from './kit';
import { TEAM, TeamPage, type TeamView } from './team-page';

const Params = { params: t.Object({ id: t.String({ maxLength: 64 }) }) };

export function teamRoutes(ctx: AppContext, kit: AdminKit) {
  async function view(page: AdminPage, input: Omit<TeamView, 'page' | 'members' | 'sessions'> = {}, status = 200) {
    const [members, sessions] = await Promise.all([listTeam(ctx.sql, ctx.config.adminEmails), liveAdminSessionCounts(ctx.sql)]);
    return render(<TeamPage page={page} members={members} sessions={sessions} {...input} />, { status });
  }
  /** Runs a change; a refusal the team's rules make (404, 409) is shown on the page, not thrown. */
  async function change(page: AdminPage, act: () => Promise<unknown>, done: string) {
    try {
      await act();
    } catch (error) {
      if (!(error instanceof AppError) || error.status >= 500) throw error;
      return view(page, { error: error.message }, error.status);
    }
    return seeOther(`${TEAM}?done=${done}`);
  }

  return new Elysia({ detail: { hide: true } })
    .get(TEAM, ({ request, query }) => kit.page(request, (page) => view(page, { done: query.done })), {
      query: t.Object({ done: t.Optional(t.String({ maxLength: 20 })) }),
    })
    .post(TEAM, ({ request, body }) =>
      kit.form(request, body, TEAM, async (page, form) => {
        const values = { email: (form.email ?? '').trim().toLowerCase(), role: form.role ?? '' };
        const errors: FormErrors = schemaErrors(InviteMemberBody, values);
        if (errors.role) errors.role = 'choose one of the roles';
        if (Object.keys(errors).length > 0) return view(page, { values, errors }, 400);
        try {
          await inviteMember(ctx, { email: values.email, role: values.role as never, invitedBy: page.email });
        } catch (error) {
          if (!(error instanceof AppError) || error.code !== 'conflict') throw error;
          return view(page, { values, errors: { email: error.message } }, 409);
        }
        return seeOther(`${TEAM}?done=invited`);
      }),
    )
    .post(
      `${TEAM}/:id/role`,
      ({ request, body, params }) =>
        kit.form(request, body, TEAM, async (page, form) => {
          if (!isRole(form.role)) return view(page, { error: 'Role: choose one of the roles.' }, 400);
          return change(page, () => changeRole(ctx.sql, params.id, form.role as never, ctx.config.adminEmails), 'role');
        }),
      Params,
    )
    .post(
      `${TEAM}/:id/remove`,
      ({ request, body, params }) => kit.form(request, body, TEAM, (page) => change(page, () => removeMember(ctx.sql, params.id, ctx.config.adminEmails), 'removed')),
      Params,
    )
    .post(
      `${TEAM}/:id/sign-out`,
      ({ request, body, params }) =>
        kit.form(request, body, TEAM, (page) =>
          change(
            page,
            async () => {
              const member = await findMember(ctx.sql, params.id);
              if (!member) throw new AppError('not_found', 'No such team member.');
              await signOutEverywhere(ctx.sql, member.email);
            },
            'signed-out',
          ),
        ),
      Params,
    );
}
