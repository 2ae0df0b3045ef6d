// Routes of the admin pages (/admin): sign-in by magic link for ADMIN_EMAILS, sign-out, and every
// section (one file each). Pages read the same services as the API; see docs/web.md.
import { Elysia, t } from 'elysia';
import type { AppContext } from '../../context';
import { AppError } from '../../lib/errors';
import { readCookie, refuseCrossSite } from '../../modules/auth/plugin';
import { takeSignInRequest } from '../../modules/auth/limit';
import { endSession, SESSION_COOKIE, sessionCookie } from '../../modules/auth/sessions';
import { Email } from '../../lib/fields';
import { requestMagicLink, SENT } from '../../workflows/sign-in';
import { ANON_COOKIE, anonSecret, csrfToken, refuseBadToken } from '../csrf';
import { CsrfInput, Field, formFields, schemaErrors, type FormErrors } from '../forms';
import { linksGoToLog } from '../../lib/first-run';
import { nobodyCanSignIn } from '../../modules/team/service';
import { AuthLayout } from '../auth-layout';
import { Notice } from '../layout';
import { render, seeOther } from '../render';
import { guardAdmin } from '../session';
import { ADMIN_SIGN_IN, adminKit, refused } from './kit';
import { overviewRoutes } from './overview';
import { partnerRoutes } from './partners';
import { commissionRoutes } from './commissions';
import { payoutRoutes } from './payouts';
import { eventRoutes } from './events';
import { campaignRoutes } from './campaigns';
import { settingsRoutes } from './settings';
import { webhookRoutes } from './webhooks';
import { apiKeyRoutes } from './api-keys';
import { codeRoutes } from './codes';
import { reviewRoutes } from './review';
import { applicationRoutes } from './applications';
import { emailsRoutes } from './emails';
import { groupRoutes } from './groups';
import { adminTrafficRoutes } from './traffic';
import { teamRoutes } from './team';
import { sessionRoutes } from './sessions';
import { ssoRoutes } from './sso';
import { auditRoutes } from './audit';

/** What stands between a new install and an admin's sign-in, said where the admin looks. */
export type SignInNotes = { noAdmin: boolean; linksInLog: boolean };

function AdminSignInPage(props: { csrf: string; email?: string; errors?: FormErrors; sent?: string; notes: SignInNotes; sso: boolean }) {
  return (
    <AuthLayout title="Admin sign-in">
      <h1>Admin sign-in</h1>
      {props.notes.noAdmin && (
        <p class="notice error" role="alert" id="no-admin">
          No admin can sign in yet: <code>ADMIN_EMAILS</code> is empty and nobody is on the team, so no sign-in link is sent to anyone. Set it to your address (several
          separated by commas) and restart the service.
        </p>
      )}
      {props.notes.linksInLog && (
        <p class="notice" role="status" id="links-in-log">
          No mail server is configured (<code>SMTP_URL</code> is unset): sign-in links are not emailed but written to the service log, in a
          line "mail (SMTP_URL unset, not sent)". Copy the link from there.
        </p>
      )}
      {!!props.sent && <Notice kind="ok" text={props.sent} />}
      {!!props.errors?._form && <Notice kind="error" text={props.errors._form} />}
      <p>Enter your admin email and we will send you a sign-in link.</p>
      <form method="post" action={ADMIN_SIGN_IN} novalidate>
        <CsrfInput token={props.csrf} />
        <Field name="email" label="Email" type="email" value={props.email} error={props.errors?.email} required autocomplete="email" />
        <button type="submit">Send sign-in link</button>
      </form>
      {props.sso && (
        <p class="sso">
          <a class="button secondary" href="/auth/oidc/start" id="sso">
            Sign in with SSO
          </a>
        </p>
      )}
    </AuthLayout>
  );
}

export function adminRoutes(ctx: AppContext) {
  const secure = ctx.config.baseUrl.startsWith('https://');
  const kit = adminKit(ctx);
  // read per request: cheap, and always what the configuration says now
  // nobody can sign in: no ADMIN_EMAILS owner, nobody on the team, and no single sign-on domain to join from
  const notesOf = async (): Promise<SignInNotes> => ({
    noAdmin: await nobodyCanSignIn(ctx.sql, ctx.config, ctx.oidc?.settings.allowedDomains ?? []),
    linksInLog: linksGoToLog(ctx.config),
  });

  return new Elysia({ detail: { hide: true } })
    .get(ADMIN_SIGN_IN, async ({ request }) => {
      if ((await guardAdmin(ctx, request)).kind === 'admin') return seeOther('/admin');
      const { secret, setCookie } = anonSecret(request, secure);
      return render(<AdminSignInPage csrf={csrfToken(secret)} notes={await notesOf()} sso={ctx.oidc !== null} />, { headers: setCookie ? { 'set-cookie': setCookie } : {} });
    })
    .post(ADMIN_SIGN_IN, async ({ request, body }) => {
      const form = formFields(body);
      const secret = readCookie(request, ANON_COOKIE);
      try {
        refuseCrossSite(ctx, request);
        refuseBadToken(secret, form);
      } catch (error) {
        return refused(error, ADMIN_SIGN_IN);
      }
      const csrf = csrfToken(secret!);
      const email = (form.email ?? '').trim();
      const errors = schemaErrors(t.Object({ email: Email }), { email });
      if (Object.keys(errors).length > 0) return render(<AdminSignInPage csrf={csrf} email={email} errors={errors} notes={await notesOf()} sso={ctx.oidc !== null} />, { status: 400 });
      try {
        await takeSignInRequest(ctx.sql, email);
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        return render(<AdminSignInPage csrf={csrf} email={email} errors={{ email: error.message }} notes={await notesOf()} sso={ctx.oidc !== null} />, { status: error.status });
      }
      // the same answer for any address: an admin gets a link to /admin, a partner one to /portal
      await requestMagicLink(ctx, email);
      return render(<AdminSignInPage csrf={csrf} sent={SENT.message} notes={await notesOf()} sso={ctx.oidc !== null} />);
    })
    .post('/admin/sign-out', ({ request, body }) =>
      kit.form(request, body, '/admin', async () => {
        const token = readCookie(request, SESSION_COOKIE);
        if (token) await endSession(ctx.sql, token);
        return seeOther(ADMIN_SIGN_IN, { 'set-cookie': sessionCookie(ctx.config.baseUrl, '', 0) });
      }),
    )
    .use(overviewRoutes(ctx, kit))
    .use(partnerRoutes(ctx, kit))
    .use(applicationRoutes(ctx, kit))
    .use(groupRoutes(ctx, kit))
    .use(commissionRoutes(ctx, kit))
    .use(reviewRoutes(ctx, kit))
    .use(payoutRoutes(ctx, kit))
    .use(eventRoutes(ctx, kit))
    .use(campaignRoutes(ctx, kit))
    .use(settingsRoutes(ctx, kit))
    .use(emailsRoutes(ctx, kit))
    .use(webhookRoutes(ctx, kit))
    .use(apiKeyRoutes(ctx, kit))
    .use(codeRoutes(ctx, kit))
    .use(adminTrafficRoutes(ctx, kit))
    .use(teamRoutes(ctx, kit))
    .use(sessionRoutes(ctx, kit))
    .use(auditRoutes(ctx, kit))
    .use(ssoRoutes(ctx));
}
