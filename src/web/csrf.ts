// CSRF protection for every state-changing form: a token bound to the browser's session, checked in
// constant time, on top of the Origin check of the auth plugin. See docs/web.md.
import { createHmac } from 'node:crypto';
import { AppError } from '../lib/errors';
import { randomToken, safeEqual } from '../lib/crypto';
import { readCookie } from '../modules/auth/plugin';

/** The form field every state-changing form carries. */
export const CSRF_FIELD = '_csrf';

/**
 * Browsers without a session (sign-in and sign-up forms) get a random pre-session cookie that the
 * token is bound to instead. SameSite=Strict: it never rides along on a cross-site request.
 */
export const ANON_COOKIE = 'partnerd_csrf';

/**
 * HMAC keyed by the session's secret id (the cookie value, which only the browser and its
 * HttpOnly cookie hold): nothing to store, dies with the session, and the token reveals nothing
 * about the id it came from.
 */
export function csrfToken(secret: string): string {
  return createHmac('sha256', secret).update('partnerd form v1').digest('base64url');
}

export function checkCsrfToken(secret: string | undefined, sent: unknown): boolean {
  if (!secret || typeof sent !== 'string' || sent.length > 100) return false;
  return safeEqual(csrfToken(secret), sent);
}

export function refuseBadToken(secret: string | undefined, form: Record<string, unknown>): void {
  if (!checkCsrfToken(secret, form[CSRF_FIELD])) {
    throw new AppError('forbidden', 'the form expired or did not come from this site; reload the page and try again');
  }
}

/** The pre-session secret of this browser, and the cookie to set when it has none yet. */
export function anonSecret(request: Request, secure: boolean): { secret: string; setCookie?: string } {
  const existing = readCookie(request, ANON_COOKIE);
  if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return { secret: existing };
  const secret = randomToken(32);
  return { secret, setCookie: `${ANON_COOKIE}=${secret}; Path=/; HttpOnly; SameSite=Strict; Max-Age=86400${secure ? '; Secure' : ''}` };
}
