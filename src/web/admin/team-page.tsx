// The team page's view (Settings > Team): the members with their role, last sign-in and live
// sessions; invite by email with a role; per member a menu to change the role, sign them out
// everywhere, or remove them. Owners from ADMIN_EMAILS show why they cannot be changed here.
import { ROLE_LABELS, ROLES, type Role } from '../../modules/auth/roles';
import type { Member } from '../../modules/team/service';
import { CsrfInput, Field, SelectField, type FormErrors } from '../forms';
import { Notice } from '../layout';
import type { AdminPage } from '../session';
import { Badge, MenuButton, menuId, RowMenu, Trunc } from '../ui';
import { AdminLayout, day, Done } from './kit';
import { SettingsTabs } from './settings-tabs';

export const TEAM = '/admin/team';

export const ROLE_WORDS: Record<Role, string> = {
  owner: 'everything, and the team',
  admin: 'everything but the team',
  finance: 'reads all; approves, reverses and pays',
  support: 'reads all; partners, codes, links, review',
  viewer: 'reads only',
};

const roleOptions = ROLES.map((r) => ({ value: r, label: `${ROLE_LABELS[r]}: ${ROLE_WORDS[r]}` }));

export const TEAM_DONE: Record<string, string> = {
  invited: 'Invitation sent: the sign-in link is on its way.',
  role: 'Role changed: it applies from their next click.',
  removed: 'Member removed: their sessions have ended.',
  'signed-out': 'Signed out everywhere: their sessions have ended.',
};

export type TeamView = {
  page: AdminPage;
  members: Member[];
  sessions: Map<string, number>;
  values?: { email: string; role: string };
  errors?: FormErrors;
  done?: string;
  error?: string;
};

function MemberRow(props: { member: Member; sessions: number; you: boolean }) {
  const m = props.member;
  return (
    <tr data-id={m.id} data-email={m.email}>
      <td class="lead">
        <Trunc text={m.email} />
        {props.you && <span class="hint"> (you)</span>}
      </td>
      <td data-label="Role">
        <Badge tone={m.role === 'owner' ? 'blue' : m.role === 'viewer' ? 'grey' : 'green'} label={ROLE_LABELS[m.role]} title={ROLE_WORDS[m.role]} />
      </td>
      <td data-label="Added" safe>
        {m.source === 'env' ? 'ADMIN_EMAILS' : m.source === 'sso' ? `SSO, ${day(m.createdAt)}` : day(m.createdAt)}
      </td>
      <td data-label="Last sign-in">{m.lastSignInAt ? day(m.lastSignInAt) : 'never'}</td>
      <td data-label="Sessions" safe>
        {String(props.sessions)}
      </td>
      <MenuButton menu={menuId('member', m.id)} label={`Actions for ${m.email}`} />
    </tr>
  );
}

function MemberMenu(props: { member: Member; csrf: string }) {
  const m = props.member;
  const path = `${TEAM}/${encodeURIComponent(m.id)}`;
  return (
    <RowMenu id={menuId('member', m.id)} title={m.email}>
      {m.source === 'env' ? (
        <p>An owner named in ADMIN_EMAILS: change that setting to change or remove them.</p>
      ) : (
        <form method="post" action={`${path}/role`}>
          <CsrfInput token={props.csrf} />
          <SelectField name="role" label="Role" value={m.role} options={roleOptions} />
          <button type="submit" class="secondary">
            Change role
          </button>
        </form>
      )}
      <form method="post" action={`${path}/sign-out`}>
        <CsrfInput token={props.csrf} />
        <button type="submit" class="secondary">
          Sign out everywhere
        </button>
      </form>
      {m.source !== 'env' && (
        <form method="post" action={`${path}/remove`}>
          <CsrfInput token={props.csrf} />
          <button type="submit" class="danger">
            Remove from the team
          </button>
        </form>
      )}
    </RowMenu>
  );
}

export function TeamPage(props: TeamView) {
  const v = props.values ?? { email: '', role: 'viewer' };
  const e = props.errors ?? {};
  return (
    <AdminLayout page={props.page} title="Team" current="/admin/settings">
      <h1>Team</h1>
      <SettingsTabs page={props.page} current={TEAM} />
      <Done texts={TEAM_DONE} done={props.done} />
      {!!props.error && <Notice kind="error" text={props.error} />}
      <div class="table-wrap">
        <table id="team" class="stack">
          <caption class="vh">Team members</caption>
          <thead>
            <tr>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
              <th scope="col">Added</th>
              <th scope="col">Last sign-in</th>
              <th scope="col">Sessions</th>
              <th scope="col" class="act">
                <span class="vh">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {props.members.map((m) => (
              <MemberRow member={m} sessions={props.sessions.get(m.email) ?? 0} you={m.email === props.page.email} />
            ))}
          </tbody>
        </table>
      </div>
      {props.members.map((m) => (
        <MemberMenu member={m} csrf={props.page.csrf} />
      ))}
      <h2 id="invite">Invite a member</h2>
      <form method="post" action={TEAM} novalidate class="narrow">
        <CsrfInput token={props.page.csrf} />
        <Field name="email" label="Email" type="email" value={v.email} error={e.email} required autocomplete="off" />
        <SelectField name="role" label="Role" value={v.role} options={roleOptions} error={e.role} />
        <button type="submit">Send invitation</button>
      </form>
      <p class="hint">
        They get a sign-in link by email. The last owner cannot be demoted or removed; owners named in ADMIN_EMAILS are changed in the
        configuration only.
      </p>
    </AdminLayout>
  );
}
