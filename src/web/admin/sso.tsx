// Single sign-on's two steps in the browser: /auth/oidc/start sends the admin to the provider (the
// login's state in a cookie), /auth/oidc/callback comes back, checks it (modules/auth/oidc.ts) and
// opens a session (workflows/sso-sign-in.ts), or says on a signed-out page why it refused.
import { Elysia } from 'elysia';
import type { AppContext } from '../../context';
import { readCookie } from '../../modules/auth/plugin';
import { finishLogin, OIDC_COOKIE, oidcCookie, OidcRefused, startLogin } from '../../modules/auth/oidc';
import { sessionCookie, SESSION_TTL_MS } from '../../modules/auth/sessions';
import { ssoSignIn } from '../../workflows/sso-sign-in';
import { AuthLayout } from '../auth-layout';
import { Notice } from '../layout';
import { render } from '../render';
import { ADMIN_SIGN_IN } from './kit';

function SsoRefusedPage(props: { reason: string }) {
  return (
    <AuthLayout title="Single sign-on refused">
      <h1>Single sign-on refused</h1>
      <Notice kind="error" text={props.reason} />
      <p>
        <a href={ADMIN_SIGN_IN}>Back to the admin sign-in</a>
      </p>
    </AuthLayout>
  );
}

export function ssoRoutes(ctx: AppContext) {
  const base = ctx.config.baseUrl;
  const refused = (reason: string, status: number) =>
    render(<SsoRefusedPage reason={reason} />, { status, headers: { 'set-cookie': oidcCookie(base, '', 0) } });
  return new Elysia({ detail: { hide: true } })
    .get('/auth/oidc/start', async () => {
      if (!ctx.oidc) return refused('Single sign-on is not set up on this service.', 404);
      try {
        const { state, url } = await startLogin(ctx.sql, ctx.oidc, base);
        return new Response(null, { status: 303, headers: { location: url.href, 'set-cookie': oidcCookie(base, state, 600) } });
      } catch (error) {
        ctx.log.warn('single sign-on: the provider cannot be reached', { error: String((error as Error).message) });
        return refused('The sign-on provider cannot be reached. Try again in a moment, or use a sign-in link.', 502);
      }
    })
    .get('/auth/oidc/callback', async ({ request }) => {
      if (!ctx.oidc) return refused('Single sign-on is not set up on this service.', 404);
      const url = new URL(request.url);
      const error = url.searchParams.get('error');
      if (error) return refused(`The provider did not sign you in (${error.slice(0, 100)}).`, 400);
      let identity;
      try {
        identity = await finishLogin(ctx.sql, ctx.oidc, base, url, readCookie(request, OIDC_COOKIE));
      } catch (e) {
        if (!(e instanceof OidcRefused)) throw e;
        return refused(`${e.message[0]!.toUpperCase()}${e.message.slice(1)}.`, 400);
      }
      const outcome = await ssoSignIn(ctx, identity, request.headers.get('user-agent'));
      if (outcome.kind === 'refused') return refused(outcome.reason, 403);
      const headers = new Headers({ location: '/admin' });
      headers.append('set-cookie', sessionCookie(base, outcome.sessionToken, Math.floor(SESSION_TTL_MS / 1000)));
      headers.append('set-cookie', oidcCookie(base, '', 0));
      return new Response(null, { status: 303, headers });
    });
}
