// The scopes a scoped (`sk_`) key can carry, and the kinds of key.
import type { Role } from './roles';

export const SCOPES = [
  'partners:read',
  'partners:write',
  'events:read',
  'events:write',
  'campaigns:read',
  'campaigns:write',
  'links:write',
  'commissions:read',
  'commissions:write',
  'payouts:read',
  'payouts:write',
  'webhooks:read',
  'webhooks:write',
  // the 1099-NEC export, which carries full tax ids (docs/tax.md)
  'tax:read',
  'audit:read',
] as const;

export type Scope = (typeof SCOPES)[number];

export const KEY_PREFIX = { admin: 'sk_admin_', scoped: 'sk_', publishable: 'pk_', partner: 'sk_ptn_' } as const;
export type KeyKind = keyof typeof KEY_PREFIX;
export const KEY_KINDS = Object.keys(KEY_PREFIX) as [KeyKind, ...KeyKind[]];

/** Who is calling: resolved once per request by the auth plugin. An admin session carries its role; the admin key has none (all power). */
export type Principal =
  | { kind: 'admin'; keyId: string | null; email: string | null; role?: Role }
  | { kind: 'scoped'; keyId: string; scopes: Scope[] }
  | { kind: 'partner'; partnerId: string; keyId: string | null }
  | { kind: 'publishable'; keyId: string };
