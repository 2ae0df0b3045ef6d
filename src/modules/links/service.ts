// Share links, click recording and identify: the rules and the SQL.
import type { Sql, Tx } from '../../db';
import { AppError, conflict, forbidden, invalidField, invalidFields, notFound } from '../../lib/errors';
import { isId, newId } from '../../lib/ids';
import { iso } from '../../lib/time';
import { recordIdentityNetwork } from '../fraud/service';
import { destinationProblem, findCampaign, partnerHoldsCampaign } from '../campaigns/service';
import { splitDestination, type LinkTarget } from './cache';
import { changesOf, record } from '../audit/service';
import type { LinkRecord } from './model';
import type { PartnerStatus } from '../partners/model';

export type Link = typeof LinkRecord.static;

export const SLUG_PATTERN = /^[A-Za-z0-9_-]{3,64}$/;

/** Slugs that would read like a page of the service, or confuse people reading the link. */
export const RESERVED_SLUGS = new Set([
  'admin', 'api', 'app', 'assets', 'auth', 'client', 'dashboard', 'docs', 'healthz', 'help', 'login',
  'logout', 'metrics', 'null', 'openapi', 'partnerd', 'portal', 'readyz', 'settings', 'signin', 'signup',
  'static', 'support', 'undefined', 'www',
]);

export function slugProblem(slug: string): string | null {
  if (!SLUG_PATTERN.test(slug)) return 'must be 3-64 characters of A-Z, a-z, 0-9, "_" and "-"';
  if (RESERVED_SLUGS.has(slug.toLowerCase())) return 'is reserved';
  return null;
}

const SLUG_ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789'; // no 0/o, 1/l: links get retyped

/** 8 random characters of a 32-letter alphabet: 40 bits, retried on the rare collision. */
export function generateSlug(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  let out = '';
  for (const b of bytes) out += SLUG_ALPHABET[b & 31];
  return out;
}

type LinkRow = { id: string; slug: string; partner_id: string; campaign_id: string; destination_url: string | null; created_at: Date };

/** The longest destination a link may carry (as a campaign's). */
export const MAX_DESTINATION = 2048;

/**
 * Why `url` may not be a deep link of a campaign whose destination is `campaignUrl`, or null: it must
 * be an absolute http(s) URL of at most 2048 characters on the same host (and port) as the
 * campaign's destination, so a partner cannot send visitors off the operator's site.
 */
export function deepLinkProblem(url: string, campaignUrl: string): string | null {
  if (url.length > MAX_DESTINATION) return `must be at most ${MAX_DESTINATION} characters`;
  const shape = destinationProblem(url);
  if (shape) return shape;
  const host = new URL(url).host;
  const campaignHost = new URL(campaignUrl).host;
  if (host !== campaignHost) return `must be on the campaign's site, ${campaignHost} (got ${host})`;
  return null;
}

function toLink(row: LinkRow, baseUrl: string): Link {
  return {
    id: row.id,
    slug: row.slug,
    url: `${baseUrl}/r/${row.slug}`,
    partnerId: row.partner_id,
    campaignId: row.campaign_id,
    destinationUrl: row.destination_url,
    createdAt: iso(row.created_at)!,
  };
}

/**
 * Creates a share link. The partner must exist, not be revoked, and hold the campaign; the
 * campaign must not be archived. A taken custom slug (case-insensitively) is a 409. A
 * `destinationUrl` (a deep link) must be on the campaign destination's host.
 */
export async function createLink(
  sql: Sql,
  baseUrl: string,
  input: { partnerId: string; campaignId: string; slug?: string; destinationUrl?: string },
): Promise<Link> {
  if (input.slug !== undefined) {
    const problem = slugProblem(input.slug);
    if (problem) throw invalidField('slug', problem);
  }
  if (input.destinationUrl !== undefined) {
    const problem = input.destinationUrl.length > MAX_DESTINATION ? `must be at most ${MAX_DESTINATION} characters` : destinationProblem(input.destinationUrl);
    if (problem) throw invalidField('destinationUrl', problem);
  }
  const [partner] = isId('partner', input.partnerId)
    ? await sql<{ id: string; status: PartnerStatus }[]>`select id, partner_status(p) as status from partners p where id = ${input.partnerId}`
    : [];
  if (!partner) throw notFound('partner');
  if (partner.status === 'revoked') throw forbidden('the partner is revoked and cannot create links');
  // an application is not a partner yet: nothing of it can be promoted before an admin approves it
  if (partner.status === 'applied') throw conflict('the partner is an application waiting for review; approve it before creating links');
  if (partner.status === 'declined') throw conflict('the partner\'s application was declined; it cannot have links');
  const campaign = await findCampaign(sql, input.campaignId);
  if (!campaign) throw notFound('campaign');
  if (campaign.archivedAt) throw conflict('the campaign is archived; unarchive it to create links');
  if (input.destinationUrl !== undefined) {
    const problem = deepLinkProblem(input.destinationUrl, campaign.destinationUrl);
    if (problem) throw invalidField('destinationUrl', problem);
  }
  if (!(await partnerHoldsCampaign(sql, input.partnerId, input.campaignId))) {
    throw forbidden('the partner does not hold this campaign (see the partner\'s campaignIds)');
  }
  for (let attempt = 0; ; attempt++) {
    const slug = input.slug ?? generateSlug();
    try {
      return await sql.begin(async (tx) => {
        const [row] = await tx<LinkRow[]>`
          insert into links (id, slug, partner_id, campaign_id, destination_url)
          values (${newId('link')}, ${slug}, ${input.partnerId}, ${input.campaignId}, ${input.destinationUrl ?? null})
          returning id, slug, partner_id, campaign_id, destination_url, created_at`;
        const link = toLink(row!, baseUrl);
        await record(tx, { action: 'link.created', target: { type: 'link', id: link.id }, changes: changesOf(null, link, ['slug', 'partnerId', 'campaignId', 'destinationUrl']) });
        return link;
      });
    } catch (error) {
      if ((error as { code?: string }).code !== '23505') throw error;
      if (input.slug !== undefined) throw new AppError('conflict', `slug "${input.slug}" is taken`, [{ field: 'slug', message: 'is taken' }]);
      if (attempt >= 4) throw error;
    }
  }
}

