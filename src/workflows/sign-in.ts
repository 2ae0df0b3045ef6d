// Sign-in flows: asking for a magic link, consuming one (activates the partner and opens a session in
// one transaction), self-signup. They join auth (links, sessions) and partners.
import type { AppContext } from '../context';
import { AppError } from '../lib/errors';
import { sendQuietly } from '../mail';
import { revokedEmail, signInEmail } from '../mail/templates';
import { loadBrand } from '../mail/brand';
import { consumeMagicLink, issueMagicLink, magicLinkUrl } from '../modules/auth/magic';
import { createSession } from '../modules/auth/sessions';
import { recordSignInNetwork } from '../modules/fraud/service';
import { networkHash } from '../modules/fraud/signals';
import { loadClickSalt } from '../modules/links/service';
import { checkApplicationAnswers } from '../lib/questions';
import { applicationQuestions } from '../modules/settings/service';
import { activatePartner, findPartner, findPartnerByEmail, findRecruiter } from '../modules/partners/service';
import { recordSignIn, roleOf } from '../modules/team/service';
import { createPartner } from './invite-partner';

/** The answer to a sign-in request, the same for any email. */
export const SENT = { ok: true, message: 'If the address belongs to an account, a sign-in link is on its way.' };

/**
 * Mails a sign-in link to an admin (ADMIN_EMAILS or a team member) or a partner. Unknown emails get nothing, revoked
 * partners get the reason; the caller answers the same in every case.
 */
export async function requestMagicLink(ctx: AppContext, rawEmail: string): Promise<void> {
  const email = rawEmail.trim().toLowerCase();
  if (await roleOf(ctx.sql, email, ctx.config.adminEmails)) {
    const link = await issueMagicLink(ctx.sql, { purpose: 'admin', email });
    await sendQuietly(ctx.mailer, ctx.log, signInEmail(await loadBrand(ctx.sql, ctx.config.baseUrl), { to: email, link: magicLinkUrl(ctx.config.baseUrl, link.token) }));
    return;
  }
  const partner = await findPartnerByEmail(ctx.sql, email);
  if (!partner) return;
  // an application waiting for review, or declined: no link, and the same answer as for a stranger
  if (partner.status === 'applied' || partner.status === 'declined') return;
  if (partner.status === 'revoked') {
    await sendQuietly(ctx.mailer, ctx.log, revokedEmail(await loadBrand(ctx.sql, ctx.config.baseUrl), { to: email, name: partner.name, reason: partner.revokeReason }));
    return;
  }
  const link = await issueMagicLink(ctx.sql, { purpose: 'signin', email, partnerId: partner.id });
  await sendQuietly(ctx.mailer, ctx.log, signInEmail(await loadBrand(ctx.sql, ctx.config.baseUrl), { to: email, link: magicLinkUrl(ctx.config.baseUrl, link.token) }));
}

export type MagicOutcome =
  | { kind: 'signed-in'; sessionToken: string; expiresAt: Date; landing: '/portal' | '/admin' }
  | { kind: 'invalid' }
  | { kind: 'revoked'; reason: string | null };

/**
 * Uses a link once: activates a pending partner (partner.activated) and opens a session. A partner's
 * network (`ip`, hashed) is remembered: a customer identified from it is a self_referral.
 */
export async function consumeLink(ctx: AppContext, token: string, ip: string | null = null, userAgent: string | null = null): Promise<MagicOutcome> {
  return ctx.sql.begin(async (tx): Promise<MagicOutcome> => {
    const link = await consumeMagicLink(tx, token);
    if (!link) return { kind: 'invalid' };
    if (link.purpose === 'admin') {
      // an owner from ADMIN_EMAILS or a team member still on the team
      if (!(await roleOf(tx, link.email, ctx.config.adminEmails))) return { kind: 'invalid' };
      await recordSignIn(tx, link.email, ctx.config.adminEmails);
      const session = await createSession(tx, { kind: 'admin', email: link.email }, userAgent);
      return { kind: 'signed-in', sessionToken: session.token, expiresAt: session.expiresAt, landing: '/admin' };
    }
    const partner = link.partnerId ? await findPartner(tx, link.partnerId) : null;
    if (!partner) return { kind: 'invalid' };
    if (partner.status === 'revoked') return { kind: 'revoked', reason: partner.revokeReason };
    // no link is issued to them; one from before a decline is refused like an expired one
    if (partner.status === 'applied' || partner.status === 'declined') return { kind: 'invalid' };
    await activatePartner(tx, partner.id);
    if (ip) await recordSignInNetwork(tx, partner.id, networkHash(await loadClickSalt(tx), ip));
    const session = await createSession(tx, { kind: 'partner', partnerId: partner.id });
    return { kind: 'signed-in', sessionToken: session.token, expiresAt: session.expiresAt, landing: '/portal' };
  });
}

export type SignupMode = 'open' | 'closed' | 'review';

/** How partners may sign themselves up: the settings row wins over PARTNER_SIGNUP. */
export async function signupMode(ctx: AppContext): Promise<SignupMode> {
  const [row] = await ctx.sql<{ partner_signup: SignupMode | null }[]>`select partner_signup from settings`;
  return row?.partner_signup ?? ctx.config.partnerSignup;
}

/** Whether the signup page is there at all: open, or taking applications. */
export async function signupOpen(ctx: AppContext): Promise<boolean> {
  return (await signupMode(ctx)) !== 'closed';
}

/** What POST /auth/signup answers, the same whether or not the email already has an account. */
export const SIGNUP_ANSWERS: Record<Exclude<SignupMode, 'closed'>, string> = {
  open: 'Check your inbox for a link to activate your account.',
  review: 'Thank you for applying. We will email you once your application has been reviewed.',
};

/**
 * Self-signup. Open: a pending partner and an invite link. Review: an application (status applied,
 * no invite). Either way the admins are told (createPartner, in its transaction). The answers to the signup questions are stored either way.
 * An existing email just gets what asking for a sign-in link gives it. Returns the mode it ran under.
 * A recruiting link's ref makes its partner the recruiter (referredBy); a stale or revoked one is ignored.
 */
export async function signUp(
  ctx: AppContext,
  input: { email: string; name: string; applicationAnswers?: unknown; ref?: string },
): Promise<Exclude<SignupMode, 'closed'>> {
  const mode = await signupMode(ctx);
  // the operator's questions: unknown keys refused, and under review the required ones asked for
  const given = checkApplicationAnswers(input.applicationAnswers, await applicationQuestions(ctx.sql), { requireAnswers: mode === 'review' });
  if (mode === 'closed') throw new AppError('forbidden', 'partner signup is closed');
  const existing = await findPartnerByEmail(ctx.sql, input.email);
  if (existing) {
    await requestMagicLink(ctx, input.email);
    return mode;
  }
  const answers = given && Object.keys(given).length > 0 ? given : undefined;
  try {
    // a recruiting link's ref credits its partner as recruiter; a stale or revoked one is ignored, never an error
    const referredBy = await findRecruiter(ctx.sql, input.ref);
    await createPartner(ctx, {
      email: input.email,
      name: input.name,
      sendInvite: mode === 'open',
      applied: mode === 'review',
      applicationAnswers: answers,
      campaignGrantSource: 'signup',
      referredBy,
    });
    return mode;
  } catch (error) {
    // a concurrent signup with the same email won the race: answer as for an existing partner
    if (error instanceof AppError && error.code === 'conflict') return mode;
    throw error;
  }
}

