// Revoking a partner and undoing it. A revoke ends the partner's sessions (and, in the DELETE form,
// revokes its API keys) in the same transaction; afterwards the link cache drops the partner's share
// links and the partner is mailed.
import type { AppContext } from '../context';
import { conflict, notFound } from '../lib/errors';
import { sendQuietly } from '../mail';
import { reinstatedEmail, revokedEmail } from '../mail/templates';
import { loadBrand } from '../mail/brand';
import { revokePartnerKeys } from '../modules/auth/keys';
import { endPartnerSessions } from '../modules/auth/sessions';
import { recordPartnerChange } from '../modules/partners/audit';
import { findPartner, getPartner, type Partner } from '../modules/partners/service';

/**
 * Suspends a partner: sessions end at once, no new attribution accrues, earned commissions stay.
 * `revokeKeys` (the DELETE form) also revokes the partner's API keys. Revoking twice changes nothing.
 */
export async function revokePartner(
  ctx: AppContext,
  id: string,
  input: { reason?: string; revokeKeys: boolean },
): Promise<Partner> {
  const reason = input.reason?.trim() || null;
  const { partner, first } = await ctx.sql.begin(async (tx) => {
    const before = await findPartner(tx, id);
    const [row] = await tx<{ id: string }[]>`
      update partners set revoked_at = now(), revoke_reason = ${reason}, updated_at = now()
      where id = ${id} and revoked_at is null
      returning id`;
    const [exists] = row ? [row] : await tx<{ id: string }[]>`select id from partners where id = ${id}`;
    if (!exists) throw notFound('partner');
    await endPartnerSessions(tx, id);
    if (input.revokeKeys) await revokePartnerKeys(tx, id);
    const after = (await findPartner(tx, id))!;
    if (row) await recordPartnerChange(tx, 'revoked', before, after);
    return { partner: after, first: Boolean(row) };
  });
  // share links of a revoked partner stop recording clicks at once (NOTIFY tells other replicas)
  if (first) ctx.links.invalidate({ all: true });
  if (first) await sendQuietly(ctx.mailer, ctx.log, revokedEmail(await loadBrand(ctx.sql, ctx.config.baseUrl), { to: partner.email, name: partner.name, reason }));
  return partner;
}

/** Undoes a revoke: active again if it was ever activated, else pending. */
export async function reinstatePartner(ctx: AppContext, id: string): Promise<Partner> {
  const partner = await ctx.sql.begin(async (tx) => {
    const current = await getPartner(tx, id);
    if (current.status !== 'revoked') throw conflict('partner is not revoked');
    await tx`update partners set revoked_at = null, revoke_reason = null, updated_at = now() where id = ${id}`;
    const after = (await findPartner(tx, id))!;
    await recordPartnerChange(tx, 'reinstated', current, after);
    return after;
  });
  ctx.links.invalidate({ all: true });
  await sendQuietly(ctx.mailer, ctx.log, reinstatedEmail(await loadBrand(ctx.sql, ctx.config.baseUrl), { to: partner.email, name: partner.name }));
  return partner;
}
