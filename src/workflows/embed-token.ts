// Issuing an embed token (POST /v1/embed-tokens): for a partner by id, or for a customer by email who
// becomes an active partner of the campaign on first use. The partner is given a share link to show
// when they have none yet, so the embedded page always has one.
import type { AppContext } from '../context';
import { AppError, conflict } from '../lib/errors';
import { getCampaign } from '../modules/campaigns/service';
import { embedSecret, EMBED_TOKEN_TTL_MS, recordEmbedGrant, signEmbedToken } from '../modules/embed/tokens';
import type { CreateEmbedTokenBody } from '../modules/embed/model';
import { record } from '../modules/audit/service';
import { createLink } from '../modules/links/service';
import { findPartnerByEmail, getPartner, type Partner } from '../modules/partners/service';
import { createPartner } from './invite-partner';

type Input = typeof CreateEmbedTokenBody.static;

export type IssuedEmbedToken = { token: string; url: string; expiresAt: string; partnerId: string; created: boolean };

/** The customer's partner: found by email (given the campaign if they lack it), or created active. */
async function partnerForCustomer(ctx: AppContext, input: { email: string; name?: string; campaignId: string }): Promise<{ partner: Partner; created: boolean }> {
  const campaign = await getCampaign(ctx.sql, input.campaignId);
  if (campaign.archivedAt) throw conflict('the campaign is archived');
  const email = input.email.trim().toLowerCase();
  let partner = await findPartnerByEmail(ctx.sql, email);
  if (!partner) {
    try {
      const made = await createPartner(ctx, { email, name: input.name?.trim() || email.split('@')[0]!, sendInvite: false, campaignIds: [campaign.id] });
      return { partner: made, created: true };
    } catch (error) {
      // another request created them first: use theirs
      if (!(error instanceof AppError && error.code === 'conflict')) throw error;
      partner = await findPartnerByEmail(ctx.sql, email);
      if (!partner) throw error;
    }
  }
  if (partner.status === 'active' && !partner.campaignIds.includes(campaign.id)) {
    const before = partner.campaignIds;
    await ctx.sql.begin(async (tx) => {
      const added = await tx`insert into partner_campaigns (partner_id, campaign_id, source) values (${partner!.id}, ${campaign.id}, 'admin') on conflict do nothing returning 1`;
      if (added.length > 0) await record(tx, { action: 'partner.updated', target: { type: 'partner', id: partner!.id }, changes: { campaignIds: [before, [...before, campaign.id]] } });
    });
  }
  return { partner, created: false };
}

/** Makes a share link when the partner has none to show (of `campaignId`, else of a campaign they hold). */
async function ensureLink(ctx: AppContext, partnerId: string, campaignIds: string[]): Promise<void> {
  const [held] = campaignIds.length === 1 ? await ctx.sql`select 1 from links where partner_id = ${partnerId} and campaign_id = ${campaignIds[0]!} limit 1` : await ctx.sql`select 1 from links where partner_id = ${partnerId} limit 1`;
  if (held) return;
  for (const campaignId of campaignIds) {
    try {
      const link = await createLink(ctx.sql, ctx.config.baseUrl, { partnerId, campaignId });
      ctx.links.invalidate({ slug: link.slug });
      return;
    } catch (error) {
      // an archived campaign makes no links: try the next
      if (!(error instanceof AppError)) throw error;
    }
  }
}

export async function issueEmbedToken(ctx: AppContext, input: Input): Promise<IssuedEmbedToken> {
  const { partner, created } = 'partnerId' in input ? { partner: await getPartner(ctx.sql, input.partnerId), created: false } : await partnerForCustomer(ctx, input);
  if (partner.status !== 'active') throw conflict(`the partner is ${partner.status}; only an active partner can have an embedded page`);
  await ensureLink(ctx, partner.id, 'campaignId' in input ? [input.campaignId] : partner.campaignIds);
  const expiresAt = new Date(Date.now() + EMBED_TOKEN_TTL_MS);
  const token = signEmbedToken(await embedSecret(ctx.sql), partner.id, expiresAt);
  await recordEmbedGrant(ctx.sql, partner.id, expiresAt);
  return { token, url: `${ctx.config.baseUrl}/embed?token=${token}`, expiresAt: expiresAt.toISOString(), partnerId: partner.id, created };
}
