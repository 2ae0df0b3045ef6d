// Partners and their invites: creating a partner (admin, self-signup, federation) with its invite or
// the admins' notice, sending the invite again, and the one way an invite goes out (sendInvite),
// which approving an application uses too (./applications.ts). The invite link is issued in the
// change's transaction and mailed once it has committed.
import type { AppContext } from '../context';
import { sendQuietly } from '../mail';
import { loadBrand } from '../mail/brand';
import { notifyAdminsOfSignup } from '../mail/notify';
import { inviteEmail } from '../mail/templates';
import { conflict } from '../lib/errors';
import { issueMagicLink, magicLinkUrl } from '../modules/auth/magic';
import { getPartner, insertPartner, type CreatePartnerInput, type Partner } from '../modules/partners/service';

/** An invite link issued in a transaction, to be mailed once it has committed. */
export type IssuedInvite = { email: string; name: string; token: string };

/** Mails an invite link (to the partner's sign-in email); a mail failure is logged, never thrown. */
export async function sendInvite(ctx: AppContext, invite: IssuedInvite): Promise<void> {
  const brand = await loadBrand(ctx.sql, ctx.config.baseUrl);
  await sendQuietly(ctx.mailer, ctx.log, inviteEmail(brand, { to: invite.email, name: invite.name, link: magicLinkUrl(ctx.config.baseUrl, invite.token) }));
}

/**
 * Creates a partner; an invited one (the default, never an application) is mailed its invite once
 * the transaction has committed. A self-signup or an application tells the admins, in the same
 * transaction.
 */
export async function createPartner(ctx: AppContext, input: CreatePartnerInput): Promise<Partner & { invited: boolean }> {
  const invited = !(input.applied ?? false) && (input.sendInvite ?? true);
  const { partner, invite } = await ctx.sql.begin(async (tx) => {
    const partner = await insertPartner(tx, { ...input, invited });
    if (input.campaignGrantSource === 'signup') {
      await notifyAdminsOfSignup(tx, { id: partner.id, name: partner.name, email: partner.email, status: partner.status });
    }
    const invite = invited ? await issueMagicLink(tx, { purpose: 'invite', email: partner.email, partnerId: partner.id }) : null;
    return { partner, invite };
  });
  if (invite) await sendInvite(ctx, { email: partner.email, name: partner.name, token: invite.token });
  return { ...partner, invited };
}

/** Sends a fresh invite link to a partner still pending; earlier ones stay valid until they expire. */
export async function reinvitePartner(ctx: AppContext, id: string): Promise<{ ok: true; expiresAt: string }> {
  const { partner, invite } = await ctx.sql.begin(async (tx) => {
    const partner = await getPartner(tx, id);
    if (partner.status === 'active') throw conflict('partner has already accepted the invite');
    if (partner.status === 'revoked') throw conflict('partner is revoked; reinstate it first');
    if (partner.status === 'applied') throw conflict('partner has applied; approve the application to send the invite');
    if (partner.status === 'declined') throw conflict('the application was declined; no invite can be sent');
    const invite = await issueMagicLink(tx, { purpose: 'invite', email: partner.email, partnerId: id });
    return { partner, invite };
  });
  await sendInvite(ctx, { email: partner.email, name: partner.name, token: invite.token });
  return { ok: true, expiresAt: invite.expiresAt.toISOString() };
}
