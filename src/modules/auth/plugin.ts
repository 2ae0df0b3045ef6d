// The one auth plugin: every route declares `auth: <rule>`; the macro resolves who is calling
// (admin, scoped, partner or publishable key, or a session cookie) and checks the rule.
import { Elysia } from 'elysia';
import type { AppContext } from '../../context';
import { setActor, type Actor } from '../../lib/audit-context';
import { AppError } from '../../lib/errors';
import { principalForKey } from './keys';
import { apiRoles, roleAllows } from './roles';
import type { Principal, Scope } from './scopes';
import { principalForSession, SESSION_COOKIE } from './sessions';

/**
 * - a scope: admin, or a scoped key holding it
 * - 'admin': the admin key or an admin session only
 * - an object: a scope (or 'admin'), plus whether partner principals and publishable keys may pass;
 *   routes that let partners in check ownership themselves (see requirePartner)
 */
export type AuthRule = Scope | 'admin' | { scope: Scope | 'admin'; partner?: boolean; publishable?: boolean };

export function authPlugin(ctx: AppContext) {
  return new Elysia().macro('auth', (rule: AuthRule) => ({
    // the OpenAPI document and the security tests read who may call from here
    detail: { security: securityOf(rule), 'x-auth': rule },
    async resolve({ request, route }) {
      const principal = await authenticate(ctx, request);
      setActor(actorOfPrincipal(principal));
      authorize(principal, rule);
      authorizeRole(principal, request.method, route, rule);
      return { principal };
    },
  }));
}

export async function authenticate(ctx: AppContext, request: Request): Promise<Principal> {
  const header = request.headers.get('authorization');
  if (header !== null) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) throw new AppError('unauthorized', 'Authorization header must be "Bearer <API key>"');
    const key = match[1]!;
    const principal = key.length <= 256 ? await principalForKey(ctx.sql, key) : null;
    if (!principal) throw new AppError('unauthorized', 'unknown or revoked API key');
    return principal;
  }
  const token = readCookie(request, SESSION_COOKIE);
  if (token && token.length <= 256) {
    const principal = await principalForSession(ctx.sql, token, ctx.config.adminEmails);
    if (principal) {
      refuseCrossSite(ctx, request);
      return principal;
    }
  }
  throw new AppError('unauthorized', 'missing credentials: send "Authorization: Bearer <API key>"');
}

/** The audit log's actor for a caller: an admin's session by email, any key by its id, a partner's session by partner. */
export function actorOfPrincipal(principal: Principal): Actor {
  if (principal.kind === 'admin' && !principal.keyId && principal.email) return { type: 'admin', id: principal.email, email: principal.email };
  if (principal.kind === 'partner' && !principal.keyId) return { type: 'partner', id: principal.partnerId };
  return { type: 'key', id: principal.keyId ?? 'admin-key' };
}

const ruleParts = (rule: AuthRule) => ({ partner: false, publishable: false, ...(typeof rule === 'string' ? { scope: rule } : rule) });

/**
 * The OpenAPI security requirements of a rule (schemes in src/routes/openapi.ts): the admin key
 * or an admin's session always; a scoped key with the scope; partner and publishable keys if let in.
 */
export function securityOf(rule: AuthRule): Record<string, string[]>[] {
  const { scope, partner, publishable } = ruleParts(rule);
  return [
    { adminKey: [] },
    ...(scope === 'admin' ? [] : [{ scopedKey: [scope] }]),
    ...(partner ? [{ partnerKey: [] }] : []),
    ...(publishable ? [{ publishableKey: [] }] : []),
    { session: [] },
  ];
}

export function authorize(principal: Principal, rule: AuthRule): void {
  const { scope, partner, publishable } = ruleParts(rule);
  switch (principal.kind) {
    case 'admin':
      return;
    case 'scoped':
      if (scope !== 'admin' && principal.scopes.includes(scope)) return;
      throw new AppError('forbidden', scope === 'admin' ? 'this call needs the admin key' : `this key lacks the ${scope} scope`);
    case 'partner':
      if (partner) return;
      throw new AppError('forbidden', 'partner credentials may not make this call');
    case 'publishable':
      if (publishable) return;
      throw new AppError('forbidden', 'a publishable key may only identify users and record clicks');
  }
}

/**
 * A team member's session passes only what their role may do (modules/auth/roles.ts); the admin key
 * and everyone else are judged by authorize() alone.
 */
export function authorizeRole(principal: Principal, method: string, route: string, rule: AuthRule): void {
  if (principal.kind !== 'admin' || !principal.role) return;
  if (roleAllows(principal.role, apiRoles(method, route, ruleParts(rule).scope))) return;
  throw new AppError('forbidden', `your role (${principal.role}) may not do this`);
}

/** Partner principals may only touch their own partner; everyone who passed the rule may touch any. */
export function requirePartner(principal: Principal, partnerId: string): void {
  if (principal.kind === 'partner' && principal.partnerId !== partnerId) {
    throw new AppError('forbidden', 'partners may only access their own data');
  }
}

/** The partner id a partner principal is limited to, or undefined for everyone else. */
export function ownPartnerId(principal: Principal): string | undefined {
  return principal.kind === 'partner' ? principal.partnerId : undefined;
}

export function readCookie(request: Request, name: string): string | undefined {
  const header = request.headers.get('cookie');
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

// Cookies ride along on cross-site requests; a state change made with a session must come from
// our own origin. Browsers send Origin (and Sec-Fetch-Site) on such requests: a write carrying
// neither did not come from our pages (an old browser, a form posted by a plugin, a script), so it
// is refused too; scripts use an API key.
export function refuseCrossSite(ctx: AppContext, request: Request): void {
  if (SAFE_METHODS.has(request.method)) return;
  const origin = request.headers.get('origin');
  const site = request.headers.get('sec-fetch-site');
  if (!origin && !site) {
    throw new AppError('forbidden', 'a change made with a session cookie must come from this site (the request has neither Origin nor Sec-Fetch-Site); scripts use an API key');
  }
  const own = new URL(ctx.config.baseUrl).origin;
  if ((origin && origin !== own) || (site && site !== 'same-origin' && site !== 'none')) {
    throw new AppError('forbidden', 'cross-site request refused');
  }
}
