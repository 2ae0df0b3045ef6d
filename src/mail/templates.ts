// The text of every email the service sends. Magic links stand alone on a line of the text part.
import type { Message } from './index';

const FOOTER = '\n--\nSent by Partnerd, the partner program of this service.';

export function inviteEmail(p: { to: string; name: string; link: string }): Message {
  return {
    to: p.to,
    subject: 'You are invited to the partner program',
    text: `Hi ${p.name},\n\nYou have been invited to join the partner program. Open this link to activate your account (valid for 15 minutes):\n\n${p.link}\n\nIf the link has expired, ask for a new one from the sign-in page.${FOOTER}`,
  };
}

export function signInEmail(p: { to: string; link: string }): Message {
  return {
    to: p.to,
    subject: 'Your sign-in link',
    text: `Open this link to sign in (valid for 15 minutes, usable once):\n\n${p.link}\n\nIf you did not ask for it, ignore this email.${FOOTER}`,
  };
}

export function revokedEmail(p: { to: string; name: string; reason: string | null }): Message {
  const why = p.reason ? `\n\nReason given: ${p.reason}` : '';
  return {
    to: p.to,
    subject: 'Your partner account has been suspended',
    text: `Hi ${p.name},\n\nYour partner account has been suspended; you can no longer sign in or create share links. Commissions you earned before stay payable.${why}${FOOTER}`,
  };
}

export function reinstatedEmail(p: { to: string; name: string }): Message {
  return {
    to: p.to,
    subject: 'Your partner account has been reinstated',
    text: `Hi ${p.name},\n\nYour partner account is active again. Ask for a sign-in link on the sign-in page to continue.${FOOTER}`,
  };
}
