// Routes of the partner portal (/portal): sign-in, sign-up, dashboard, links, commissions, payouts.
// Every page reads the same services as the API; the partner id always comes from the session.
import { Elysia, t } from 'elysia';
import type { AppContext } from '../../context';
import { AppError } from '../../lib/errors';
import { paginate, readPage } from '../../lib/http';
import type { MagicLinkPages } from '../../modules/auth/magic';
import { readCookie, refuseCrossSite } from '../../modules/auth/plugin';
import { takeSignInRequest } from '../../modules/auth/limit';
import { endSession, SESSION_COOKIE, sessionCookie } from '../../modules/auth/sessions';
import { listCampaigns, type Campaign } from '../../modules/campaigns/service';
import { listCommissions } from '../../modules/commissions/service';
import { createLink, deepLinkProblem, listLinks } from '../../modules/links/service';
import { codeStats, createCode, listCodes } from '../../modules/codes/service';
import { Email, Name } from '../../lib/fields';
import { getCommissionSnapshot, getPartner, updateOwnProfile } from '../../modules/partners/service';
import {
  campaignNames,
  partnerBalances,
  partnerCommissionPage,
  partnerDailyEarnings,
  partnerLinkLanding,
  partnerLinkStats,
  partnerPayoutPage,
  partnerPeriodTotals,
} from '../../modules/reports/portal';
import { payoutDue } from '../../modules/payouts/due';
import { partnerMainCurrency } from '../../modules/reports/partners';
import { requestMagicLink, SENT, SIGNUP_ANSWERS, signUp, signupMode, signupOpen } from '../../workflows/sign-in';
import { checkApplicationAnswers } from '../../lib/fields';
import { loadBrand } from '../../mail/brand';
import { pageBrand } from '../brand';
import { ANON_COOKIE, anonSecret, csrfToken, refuseBadToken } from '../csrf';
import { formErrors, formFields, schemaErrors, type FormErrors } from '../forms';
import { parseRange } from '../range';
import { render, seeOther } from '../render';
import { guardPartner, type PartnerPage } from '../session';
import { parsePage } from '../ui';
import { buildDestination, UTM_FIELDS } from './builder';
import { HomePage, type MoneyLine } from './home';
import { LinksPage, type BuilderValues } from './links';
import { CodesPage } from './codes';
import {
  CommissionsPage,
  LinkExpiredPage,
  LIST_SIZE,
  PayoutsPage,
  RefusedPage,
  RevokedPage,
  SignInPage,
  SignupClosedPage,
  SignUpPage,
  type ProgramPitch,
  type SignUpValues,
} from './pages';
import { ProfilePage, type ProfileValues } from './profile';
import { RecruitsPage } from './rewards';
import { recruitsOf } from '../../modules/reports/rewards';
import { tierStanding } from '../../modules/commissions/standing';
import { findGroup } from '../../modules/groups/service';
import { campaignTerms, nextPayoutRun, payoutTermsText, type PayoutOutlook } from './terms';

const SIGN_IN = '/portal/sign-in';

/** The answers of a magic link that signs no one in (app.ts hands them to /auth/magic). */
export const magicLinkPages: MagicLinkPages = {
  expired: () => render(<LinkExpiredPage />, { status: 400 }) as Response,
  revoked: (reason: string | null) => render(<RevokedPage reason={reason} />, { status: 403 }) as Response,
};

/** A page's query as plain strings (first value of each, cut short): read leniently, never a 400. */
function queryOf(request: Request): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of new URL(request.url).searchParams) if (!(key in out)) out[key] = value.slice(0, 200);
  return out;
}

const PayoutEmail = t.Union([t.Literal(''), Email]);

/** The signup questions' problems (details `applicationAnswers.website`…) beside their fields. */
function answerErrors(error: unknown): FormErrors {
  if (!(error instanceof AppError) || !Array.isArray(error.details)) return {};
  const out: FormErrors = {};
  for (const d of error.details as { field: string; message: string }[]) {
    const key = d.field.replace(/^applicationAnswers\./, '');
    if (key !== d.field) out[key] ??= d.message;
  }
  return out;
}

