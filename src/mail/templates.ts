// The emails that go out at once rather than through the outbox: invites and sign-in links (a person
// is waiting for them) and the account notices sent with them. They are templates like the outbox's
// (in the registry, so the admin previews show them), rendered here the moment they are sent; the
// magic link stands alone on a line of the text part.
import type { Message } from './index';
import { button, heading, p, renderEmail, type Brand } from './render';
import { defineTemplate, type EmailTemplate } from './template';

type Invite = { name: string; link: string };
type SignIn = { link: string };
type Suspended = { name: string; reason: string | null };
type Reinstated = { name: string };

const SAMPLE_LINK = 'https://partners.example.com/auth/magic?token=sample';

export const accountTemplates = {
  invite: defineTemplate<Invite>({
    title: 'Invite',
    audience: 'partner',
    subject: (_d, b) => `You are invited to ${b.programName}`,
    body: (d, b) => [
      heading(`Welcome to ${b.programName}`),
      p(`Hi ${d.name},`),
      p(`You have been invited to join ${b.programName}. Open this link to activate your account (valid for 15 minutes):`),
      button('Activate your account', d.link),
      p('If the link has expired, ask for a new one from the sign-in page.'),
    ],
    sample: { name: 'Ada Lovelace', link: SAMPLE_LINK },
  }),
  sign_in: defineTemplate<SignIn>({
    title: 'Sign-in link',
    audience: 'partner',
    subject: (_d, b) => `Your sign-in link for ${b.programName}`,
    body: (d, b) => [heading(`Sign in to ${b.programName}`), p('Open this link to sign in (valid for 15 minutes, usable once):'), button('Sign in', d.link), p('If you did not ask for it, ignore this email.')],
    sample: { link: SAMPLE_LINK },
  }),
  account_suspended: defineTemplate<Suspended>({
    title: 'Account suspended',
    audience: 'partner',
    subject: (_d, b) => `Your ${b.programName} account has been suspended`,
    body: (d) => [
      heading('Your account is suspended'),
      p(`Hi ${d.name},`),
      p('Your partner account has been suspended; you can no longer sign in or create share links. Commissions you earned before stay payable.'),
      ...(d.reason ? [p(`Reason given: ${d.reason}`)] : []),
    ],
    sample: { name: 'Ada Lovelace', reason: 'Paid search on the brand name.' },
  }),
  account_reinstated: defineTemplate<Reinstated>({
    title: 'Account reinstated',
    audience: 'partner',
    subject: (_d, b) => `Your ${b.programName} account has been reinstated`,
    body: (d) => [heading('Your account is active again'), p(`Hi ${d.name},`), p('Your partner account is active again. Ask for a sign-in link on the sign-in page to continue.')],
    sample: { name: 'Ada Lovelace' },
  }),
};

function message<D>(template: EmailTemplate<D>, brand: Brand, to: string, data: D): Message {
  const subject = template.subject(data, brand);
  const { text, html } = renderEmail(subject, template.body(data, brand), brand);
  return { to, subject, text, html };
}

export const inviteEmail = (brand: Brand, m: { to: string } & Invite) => message(accountTemplates.invite, brand, m.to, m);
export const signInEmail = (brand: Brand, m: { to: string } & SignIn) => message(accountTemplates.sign_in, brand, m.to, m);
export const revokedEmail = (brand: Brand, m: { to: string } & Suspended) => message(accountTemplates.account_suspended, brand, m.to, m);
export const reinstatedEmail = (brand: Brand, m: { to: string } & Reinstated) => message(accountTemplates.account_reinstated, brand, m.to, m);
