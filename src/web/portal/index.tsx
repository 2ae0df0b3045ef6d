// Routes of the partner portal (/portal): sign-in, sign-up, dashboard, links, commissions, payouts.
// Every page reads the same services as the API; the partner id always comes from the session.
// One file per kind of page: signed-out.tsx, make.tsx (dashboard, links, codes), account.tsx.
import { Elysia } from 'elysia';
import type { AppContext } from '../../context';
import type { MagicLinkPages } from '../../modules/auth/magic';
import { loadBrand } from '../../mail/brand';
import { pageBrand } from '../brand';
import { anonSecret, csrfToken } from '../csrf';
import { render } from '../render';
import { accountRoutes } from './account';
import { portalKit } from './kit';
import { makeRoutes } from './make';
import { LinkExpiredPage, RevokedPage } from './pages';
import { signedOutRoutes } from './signed-out';
import { portalTrafficRoutes } from './traffic';

/**
 * The answers of a magic link that signs no one in (app.ts hands them to /auth/magic). The expired
 * page asks for a new link at once: its form posts to the sign-in, with the pre-session CSRF token.
 */
export function magicLinkPages(ctx: AppContext): MagicLinkPages {
  const secure = ctx.config.baseUrl.startsWith('https://');
  return {
    async expired(request) {
      const { secret, setCookie } = anonSecret(request, secure);
      const brand = pageBrand(await loadBrand(ctx.sql, ctx.config.baseUrl));
      return render(<LinkExpiredPage csrf={csrfToken(secret)} brand={brand} />, { status: 400, headers: setCookie ? { 'set-cookie': setCookie } : {} });
    },
    revoked: (reason: string | null) => render(<RevokedPage reason={reason} />, { status: 403 }) as Response,
  };
}

export function portalRoutes(ctx: AppContext) {
  const kit = portalKit(ctx);
  return new Elysia({ detail: { hide: true } }).use(signedOutRoutes(ctx, kit)).use(makeRoutes(ctx, kit)).use(accountRoutes(ctx, kit)).use(portalTrafficRoutes(ctx, kit));
}
