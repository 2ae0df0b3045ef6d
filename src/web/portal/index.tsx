// Routes of the partner portal (/portal): sign-in, sign-up, dashboard, links, commissions, payouts.
// Every page reads the same services as the API; the partner id always comes from the session.
// One file per kind of page: signed-out.tsx, make.tsx (dashboard, links, codes), account.tsx.
import { Elysia } from 'elysia';
import type { AppContext } from '../../context';
import type { MagicLinkPages } from '../../modules/auth/magic';
import { render } from '../render';
import { accountRoutes } from './account';
import { portalKit } from './kit';
import { makeRoutes } from './make';
import { LinkExpiredPage, RevokedPage } from './pages';
import { signedOutRoutes } from './signed-out';

/** The answers of a magic link that signs no one in (app.ts hands them to /auth/magic). */
export const magicLinkPages: MagicLinkPages = {
  expired: () => render(<LinkExpiredPage />, { status: 400 }) as Response,
  revoked: (reason: string | null) => render(<RevokedPage reason={reason} />, { status: 403 }) as Response,
};

export function portalRoutes(ctx: AppContext) {
  const kit = portalKit(ctx);
  return new Elysia({ detail: { hide: true } }).use(signedOutRoutes(ctx, kit)).use(makeRoutes(ctx, kit)).use(accountRoutes(ctx, kit));
}
