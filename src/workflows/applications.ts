// Reviewed applications (partnerSignup = review): approving one sends the invite (the partner is then
// pending like any invited partner; the invite goes out at once, as every magic link does), declining
// one mails the reason (through the email outbox, in the decision's transaction). Storing an application is the
// signup flow's (./sign-in.ts).
import type { AppContext } from '../context';
import type { Tx } from '../db';
import { conflict, notFound } from '../lib/errors';
import { enqueueEmail } from '../mail/outbox';
import { issueMagicLink } from '../modules/auth/magic';
import { recordPartnerChange } from '../modules/partners/audit';
import { findPartner, type Partner } from '../modules/partners/service';
import { sendInvite } from './invite-partner';

/** The 409 for a partner that is not an application waiting for review, saying what it is instead. */
async function notWaiting(tx: Tx, id: string, verb: 'approve' | 'decline'): Promise<never> {
  const partner = await findPartner(tx, id);
  if (!partner) throw notFound('partner');
  const what: Record<Partner['status'], string> = {
    applied: 'waiting for review',
    pending: 'already approved (invited, not yet signed in)',
    active: 'already active',
    revoked: 'revoked',
    declined: 'already declined',
  };
  throw conflict(`cannot ${verb}: the partner is ${what[partner.status]}; only an application waiting for review can be approved or declined`);
}

/** Approves an application: status pending, and the invite goes out once the change has committed. */
export async function approveApplication(ctx: AppContext, id: string): Promise<Partner> {
  const { partner, token } = await ctx.sql.begin(async (tx) => {
    // one statement decides: two admins approving at once, or approve racing decline, change it once
    const [row] = await tx<{ id: string }[]>`
      update partners set approved_at = now(), updated_at = now()
      where id = ${id} and partner_status(partners) = 'applied'
      returning id`;
    if (!row) return notWaiting(tx, id, 'approve');
    const partner = (await findPartner(tx, id))!;
    await recordPartnerChange(tx, 'approved', { ...partner, status: 'applied' }, partner);
    const invite = await issueMagicLink(tx, { purpose: 'invite', email: partner.email, partnerId: id });
    return { partner, token: invite.token };
  });
  await sendInvite(ctx, { email: partner.email, name: partner.name, token });
  return partner;
}

/** Declines an application with a reason, which the applicant is mailed; the partner can never sign in. */
export async function declineApplication(ctx: AppContext, id: string, input: { reason: string }): Promise<Partner> {
  const reason = input.reason.trim();
  const partner = await ctx.sql.begin(async (tx) => {
    const [row] = await tx<{ id: string }[]>`
      update partners set declined_at = now(), decline_reason = ${reason}, updated_at = now()
      where id = ${id} and partner_status(partners) = 'applied'
      returning id`;
    if (!row) return notWaiting(tx, id, 'decline');
    const partner = (await findPartner(tx, id))!;
    await recordPartnerChange(tx, 'declined', { ...partner, status: 'applied', declineReason: null }, partner);
    // the email commits with the decision (the outbox): never lost, never sent twice
    await enqueueEmail(tx, { template: 'application_declined', to: partner.email, data: { name: partner.name, reason }, partnerId: id, dedupeKey: `application_declined:${id}` });
    return partner;
  });
  return partner;
}