/** Newest first, optionally for one partner and/or one campaign. */
export async function listLinks(
  sql: Sql,
  baseUrl: string,
  filter: { limit: number; cursor?: string; partnerId?: string; campaignId?: string },
): Promise<Link[]> {
  const rows = await sql<LinkRow[]>`
    select id, slug, partner_id, campaign_id, destination_url, created_at from links
    where true
      ${filter.partnerId !== undefined ? sql`and partner_id = ${filter.partnerId}` : sql``}
      ${filter.campaignId !== undefined ? sql`and campaign_id = ${filter.campaignId}` : sql``}
      ${filter.cursor ? sql`and id < ${filter.cursor}` : sql``}
    order by id desc
    limit ${filter.limit + 1}`;
  return rows.map((r) => toLink(r, baseUrl));
}

/**
 * What the redirect cache stores for a slug (looked up case-insensitively); null when unknown. The
 * destination is the link's own (a deep link) or else its campaign's, read in the same query.
 */
export async function loadLinkTarget(sql: Sql, slug: string): Promise<LinkTarget | null> {
  const [row] = await sql<{ id: string; partner_id: string; campaign_id: string; destination_url: string; revoked: boolean }[]>`
    select l.id, l.partner_id, l.campaign_id, coalesce(l.destination_url, c.destination_url) as destination_url,
      partner_status(p) = 'revoked' as revoked
    from links l
    join campaigns c on c.id = l.campaign_id
    join partners p on p.id = l.partner_id
    where lower(l.slug) = ${slug.toLowerCase()}`;
  if (!row) return null;
  return {
    linkId: row.id,
    partnerId: row.partner_id,
    campaignId: row.campaign_id,
    revoked: row.revoked,
    ...splitDestination(row.destination_url),
  };
}

/** The per-install secret mixed into IP hashes (made by migration 0005, never leaves the database). */
export async function loadClickSalt(sql: Tx): Promise<string> {
  const [row] = await sql<{ click_salt: string }[]>`select click_salt from settings`;
  return row!.click_salt;
}

/**
 * Joins a user id to click ids (identity_clicks). Works with no clicks: the user is then known
 * (attribution says no_click rather than no_identity). `clicksWritten` runs first: it makes sure
 * clicks still in a write buffer (of any replica) are in the database before the join is
 * committed, so an event sent after identify answers sees them. Click ids are not checked against
 * the clicks table: unknown ids are joined and simply never match a click. The caller's network
 * (`ipHash`) is remembered for self_referral.
 */
export async function identify(
  sql: Sql,
  input: { userId: string; clickIds: string[]; ipHash?: string | null },
  clicksWritten: (clickIds: string[]) => Promise<void> = async () => undefined,
): Promise<{ userId: string; clickIds: string[] }> {
  const problems = input.clickIds
    .map((id, i) => (isId('click', id) ? null : { field: `clickIds.${i}`, message: 'not a click id (clk_...)' }))
    .filter((p) => p !== null);
  if (problems.length > 0) throw invalidFields(problems);
  const clickIds = [...new Set(input.clickIds)];
  if (clickIds.length > 0) await clicksWritten(clickIds);
  await sql.begin(async (tx: Tx) => {
    await tx`
      insert into identities (user_id) values (${input.userId})
      on conflict (user_id) do update set updated_at = now()`;
    if (clickIds.length > 0) {
      await tx`
        insert into identity_clicks (user_id, click_id)
        select ${input.userId}, unnest(${clickIds}::text[])
        on conflict do nothing`;
    }
    if (input.ipHash) await recordIdentityNetwork(tx, input.userId, input.ipHash);
  });
  return { userId: input.userId, clickIds };
}
