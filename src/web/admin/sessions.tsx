// Settings > Your sessions: every team member sees where they are signed in (browser, since when)
// and ends a session there, or every one but this; owners end other members' on the team page.
import { Elysia, t } from 'elysia';
import type { AppContext } from '../../context';
import { endAdminSession, endOtherAdminSessions, listAdminSessions, type AdminSession } from '../../modules/auth/sessions';
import { CsrfInput } from '../forms';
import { Notice } from '../layout';
import { render, seeOther } from '../render';
import type { AdminPage } from '../session';
import { Trunc } from '../ui';
import { AdminLayout, day, Done, type AdminKit } from './kit';
import { SettingsTabs } from './settings-tabs';

const SESSIONS = '/admin/sessions';
const DONE = { ended: 'Session ended: that browser is signed out.', others: 'Signed out everywhere else.', gone: '' };

/** A browser's name from its user agent, in a few words (the full string is in the title). */
function browserOf(ua: string | null): string {
  if (!ua) return 'Unknown browser';
  const browser = /Edg\//.test(ua) ? 'Edge' : /Firefox\//.test(ua) ? 'Firefox' : /Chrome\//.test(ua) ? 'Chrome' : /Safari\//.test(ua) ? 'Safari' : 'Browser';
  const system = /Android/.test(ua) ? 'Android' : /iPhone|iPad/.test(ua) ? 'iOS' : /Mac OS X/.test(ua) ? 'macOS' : /Windows/.test(ua) ? 'Windows' : /Linux/.test(ua) ? 'Linux' : '';
  return system ? `${browser} on ${system}` : browser;
}

function SessionsPage(props: { page: AdminPage; sessions: AdminSession[]; done?: string; error?: string }) {
  const others = props.sessions.filter((s) => !s.current).length;
  return (
    <AdminLayout page={props.page} title="Your sessions" current="/admin/settings">
      <h1>Your sessions</h1>
      <SettingsTabs page={props.page} current={SESSIONS} />
      <Done texts={DONE} done={props.done} />
      {!!props.error && <Notice kind="error" text={props.error} />}
      <p class="hint" safe>
        {`Where ${props.page.email} is signed in. Ending a session signs that browser out at once.`}
      </p>
      <div class="table-wrap">
        <table id="sessions" class="stack">
          <caption class="vh">Your live sessions</caption>
          <thead>
            <tr>
              <th scope="col">Browser</th>
              <th scope="col">Signed in</th>
              <th scope="col">Expires</th>
              <th scope="col" class="act">
                <span class="vh">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {props.sessions.map((s) => (
              <tr data-session={s.id}>
                <td class="lead" title={s.userAgent ?? ''}>
                  <Trunc text={browserOf(s.userAgent)} />
                  {s.current && <span class="badge green"> This browser</span>}
                </td>
                <td data-label="Signed in" safe>
                  {day(s.createdAt.toISOString())}
                </td>
                <td data-label="Expires" safe>
                  {day(s.expiresAt.toISOString())}
                </td>
                <td class="act">
                  {!s.current && (
                    <form method="post" action={`${SESSIONS}/${s.id}/end`}>
                      <CsrfInput token={props.page.csrf} />
                      <button type="submit" class="secondary">
                        End
                      </button>
                    </form>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {others > 0 && (
        <form method="post" action={`${SESSIONS}/others/end`}>
          <CsrfInput token={props.page.csrf} />
          <button type="submit" class="danger">
            Sign out everywhere else
          </button>
        </form>
      )}
    </AdminLayout>
  );
}

export function sessionRoutes(ctx: AppContext, kit: AdminKit) {
  const view = async (page: AdminPage, input: { done?: string; error?: string } = {}, status = 200) =>
    render(<SessionsPage page={page} sessions={await listAdminSessions(ctx.sql, page.email, page.sessionToken)} {...input} />, { status });
  return new Elysia({ detail: { hide: true } })
    .get(SESSIONS, ({ request, query }) => kit.page(request, (page) => view(page, { done: query.done })), {
      query: t.Object({ done: t.Optional(t.String({ maxLength: 20 })) }),
    })
    .post(`${SESSIONS}/others/end`, ({ request, body }) =>
      kit.form(request, body, SESSIONS, async (page) => {
        await endOtherAdminSessions(ctx.sql, page.email, page.sessionToken);
        return seeOther(`${SESSIONS}?done=others`);
      }),
    )
    .post(
      `${SESSIONS}/:id/end`,
      ({ request, body, params }) =>
        kit.form(request, body, SESSIONS, async (page) => {
          if (!(await endAdminSession(ctx.sql, page.email, params.id))) return view(page, { error: 'No such session of yours is live.' }, 404);
          return seeOther(`${SESSIONS}?done=ended`);
        }),
      { params: t.Object({ id: t.String({ maxLength: 64 }) }) },
    );
}
