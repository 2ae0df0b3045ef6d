// Inviting a team member: the member row and their sign-in link in one transaction, then the
// admin sign-in mail (the same mail an ADMIN_EMAILS owner gets).
import type { AppContext } from '../context';
import { sendQuietly } from '../mail';
import { loadBrand } from '../mail/brand';
import { signInEmail } from '../mail/templates';
import { issueMagicLink, magicLinkUrl } from '../modules/auth/magic';
import type { Role } from '../modules/auth/roles';
import { addMember, type Member } from '../modules/team/service';

export async function inviteMember(ctx: AppContext, input: { email: string; role: Role; invitedBy: string | null }): Promise<Member> {
  const { member, token } = await ctx.sql.begin(async (tx) => {
    const member = await addMember(tx, { ...input, source: 'invite' }, ctx.config.adminEmails);
    const link = await issueMagicLink(tx, { purpose: 'admin', email: member.email });
    return { member, token: link.token };
  });
  await sendQuietly(ctx.mailer, ctx.log, signInEmail(await loadBrand(ctx.sql, ctx.config.baseUrl), { to: member.email, link: magicLinkUrl(ctx.config.baseUrl, token) }));
  return member;
}
