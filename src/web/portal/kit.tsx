// The partner portal's route kit: a signed-in page or form (same origin, the session's CSRF token),
// a signed-out form (the pre-session token), the refusal page, and the small readers of a request.
import { t } from 'elysia';
import type { AppContext } from '../../context';
import { AppError } from '../../lib/errors';
import { readCookie, refuseCrossSite } from '../../modules/auth/plugin';
import { Email } from '../../lib/fields';
import { loadBrand } from '../../mail/brand';
import { pageBrand } from '../brand';
import { ANON_COOKIE, anonSecret, csrfToken, refuseBadToken } from '../csrf';
import { formFields, type FormErrors } from '../forms';
import { render, seeOther } from '../render';
import { guardPartner, type PartnerPage } from '../session';
import { RefusedPage, RevokedPage } from './pages';

export const SIGN_IN = '/portal/sign-in';

/** A page's query as plain strings (first value of each, cut short): read leniently, never a 400. */
export function queryOf(request: Request): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of new URL(request.url).searchParams) if (!(key in out)) out[key] = value.slice(0, 200);
  return out;
}

export const PayoutEmail = t.Union([t.Literal(''), Email]);

/** The signup questions' problems (details `applicationAnswers.website`…) beside their fields. */
export function answerErrors(error: unknown): FormErrors {
  if (!(error instanceof AppError) || !Array.isArray(error.details)) return {};
  const out: FormErrors = {};
  for (const d of error.details as { field: string; message: string }[]) {
    const key = d.field.replace(/^applicationAnswers\./, '');
    if (key !== d.field) out[key] ??= d.message;
  }
  return out;
}

/** A recruiting link's `ref` (a partner id) as the sign-up form carries it; anything else is dropped. */
export const recruitingRef = (ref: string | undefined) => (ref && /^ptn_[A-Za-z0-9]{1,60}$/.test(ref) ? ref : undefined);

/** The portal's guards and form checks, bound to the context once (see portalRoutes). */
export function portalKit(ctx: AppContext) {
  const secure = ctx.config.baseUrl.startsWith('https://');

  /** Runs `view` for a signed-in partner; signed out goes to sign-in, revoked sees the reason only. */
  async function partnerPage(request: Request, view: (page: PartnerPage) => Promise<Response> | Response): Promise<Response> {
    const guard = await guardPartner(ctx, request);
    if (guard.kind === 'signed-out') return seeOther(SIGN_IN);
    if (guard.kind === 'revoked') return render(<RevokedPage reason={guard.reason} />, { status: 403 });
    return view(guard.page);
  }

  /** A state-changing form of a signed-in partner: same origin and the session's CSRF token. */
  function partnerForm(request: Request, body: unknown, back: string, act: (page: PartnerPage, form: Record<string, string>) => Promise<Response>) {
    return partnerPage(request, (page) => {
      const form = formFields(body);
      try {
        refuseCrossSite(ctx, request);
        refuseBadToken(page.sessionToken, form);
      } catch (error) {
        return refused(error, back);
      }
      return act(page, form);
    });
  }

  /** A signed-out form (sign-in, sign-up): same origin and the pre-session cookie's token. */
  function anonForm(request: Request, body: unknown, back: string, act: (form: Record<string, string>, csrf: string) => Promise<Response>) {
    const form = formFields(body);
    const secret = readCookie(request, ANON_COOKIE);
    try {
      refuseCrossSite(ctx, request);
      refuseBadToken(secret, form);
    } catch (error) {
      return refused(error, back);
    }
    return act(form, csrfToken(secret!));
  }

  function refused(error: unknown, back: string): Response | Promise<Response> {
    if (!(error instanceof AppError)) throw error;
    return render(<RefusedPage message={error.message} back={back} />, { status: error.status });
  }

  /** The program's branding for the signed-out pages (sign-in, sign-up). */
  const brandOf = async () => pageBrand(await loadBrand(ctx.sql, ctx.config.baseUrl));

  /** The pre-session CSRF token for a signed-out page, setting its cookie when the browser has none. */
  function anonCsrf(request: Request): { csrf: string; headers: Record<string, string> } {
    const { secret, setCookie } = anonSecret(request, secure);
    return { csrf: csrfToken(secret), headers: setCookie ? { 'set-cookie': setCookie } : {} };
  }

  return { partnerPage, partnerForm, anonForm, refused, brandOf, anonCsrf };
}

export type PortalKit = ReturnType<typeof portalKit>;
