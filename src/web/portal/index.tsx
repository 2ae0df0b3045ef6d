// Routes of the partner portal (/portal): sign-in, sign-up, dashboard, links, commissions, payouts.
// Every page reads the same services as the API; the partner id always comes from the session.
import { Elysia, t } from 'elysia';
import type { AppContext } from '../../context';
import { AppError } from '../../lib/errors';
import { paginate, readPage } from '../../lib/http';
import type { MagicLinkPages } from '../../modules/auth';
import { readCookie, refuseCrossSite } from '../../modules/auth/plugin';
import { takeSignInRequest } from '../../modules/auth/limit';
import { endSession, SESSION_COOKIE, sessionCookie } from '../../modules/auth/sessions';
import { listCampaigns } from '../../modules/campaigns/service';
import { listCommissions } from '../../modules/commissions/service';
import { invalidateLinkCache } from '../../modules/links/runtime';
import { createLink, listLinks } from '../../modules/links/service';
import { Email, Name } from '../../lib/fields';
import { listPayouts } from '../../modules/payouts/service';
import { clickCount, commissionTotals, dailyActivity } from '../../modules/reports/service';
import { requestMagicLink, SENT, signUp, signupOpen } from '../../workflows/sign-in';
import { ANON_COOKIE, anonSecret, csrfToken, refuseBadToken } from '../csrf';
import { formErrors, formFields, schemaErrors, type FormErrors } from '../forms';
import { render, seeOther } from '../render';
import { guardPartner, type PartnerPage } from '../session';
import {
  CommissionsPage,
  LinkExpiredPage,
  DashboardPage,
  LinksPage,
  PayoutsPage,
  RefusedPage,
  RevokedPage,
  SignInPage,
  SignupClosedPage,
  SignUpPage,
} from './pages';

const SIGN_IN = '/portal/sign-in';

/** The answers of a magic link that signs no one in (app.ts hands them to /auth/magic). */
export const magicLinkPages: MagicLinkPages = {
  expired: () => render(<LinkExpiredPage />, { status: 400 }) as Response,
  revoked: (reason: string | null) => render(<RevokedPage reason={reason} />, { status: 403 }) as Response,
};
const CursorQuery = t.Object({ cursor: t.Optional(t.String({ maxLength: 64 })) });

