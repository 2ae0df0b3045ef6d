// The emails that go out at once rather than through the outbox: invites and sign-in links (a person
// is waiting for them) and the account notices sent with them. Branded like every outbox email, from
// the same blocks (HTML and text); the magic link stands alone on a line of the text part.
import type { Message } from './index';
import { button, p, renderEmail, type Brand } from './render';

function message(to: string, brand: Brand, subject: string, blocks: Parameters<typeof renderEmail>[1]): Message {
  const { text, html } = renderEmail(subject, blocks, brand);
  return { to, subject, text, html };
}

export function inviteEmail(brand: Brand, m: { to: string; name: string; link: string }): Message {
  return message(m.to, brand, `You are invited to ${brand.programName}`, [
    p(`Hi ${m.name},`),
    p(`You have been invited to join ${brand.programName}. Open this link to activate your account (valid for 15 minutes):`),
    button('Activate your account', m.link),
    p('If the link has expired, ask for a new one from the sign-in page.'),
  ]);
}

export function signInEmail(brand: Brand, m: { to: string; link: string }): Message {
  return message(m.to, brand, `Your sign-in link for ${brand.programName}`, [
    p('Open this link to sign in (valid for 15 minutes, usable once):'),
    button('Sign in', m.link),
    p('If you did not ask for it, ignore this email.'),
  ]);
}

export function revokedEmail(brand: Brand, m: { to: string; name: string; reason: string | null }): Message {
  return message(m.to, brand, `Your ${brand.programName} account has been suspended`, [
    p(`Hi ${m.name},`),
    p('Your partner account has been suspended; you can no longer sign in or create share links. Commissions you earned before stay payable.'),
    ...(m.reason ? [p(`Reason given: ${m.reason}`)] : []),
  ]);
}

export function reinstatedEmail(brand: Brand, m: { to: string; name: string }): Message {
  return message(m.to, brand, `Your ${brand.programName} account has been reinstated`, [
    p(`Hi ${m.name},`),
    p('Your partner account is active again. Ask for a sign-in link on the sign-in page to continue.'),
  ]);
}
