// Magic links: random single-use tokens, stored hashed, valid 15 minutes; several may be outstanding.
import type { Tx } from '../../db';
import { randomToken, sha256 } from '../../lib/crypto';
import { newId } from '../../lib/ids';
import { MINUTE } from '../../lib/time';

export const MAGIC_LINK_TTL_MS = 15 * MINUTE;

/** What GET /auth/magic shows when a link signs no one in: the portal's pages, handed to the routes by app.ts. */
export type MagicLinkPages = { expired(request: Request): Response | Promise<Response>; revoked(reason: string | null): Response };

export type MagicPurpose = 'invite' | 'signin' | 'admin';

export function magicLinkUrl(baseUrl: string, token: string): string {
  return `${baseUrl}/auth/magic?token=${encodeURIComponent(token)}`;
}

export async function issueMagicLink(
  sql: Tx,
  input: { purpose: MagicPurpose; email: string; partnerId?: string },
): Promise<{ token: string; expiresAt: Date }> {
  const token = randomToken(32);
  const expiresAt = new Date(Date.now() + MAGIC_LINK_TTL_MS);
  await sql`
    insert into magic_links (id, token_hash, purpose, partner_id, email, expires_at)
    values (${newId('magicLink')}, ${sha256(token)}, ${input.purpose}, ${input.partnerId ?? null}, ${input.email}, ${expiresAt})`;
  return { token, expiresAt };
}

export type ConsumedLink = { purpose: MagicPurpose; email: string; partnerId: string | null };

/** Marks a token used and answers what it was for; null when unknown, used or expired. */
export async function consumeMagicLink(sql: Tx, token: string): Promise<ConsumedLink | null> {
  const [row] = await sql<{ purpose: ConsumedLink['purpose']; email: string; partner_id: string | null }[]>`
    update magic_links set used_at = now()
    where token_hash = ${sha256(token)} and used_at is null and expires_at > now()
    returning purpose, email, partner_id`;
  if (!row) return null;
  return { purpose: row.purpose, email: row.email, partnerId: row.partner_id };
}
