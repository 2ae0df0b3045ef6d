// Who is behind a page request: the session guards of the partner portal and the admin pages.
import { loadBrand } from '../mail/brand';
import { pageBrand, type PageBrand } from './brand';
import type { AppContext } from '../context';
import { setActor } from '../lib/audit-context';
import { readCookie } from '../modules/auth/plugin';
import { principalForSession, revokedSessionReason, SESSION_COOKIE } from '../modules/auth/sessions';
import { findPartner, type Partner } from '../modules/partners/service';
import { partnerTaxState } from '../modules/tax/service';
import { waitingCounts, type Waiting } from '../modules/reports/overview';
import { csrfToken } from './csrf';
import type { Role } from '../modules/auth/roles';

/** `tax`: the taxForms setting, and whether the partner's payouts are held for want of a valid tax form. */
export type PartnerPage = { partner: Partner; csrf: string; sessionToken: string; brand: PageBrand; tax: { setting: 'off' | 'collect' | 'require'; held: boolean } };

export type PartnerGuard =
  | { kind: 'partner'; page: PartnerPage }
  | { kind: 'revoked'; reason: string | null }
  | { kind: 'signed-out' };

/**
 * A live partner session, or the revoke reason when the session was ended by its partner's
 * revocation (revoking ends every session), or signed out. Admin sessions are signed out here.
 */
export async function guardPartner(ctx: AppContext, request: Request): Promise<PartnerGuard> {
  const token = readCookie(request, SESSION_COOKIE);
  if (!token || token.length > 256) return { kind: 'signed-out' };
  const principal = await principalForSession(ctx.sql, token, ctx.config.adminEmails);
  if (principal?.kind === 'partner') {
    setActor({ type: 'partner', id: principal.partnerId });
    const partner = await findPartner(ctx.sql, principal.partnerId);
    if (partner) {
      const [settings, tax] = await Promise.all([loadBrand(ctx.sql, ctx.config.baseUrl), partnerTaxState(ctx.sql, partner.id)]);
      return { kind: 'partner', page: { partner, csrf: csrfToken(token), sessionToken: token, brand: pageBrand(settings), tax } };
    }
  }
  if (!principal) {
    const revoked = await revokedSessionReason(ctx.sql, token);
    if (revoked) return { kind: 'revoked', reason: revoked.reason };
  }
  return { kind: 'signed-out' };
}

/** A signed-in admin's page; `waiting` feeds the navigation's badges (Applications, Review). */
export type AdminPage = { email: string; role: Role; csrf: string; sessionToken: string; waiting?: Waiting };

export type AdminGuard = { kind: 'admin'; page: AdminPage } | { kind: 'partner' } | { kind: 'signed-out' };

/**
 * A live admin session (kind 'admin', its email still in ADMIN_EMAILS or on the team, with its role), a partner's session (which
 * admin pages refuse), or signed out. API keys never open a page: only the session cookie counts.
 */
export async function guardAdmin(ctx: AppContext, request: Request): Promise<AdminGuard> {
  const token = readCookie(request, SESSION_COOKIE);
  if (!token || token.length > 256) return { kind: 'signed-out' };
  const principal = await principalForSession(ctx.sql, token, ctx.config.adminEmails);
  if (principal?.kind === 'admin' && principal.email && principal.role) {
    setActor({ type: 'admin', id: principal.email, email: principal.email });
    return { kind: 'admin', page: { email: principal.email, role: principal.role, csrf: csrfToken(token), sessionToken: token, waiting: await waitingCounts(ctx.sql) } };
  }
  if (principal?.kind === 'partner') return { kind: 'partner' };
  return { kind: 'signed-out' };
}
