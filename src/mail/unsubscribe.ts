// Unsubscribe links: `<partnerId>.<kind>.<HMAC>` keyed with the installation's mail secret, so a link
// works without sign-in yet cannot be made for another partner or kind.
import { createHmac } from 'node:crypto';
import { safeEqual } from '../lib/crypto';
import { NOTIFICATION_KINDS, type NotificationKind } from './template';

function signature(secret: string, partnerId: string, kind: string): string {
  return createHmac('sha256', secret).update(`unsubscribe:${partnerId}:${kind}`).digest('base64url');
}

export function unsubscribeToken(secret: string, partnerId: string, kind: NotificationKind): string {
  return `${partnerId}.${kind}.${signature(secret, partnerId, kind)}`;
}

export function unsubscribeUrl(baseUrl: string, secret: string, partnerId: string, kind: NotificationKind): string {
  return `${baseUrl}/unsubscribe?token=${encodeURIComponent(unsubscribeToken(secret, partnerId, kind))}`;
}

/** The partner and kind a token stands for, or null when it is malformed or its signature is wrong. */
export function readUnsubscribeToken(secret: string, token: unknown): { partnerId: string; kind: NotificationKind } | null {
  if (typeof token !== 'string' || token.length > 200) return null;
  const [partnerId, kind, sig, ...rest] = token.split('.');
  if (!partnerId || !kind || !sig || rest.length > 0) return null;
  if (!(NOTIFICATION_KINDS as readonly string[]).includes(kind)) return null;
  if (!safeEqual(signature(secret, partnerId, kind), sig)) return null;
  return { partnerId, kind: kind as NotificationKind };
}