/** A recruiting link's `ref` (a partner id) as the sign-up form carries it; anything else is dropped. */
const recruitingRef = (ref: string | undefined) => (ref && /^ptn_[A-Za-z0-9]{1,60}$/.test(ref) ? ref : undefined);

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

  /** The program's branding for the signed-out pages (sign-in, sign-up). */
  const brandOf = async () => pageBrand(await loadBrand(ctx.sql, ctx.config.baseUrl));

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
        return render(<SignInPage brand={await brandOf()} csrf={csrf} signupOpen={await signupOpen(ctx)} />, { headers });
      })
      .post(SIGN_IN, ({ request, body }) =>
        anonForm(request, body, SIGN_IN, async (form, csrf) => {
          const open = await signupOpen(ctx);
          const email = (form.email ?? '').trim();
          const errors = schemaErrors(t.Object({ email: Email }), { email });
          if (Object.keys(errors).length > 0) {
            return render(<SignInPage brand={await brandOf()} csrf={csrf} email={email} errors={errors} signupOpen={open} />, { status: 400 });
          }
          try {
            await takeSignInRequest(ctx.sql, email);
          } catch (error) {
            if (!(error instanceof AppError)) throw error;
            // the limit is per email: say so beside the email field
            return render(<SignInPage brand={await brandOf()} csrf={csrf} email={email} errors={{ email: error.message }} signupOpen={open} />, { status: error.status });
          }
          await requestMagicLink(ctx, email);
          return render(<SignInPage brand={await brandOf()} csrf={csrf} sent={SENT.message} signupOpen={open} />);
        }),
      )
      .get('/portal/sign-up', async ({ request }) => {
        const mode = await signupMode(ctx);
        if (mode === 'closed') return render(<SignupClosedPage brand={await brandOf()} />, { status: 404 });
        const { csrf, headers } = anonCsrf(request);
        return render(<SignUpPage brand={await brandOf()} csrf={csrf} mode={mode} pitch={await programPitch()} values={{ ref: recruitingRef(queryOf(request).ref) }} />, { headers });
      })
      .post('/portal/sign-up', ({ request, body }) =>
        anonForm(request, body, '/portal/sign-up', async (form, csrf) => {
          const mode = await signupMode(ctx);
          if (mode === 'closed') return render(<SignupClosedPage brand={await brandOf()} />, { status: 404 });
          const values: SignUpValues = { email: (form.email ?? '').trim(), name: (form.name ?? '').trim(), ref: recruitingRef(form.ref) };
          // the questions only under review; a blank answer is no answer
          const answers: Record<string, string> = {};
          if (mode === 'review') {
            for (const key of ['website', 'audience', 'promotion'] as const) {
              values[key] = (form[key] ?? '').trim();
              if (values[key]) answers[key] = values[key]!;
            }
          }
          const page = async (status: number, errors: FormErrors) =>
            render(<SignUpPage brand={await brandOf()} csrf={csrf} mode={mode} pitch={await programPitch()} values={values} errors={errors} />, { status });
          const errors = schemaErrors(t.Object({ email: Email, name: Name }), { email: values.email, name: values.name });
          try {
            checkApplicationAnswers(answers);
          } catch (error) {
            Object.assign(errors, answerErrors(error));
          }
          if (Object.keys(errors).length > 0) return page(400, errors);
          try {
            await takeSignInRequest(ctx.sql, values.email!);
            const ran = await signUp(ctx, { email: values.email!, name: values.name!, applicationAnswers: mode === 'review' ? answers : undefined, ref: values.ref });
            return render(<SignUpPage brand={await brandOf()} csrf={csrf} mode={ran} pitch={{ terms: [], payoutTerms: '' }} sent={SIGNUP_ANSWERS[ran]} />);
          } catch (error) {
            if (error instanceof AppError && error.code === 'forbidden') return render(<SignupClosedPage brand={await brandOf()} />, { status: 404 });
            const problems = formErrors(error, ['email', 'name']);
            if (!problems) throw error;
            return page((error as AppError).status, { ...problems, ...answerErrors(error) });
          }
        }),
      )
      // ----------------------------------------------------------------- signed in
      .get('/portal', ({ request }) => partnerPage(request, async (page) => render(await homeView(page, queryOf(request)))))
      .get('/portal/links', ({ request }) =>
        partnerPage(request, async (page) => {
          const q = queryOf(request);
          const created = q.created ? await createdNotice(page, q.created) : null;
          return render(await linksView(page, { cursor: q.cursor, created }));
        }),
      )
      .post('/portal/links', ({ request, body }) =>
        partnerForm(request, body, '/portal/links', async (page, form) => {
          const values: BuilderValues = { campaignId: form.campaignId ?? '', page: (form.page ?? '').trim(), slug: (form.slug ?? '').trim() };
          for (const k of UTM_FIELDS) values[k] = (form[k] ?? '').trim().slice(0, 500);
          const campaigns = await heldCampaigns(page.partner.id);
          const campaign = campaigns.find((c) => c.id === values.campaignId);
          if (!campaign) return render(await linksView(page, { values, errors: { campaignId: 'Choose one of your campaigns.' } }), { status: 403 });
          const built = buildDestination(campaign.destinationUrl, { page: values.page ?? '', utm: values });
          const problem = built.problem ?? (built.url ? deepLinkProblem(built.url, campaign.destinationUrl) : null);
          if (problem) return render(await linksView(page, { values, errors: { page: problem } }), { status: 400 });
          if (form.intent === 'preview') {
            const share = `${ctx.config.baseUrl}/r/${values.slug || '(random)'}`;
            return render(await linksView(page, { values, preview: { url: built.url, share } }));
          }
          try {
            const link = await createLink(ctx.sql, ctx.config.baseUrl, {
              partnerId: page.partner.id,
              campaignId: campaign.id,
              slug: values.slug === '' ? undefined : values.slug,
              destinationUrl: built.url ?? undefined,
            });
            ctx.links.invalidate({ slug: link.slug });
            return seeOther(`/portal/links?created=${encodeURIComponent(link.id)}`);
          } catch (error) {
            const errors = formErrors(error, ['campaignId', 'slug', 'destinationUrl']);
            if (!errors) throw error;
            if (errors.destinationUrl) {
              errors.page = errors.destinationUrl;
              delete errors.destinationUrl;
            }
            // a missing campaign belongs beside the campaign field
            if (errors._form && error instanceof AppError && /campaign/.test(error.message)) {
              errors.campaignId = errors._form;
              delete errors._form;
            }
            return render(await linksView(page, { values, errors }), { status: (error as AppError).status });
          }
        }),
      )
      .get('/portal/codes', ({ request }) =>
        partnerPage(request, async (page) => {
          return render(await codesView(page, { created: queryOf(request).created }));
        }),
      )
      .post('/portal/codes', ({ request, body }) =>
        partnerForm(request, body, '/portal/codes', async (page, form) => {
          const values = { code: (form.code ?? '').trim(), campaignId: form.campaignId ?? '' };
          try {
            const code = await createCode(ctx.sql, { code: values.code, partnerId: page.partner.id, campaignId: values.campaignId }, ctx.codeSync);
            return seeOther(`/portal/codes?created=${encodeURIComponent(code.id)}`);
          } catch (error) {
            // Stripe refusing the code (502) is shown like a refusal: nothing was created
            const errors = error instanceof AppError && error.code === 'bad_gateway' ? { _form: error.message } : formErrors(error, ['code', 'campaignId']);
            if (!errors) throw error;
            // a campaign it may not use belongs beside the campaign field
            if (errors._form && error instanceof AppError && /campaign/.test(error.message)) {
              errors.campaignId = errors._form;
              delete errors._form;
            }
            return render(await codesView(page, { values, errors }), { status: (error as AppError).status });
          }
        }),
      )
      .get('/portal/recruits', ({ request }) =>
        partnerPage(request, async (page) => {
          const partnerId = page.partner.id;
          const [campaigns, open, mine] = await Promise.all([heldCampaigns(partnerId), signupOpen(ctx), recruitsOf(ctx.sql, { recruiterId: partnerId, limit: 100 })]);
          const terms = campaigns.flatMap((c) => (c.recruiterPercent ? [{ campaignId: c.id, name: c.name, percent: c.recruiterPercent }] : []));
          const link = `${ctx.config.baseUrl}/portal/sign-up?ref=${encodeURIComponent(partnerId)}`;
          return render(<RecruitsPage page={page} link={link} signupOpen={open} terms={terms} recruits={mine.recruits} total={mine.total} />);
        }),
      )
      .get('/portal/commissions', ({ request }) =>
        partnerPage(request, async (page) => {
          const p = parsePage(queryOf(request), LIST_SIZE);
          const [{ items, total }, outlook] = await Promise.all([
            partnerCommissionPage(ctx.sql, { partnerId: page.partner.id, offset: p.offset, limit: p.limit }),
            payoutOutlook(page.partner.id),
          ]);
          const names = await campaignNames(ctx.sql, items.map((c) => c.campaignId));
          return render(<CommissionsPage page={page} commissions={items} total={total} pageNumber={p.page} campaignNames={names} outlook={outlook.outlook} />);
        }),
      )
      .get('/portal/payouts', ({ request }) =>
        partnerPage(request, async (page) => {
          const p = parsePage(queryOf(request), LIST_SIZE);
          const [{ items, total }, outlook, campaigns] = await Promise.all([
            partnerPayoutPage(ctx.sql, { partnerId: page.partner.id, offset: p.offset, limit: p.limit }),
            payoutOutlook(page.partner.id),
            heldCampaigns(page.partner.id),
          ]);
          return render(<PayoutsPage page={page} payouts={items} total={total} pageNumber={p.page} outlook={outlook.outlook} payoutTerms={payoutTerms(campaigns)} />);
        }),
      )
      .get('/portal/profile', ({ request }) =>
        partnerPage(request, async (page) => {
          const saved = new URL(request.url).searchParams.get('saved') === '1';
          return render(<ProfilePage page={page} partner={await getPartner(ctx.sql, page.partner.id)} saved={saved} />);
        }),
      )
      .post('/portal/profile', ({ request, body }) =>
        partnerForm(request, body, '/portal/profile', async (page, form) => {
          const partner = await getPartner(ctx.sql, page.partner.id);
          const values: ProfileValues = {
            name: (form.name ?? '').trim(),
            payoutEmail: (form.payoutEmail ?? '').trim(),
            billingConnectAccountId: (form.billingConnectAccountId ?? '').trim(),
          };
          const errors = schemaErrors(t.Object({ name: Name, payoutEmail: PayoutEmail }), { name: values.name, payoutEmail: values.payoutEmail });
          if (errors.payoutEmail) errors.payoutEmail = 'must be an email address, or empty';
          const account = values.billingConnectAccountId ?? '';
          if (partner.billingConnectAccountId === null && account !== '' && !/^acct_[A-Za-z0-9]{1,250}$/.test(account)) {
            errors.billingConnectAccountId = 'must look like acct_ followed by letters and digits';
          }
          if (Object.keys(errors).length > 0) return render(<ProfilePage page={page} partner={partner} values={values} errors={errors} />, { status: 400 });
          try {
            await updateOwnProfile(ctx.sql, page.partner.id, {
              name: values.name!,
              payoutEmail: values.payoutEmail === '' ? null : values.payoutEmail!,
              billingConnectAccountId: partner.billingConnectAccountId === null && account !== '' ? account : undefined,
            });
          } catch (error) {
            const problems = formErrors(error, ['name', 'payoutEmail', 'billingConnectAccountId']);
            if (!problems) throw error;
            return render(<ProfilePage page={page} partner={partner} values={values} errors={problems} />, { status: (error as AppError).status });
          }
          return seeOther('/portal/profile?saved=1');
        }),
      )
      .post('/portal/sign-out', ({ request, body }) =>
        partnerForm(request, body, '/portal', async () => {
          const token = readCookie(request, SESSION_COOKIE);
          if (token) await endSession(ctx.sql, token);
          return seeOther(SIGN_IN, { 'set-cookie': sessionCookie(ctx.config.baseUrl, '', 0) });
        }),
      )
  );

  /** The campaigns a partner holds and may link to (not archived). */
  async function heldCampaigns(partnerId: string): Promise<Campaign[]> {
    return (await listCampaigns(ctx.sql, { limit: 200, archived: false, partnerId })).slice(0, 200);
  }

  /** The payout sentence for these campaigns' currencies. */
  function payoutTerms(campaigns: { currency: string }[]): string {
    const currencies = [...new Set(campaigns.map((c) => c.currency))].sort();
    return payoutTermsText(ctx.config.payoutCron, ctx.config.minPayout, currencies);
  }

  /** Money per currency with the next payout, worked out by the payout run's own rule (payoutDue). */
  async function payoutOutlook(partnerId: string): Promise<{ money: MoneyLine[]; outlook: PayoutOutlook }> {
    const balances = await partnerBalances(ctx.sql, partnerId);
    const money = balances.map((b) => {
      const net = b.approved - b.clawbacks;
      return { ...b, net, due: payoutDue(net, b.currency, ctx.config.minPayout) };
    });
    const outlook = { nextRun: nextPayoutRun(ctx.config.payoutCron), due: new Set(money.filter((m) => m.due).map((m) => m.currency)), minPayout: ctx.config.minPayout };
    return { money, outlook };
  }

  /** The program's live campaigns and payout terms, for the signup page (the campaigns a self-signup gets). */
  async function programPitch(): Promise<ProgramPitch> {
    const campaigns = (await listCampaigns(ctx.sql, { limit: 50, archived: false })).slice(0, 50);
    return { terms: campaigns.map((c) => campaignTerms(c, null, ctx.config.holdbackDays)), payoutTerms: payoutTerms(campaigns) };
  }

  async function homeView(page: PartnerPage, query: Record<string, string>): Promise<string> {
    const partnerId = page.partner.id;
    const range = parseRange(query);
    const [campaigns, snapshot, main, outlook, linkRows, latest, group, standings] = await Promise.all([
      heldCampaigns(partnerId),
      getCommissionSnapshot(ctx.sql, partnerId),
      partnerMainCurrency(ctx.sql, partnerId),
      payoutOutlook(partnerId),
      listLinks(ctx.sql, ctx.config.baseUrl, { limit: 5, partnerId }),
      listCommissions(ctx.sql, { limit: 10, partnerId }),
      page.partner.groupId ? findGroup(ctx.sql, page.partner.groupId) : Promise.resolve(null),
      tierStanding(ctx.sql, partnerId),
    ]);
    const currency = main ?? campaigns[0]?.currency ?? 'USD';
    const links = linkRows.slice(0, 5);
    const commissions = latest.slice(0, 10);
    const [totals, daily, linkStats, names] = await Promise.all([
      partnerPeriodTotals(ctx.sql, { partnerId, currency, start: range.start ?? new Date(0), end: range.end, previous: range.previous }),
      partnerDailyEarnings(ctx.sql, { partnerId, currency, start: range.start, end: range.end }),
      partnerLinkStats(ctx.sql, { partnerId, linkIds: links.map((l) => l.id) }),
      campaignNames(ctx.sql, [...links.map((l) => l.campaignId), ...commissions.map((c) => c.campaignId)]),
    ]);
    return (
      <HomePage
        page={page}
        range={range}
        currency={currency}
        totals={totals}
        daily={daily}
        money={outlook.money}
        outlook={outlook.outlook}
        terms={campaigns.map((c) => campaignTerms(c, snapshot, ctx.config.holdbackDays, group))}
        payoutTerms={payoutTerms(campaigns)}
        links={links}
        linkStats={linkStats}
        campaignNames={names}
        commissions={commissions}
        standings={standings}
      />
    ) as string;
  }

  /** The notice after a link was made: its address and where it lands (the partner's own links only). */
  async function createdNotice(page: PartnerPage, linkId: string): Promise<{ slug: string; url: string; landing: string } | null> {
    const link = await partnerLinkLanding(ctx.sql, { partnerId: page.partner.id, linkId });
    return link ? { slug: link.slug, url: `${ctx.config.baseUrl}/r/${link.slug}`, landing: link.landing } : null;
  }

  /**
   * The partner's codes (newest 200) with their numbers, and the campaigns it may make codes for.
   * `created`: the id of a code just made; the notice names it only if it is one of the partner's.
   */
  async function codesView(page: PartnerPage, input: { created?: string; values?: { code: string; campaignId: string }; errors?: FormErrors }): Promise<string> {
    const partnerId = page.partner.id;
    const [rows, campaigns] = await Promise.all([listCodes(ctx.sql, { limit: 200, partnerId }), heldCampaigns(partnerId)]);
    const codes = rows.slice(0, 200);
    const [stats, names] = await Promise.all([codeStats(ctx.sql, codes.map((c) => c.id)), campaignNames(ctx.sql, codes.map((c) => c.campaignId))]);
    const currencies = new Map(
      (await ctx.sql<{ id: string; currency: string }[]>`select id, currency from campaigns where id = any(${codes.map((c) => c.campaignId)})`).map((c) => [c.id, c.currency]),
    );
    return (
      <CodesPage
        page={page}
        codes={codes.map((c) => ({ ...c, campaignName: names.get(c.campaignId) ?? c.campaignId, currency: currencies.get(c.campaignId) ?? 'USD', stats: stats.get(c.id)! }))}
        campaigns={campaigns.map((c) => ({ id: c.id, name: c.name }))}
        created={codes.find((c) => c.id === input.created)?.code ?? null}
        values={input.values}
        errors={input.errors}
      />
    ) as string;
  }

  async function linksView(
    page: PartnerPage,
    input: {
      cursor?: string;
      created?: { slug: string; url: string; landing: string } | null;
      values?: BuilderValues;
      errors?: FormErrors;
      preview?: { url: string | null; share: string };
    },
  ): Promise<string> {
    const p = readPage({ cursor: input.cursor && /^lnk_[0-9a-z]{26}$/.test(input.cursor) ? input.cursor : undefined }, 'link');
    const [rows, campaigns] = await Promise.all([listLinks(ctx.sql, ctx.config.baseUrl, { ...p, partnerId: page.partner.id }), heldCampaigns(page.partner.id)]);
    const { items, nextCursor } = paginate(rows, p.limit);
    const stats = await partnerLinkStats(ctx.sql, { partnerId: page.partner.id, linkIds: items.map((l) => l.id) });
    return (
      <LinksPage
        page={page}
        baseUrl={ctx.config.baseUrl}
        links={items}
        stats={stats}
        campaigns={campaigns.map((c) => ({ id: c.id, name: c.name, destinationUrl: c.destinationUrl }))}
        nextCursor={nextCursor}
        values={input.values}
        errors={input.errors}
        preview={input.preview}
        created={input.created}
      />
    ) as string;
  }
}
