// Embed tokens: short-lived (1 hour), signed (HMAC-SHA256 with the program's embed secret, kept in
// settings), bound to one partner. `<payload>.<signature>`, both base64url; the payload is
// `{p: partnerId, e: expiry (Unix seconds)}`. Nothing is stored per token: the signature is the proof.
import { createHmac } from 'node:crypto';
import type { Sql } from '../../db';
import { record } from '../audit/service';
import { randomToken, safeEqual } from '../../lib/crypto';

export const EMBED_TOKEN_TTL_MS = 60 * 60 * 1000;

/** The signing key, made on first use (the first writer wins; every replica then reads the same). */
export async function embedSecret(sql: Sql): Promise<string> {
  const [row] = await sql<{ embed_secret: string | null }[]>`select embed_secret from settings`;
  if (row?.embed_secret) return row.embed_secret;
  const [made] = await sql<{ embed_secret: string }[]>`
    update settings set embed_secret = coalesce(embed_secret, ${randomToken(32)}) returning embed_secret`;
  return made!.embed_secret;
}

const sign = (secret: string, payload: string) => createHmac('sha256', secret).update(`partnerd-embed.${payload}`).digest('base64url');

export function signEmbedToken(secret: string, partnerId: string, expiresAt: Date): string {
  const payload = Buffer.from(JSON.stringify({ p: partnerId, e: Math.floor(expiresAt.getTime() / 1000) })).toString('base64url');
  return `${payload}.${sign(secret, payload)}`;
}

export type EmbedTokenCheck = { ok: true; partnerId: string; expiresAt: Date } | { ok: false; reason: 'malformed' | 'forged' | 'expired' };

/** Checks a token's signature (in constant time) and then its expiry. */
export function verifyEmbedToken(secret: string, token: string, now = Date.now()): EmbedTokenCheck {
  const match = /^([A-Za-z0-9_-]{1,400})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!match) return { ok: false, reason: 'malformed' };
  const [, payload, signature] = match;
  if (!safeEqual(signature!, sign(secret, payload!))) return { ok: false, reason: 'forged' };
  let claims: { p?: unknown; e?: unknown };
  try {
    claims = JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8'));
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  if (typeof claims.p !== 'string' || typeof claims.e !== 'number') return { ok: false, reason: 'malformed' };
  const expiresAt = new Date(claims.e * 1000);
  if (expiresAt.getTime() <= now) return { ok: false, reason: 'expired' };
  return { ok: true, partnerId: claims.p, expiresAt };
}

/** A token was given out: the audit log says for whom and until when (never the token). */
export async function recordEmbedGrant(sql: Sql, partnerId: string, expiresAt: Date): Promise<void> {
  await sql.begin((tx) => record(tx, { action: 'embed_token.granted', target: { type: 'partner', id: partnerId }, changes: { expiresAt: [null, expiresAt.toISOString()] } }));
}
