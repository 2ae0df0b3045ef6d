// Signing an admin in by single sign-on: who the provider vouched for becomes a session when they
// are an owner (ADMIN_EMAILS) or a team member, or, with a verified address of an allowed domain,
// a new member with OIDC_DEFAULT_ROLE; anyone else is refused.
import type { AppContext } from '../context';
import type { OidcIdentity } from '../modules/auth/oidc';
import { createSession } from '../modules/auth/sessions';
import { addMember, recordSignIn, roleOf } from '../modules/team/service';

export type SsoOutcome = { kind: 'signed-in'; sessionToken: string; expiresAt: Date } | { kind: 'refused'; reason: string };

export async function ssoSignIn(ctx: AppContext, identity: OidcIdentity, userAgent: string | null): Promise<SsoOutcome> {
  const settings = ctx.oidc!.settings;
  if (!identity.verified) return { kind: 'refused', reason: `The provider has not verified ${identity.email}.` };
  return ctx.sql.begin(async (tx): Promise<SsoOutcome> => {
    const email = identity.email;
    if (!(await roleOf(tx, email, ctx.config.adminEmails))) {
      const domain = email.slice(email.lastIndexOf('@') + 1);
      if (!settings.allowedDomains.includes(domain)) {
        return { kind: 'refused', reason: `${email} is not on the team, and ${domain} is not a domain allowed to join by single sign-on.` };
      }
      await addMember(tx, { email, role: settings.defaultRole, source: 'sso', invitedBy: null }, ctx.config.adminEmails);
    }
    await recordSignIn(tx, email, ctx.config.adminEmails);
    const session = await createSession(tx, { kind: 'admin', email }, userAgent);
    return { kind: 'signed-in', sessionToken: session.token, expiresAt: session.expiresAt };
  });
}