export function portalRoutes(ctx: AppContext) {
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

  /** The pre-session CSRF token for a signed-out page, setting its cookie when the browser has none. */
  function anonCsrf(request: Request): { csrf: string; headers: Record<string, string> } {
    const { secret, setCookie } = anonSecret(request, secure);
    return { csrf: csrfToken(secret), headers: setCookie ? { 'set-cookie': setCookie } : {} };
  }

  return (
    new Elysia({ detail: { hide: true } })
      // ----------------------------------------------------------------- signed out
      .get(SIGN_IN, async ({ request }) => {
        const guard = await guardPartner(ctx, request);
        if (guard.kind === 'partner') return seeOther('/portal');
        const { csrf, headers } = anonCsrf(request);
        return render(<SignInPage csrf={csrf} signupOpen={await signupOpen(ctx)} />, { headers });
      })
      .post(SIGN_IN, ({ request, body }) =>
        anonForm(request, body, SIGN_IN, async (form, csrf) => {
          const open = await signupOpen(ctx);
          const email = (form.email ?? '').trim();
          const errors = schemaErrors(t.Object({ email: Email }), { email });
          if (Object.keys(errors).length > 0) {
            return render(<SignInPage csrf={csrf} email={email} errors={errors} signupOpen={open} />, { status: 400 });
          }
          try {
            await takeSignInRequest(ctx.sql, email);
          } catch (error) {
            if (!(error instanceof AppError)) throw error;
            // the limit is per email: say so beside the email field
            return render(<SignInPage csrf={csrf} email={email} errors={{ email: error.message }} signupOpen={open} />, { status: error.status });
          }
          await requestMagicLink(ctx, email);
          return render(<SignInPage csrf={csrf} sent={SENT.message} signupOpen={open} />);
        }),
      )
      .get('/portal/sign-up', async ({ request }) => {
        if (!(await signupOpen(ctx))) return render(<SignupClosedPage />, { status: 404 });
        const { csrf, headers } = anonCsrf(request);
        return render(<SignUpPage csrf={csrf} />, { headers });
      })
      .post('/portal/sign-up', ({ request, body }) =>
        anonForm(request, body, '/portal/sign-up', async (form, csrf) => {
          const values = { email: (form.email ?? '').trim(), name: (form.name ?? '').trim() };
          const errors = schemaErrors(t.Object({ email: Email, name: Name }), values);
          if (Object.keys(errors).length > 0) return render(<SignUpPage csrf={csrf} values={values} errors={errors} />, { status: 400 });
          try {
            await takeSignInRequest(ctx.sql, values.email);
            await signUp(ctx, values);
          } catch (error) {
            if (error instanceof AppError && error.code === 'forbidden') return render(<SignupClosedPage />, { status: 404 });
            const problems = formErrors(error, ['email', 'name']);
            if (!problems) throw error;
            return render(<SignUpPage csrf={csrf} values={values} errors={problems} />, { status: (error as AppError).status });
          }
          return render(<SignUpPage csrf={csrf} sent="Check your inbox for a link to activate your account." />);
        }),
      )
      // ----------------------------------------------------------------- signed in
      .get('/portal', ({ request }) =>
        partnerPage(request, async (page) => {
          const partnerId = page.partner.id;
          const [activity, totals, clicksAllTime] = await Promise.all([
            dailyActivity(ctx.sql, { partnerId, days: 30 }),
            commissionTotals(ctx.sql, { partnerId }),
            clickCount(ctx.sql, { partnerId }),
          ]);
          return render(<DashboardPage page={page} activity={activity} totals={totals} clicksAllTime={clicksAllTime} />);
        }),
      )
      .get(
        '/portal/links',
        ({ request, query }) =>
          partnerPage(request, async (page) => {
            const created = typeof query.created === 'string' ? query.created.slice(0, 64) : undefined;
            return render(await linksView(page, { cursor: query.cursor, created }));
          }),
        { query: t.Object({ cursor: t.Optional(t.String({ maxLength: 64 })), created: t.Optional(t.String({ maxLength: 64 })) }) },
      )
      .post('/portal/links', ({ request, body }) =>
        partnerForm(request, body, '/portal/links', async (page, form) => {
          const values = { campaignId: form.campaignId ?? '', slug: (form.slug ?? '').trim() };
          try {
            const link = await createLink(ctx.sql, ctx.config.baseUrl, {
              partnerId: page.partner.id,
              campaignId: values.campaignId,
              slug: values.slug === '' ? undefined : values.slug,
            });
            invalidateLinkCache(ctx, { slug: link.slug });
            return seeOther(`/portal/links?created=${encodeURIComponent(link.slug)}`);
          } catch (error) {
            const errors = formErrors(error, ['campaignId', 'slug']);
            if (!errors) throw error;
            // a missing campaign belongs beside the campaign field
            if (errors._form && error instanceof AppError && /campaign/.test(error.message)) {
              errors.campaignId = errors._form;
              delete errors._form;
            }
            return render(await linksView(page, { values, errors }), { status: (error as AppError).status });
          }
        }),
      )
      .get(
        '/portal/commissions',
        ({ request, query }) =>
          partnerPage(request, async (page) => {
            const p = readPage({ cursor: query.cursor }, 'commission');
            const { items, nextCursor } = paginate(await listCommissions(ctx.sql, { ...p, partnerId: page.partner.id }), p.limit);
            return render(<CommissionsPage page={page} commissions={items} nextCursor={nextCursor} />);
          }),
        { query: CursorQuery },
      )
      .get(
        '/portal/payouts',
        ({ request, query }) =>
          partnerPage(request, async (page) => {
            const p = readPage({ cursor: query.cursor }, 'payout');
            const { items, nextCursor } = paginate(await listPayouts(ctx.sql, { ...p, partnerId: page.partner.id }), p.limit);
            return render(<PayoutsPage page={page} payouts={items} nextCursor={nextCursor} />);
          }),
        { query: CursorQuery },
      )
      .post('/portal/sign-out', ({ request, body }) =>
        partnerForm(request, body, '/portal', async () => {
          const token = readCookie(request, SESSION_COOKIE);
          if (token) await endSession(ctx.sql, token);
          return seeOther(SIGN_IN, { 'set-cookie': sessionCookie(ctx.config.baseUrl, '', 0) });
        }),
      )
  );

  async function linksView(
    page: PartnerPage,
    input: { cursor?: string; created?: string; values?: { campaignId?: string; slug?: string }; errors?: FormErrors },
  ): Promise<string> {
    const p = readPage({ cursor: input.cursor }, 'link');
    const [rows, campaigns] = await Promise.all([
      listLinks(ctx.sql, ctx.config.baseUrl, { ...p, partnerId: page.partner.id }),
      listCampaigns(ctx.sql, { limit: 200, archived: false, partnerId: page.partner.id }),
    ]);
    const { items, nextCursor } = paginate(rows, p.limit);
    return (
      <LinksPage
        page={page}
        links={items}
        campaigns={campaigns.slice(0, 200).map((c) => ({ id: c.id, name: c.name }))}
        nextCursor={nextCursor}
        values={input.values}
        errors={input.errors}
        created={input.created}
      />
    ) as string;
  }
}
