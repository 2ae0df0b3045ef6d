// Promotion codes: the rules of creating one, the SQL of reading and archiving them, the code an
// event's couponCode names, and what each code brought (customers, revenue, earnings).
import type { Sql, Tx } from '../../db';
import { AppError, conflict, forbidden, invalidField, notFound } from '../../lib/errors';
import { isId, newId } from '../../lib/ids';
import { iso } from '../../lib/time';
import { findCampaign, partnerHoldsCampaign } from '../campaigns/service';
import { changesOf, record } from '../audit/service';
import type { CodeRecord } from './model';
import type { PromotionCodeSync } from '../../../plugins/billing';

export type PromotionCode = typeof CodeRecord.static;

type CodeRow = {
  id: string;
  code: string;
  partner_id: string;
  campaign_id: string;
  stripe_promotion_code_id: string | null;
  created_at: Date;
  archived_at: Date | null;
};

const COLUMNS = (sql: Tx) => sql`id, code, partner_id, campaign_id, stripe_promotion_code_id, created_at, archived_at`;

function toCode(row: CodeRow): PromotionCode {
  return {
    id: row.id,
    code: row.code,
    partnerId: row.partner_id,
    campaignId: row.campaign_id,
    stripePromotionCodeId: row.stripe_promotion_code_id,
    createdAt: iso(row.created_at)!,
    archivedAt: iso(row.archived_at),
  };
}

const CODE_PATTERN = /^[A-Za-z0-9_-]+$/;

/** What is wrong with a code as typed, or null. */
export function codeProblem(code: string): string | null {
  if (code.length < 3 || code.length > 40) return 'must be 3-40 characters long';
  if (!CODE_PATTERN.test(code)) return 'may only contain A-Z a-z 0-9 _ -';
  return null;
}

/**
 * Creates a code. The partner must exist, not be revoked, and hold the campaign (403 otherwise);
 * the campaign must exist and not be archived. A code taken ignoring case is a 409: the unique
 * index on lower(code) decides, so two requests racing for one code cannot both win.
 *
 * With `sync` and a campaign Stripe coupon, the Stripe promotion code is created while the row's
 * transaction holds the code: if Stripe refuses (502), the row is rolled back and nothing exists.
 */
export async function createCode(sql: Sql, input: { code: string; partnerId: string; campaignId: string }, sync?: PromotionCodeSync | null): Promise<PromotionCode> {
  const problem = codeProblem(input.code);
  if (problem) throw invalidField('code', problem);
  const [partner] = isId('partner', input.partnerId)
    ? await sql<{ revoked_at: Date | null }[]>`select revoked_at from partners where id = ${input.partnerId}`
    : [];
  if (!partner) throw notFound('partner');
  if (partner.revoked_at) throw forbidden('the partner is revoked and cannot get codes');
  const campaign = await findCampaign(sql, input.campaignId);
  if (!campaign) throw notFound('campaign');
  if (!(await partnerHoldsCampaign(sql, input.partnerId, campaign.id))) {
    throw forbidden("the partner does not hold this campaign (see the partner's campaignIds)");
  }
  if (campaign.archivedAt) throw conflict('the campaign is archived; unarchive it to create codes');
  const coupon = sync ? campaign.stripeCouponId : null;
  try {
    return await sql.begin(async (tx) => {
      const [row] = await tx<CodeRow[]>`
        insert into promotion_codes (id, code, partner_id, campaign_id)
        values (${newId('promotionCode')}, ${input.code}, ${input.partnerId}, ${campaign.id})
        returning ${COLUMNS(tx)}`;
      const created = { action: 'code.created', target: { type: 'code', id: row!.id }, changes: changesOf(null, toCode(row!), ['code', 'partnerId', 'campaignId']) };
      await record(tx, created);
      if (sync && coupon) {
        const promo = await sync.create({ id: row!.id, code: row!.code, coupon });
        await tx`update promotion_codes set stripe_promotion_code_id = ${promo} where id = ${row!.id}`;
        return toCode({ ...row!, stripe_promotion_code_id: promo });
      }
      return toCode(row!);
    });
  } catch (error) {
    if ((error as { code?: string }).code === '23505') {
      throw new AppError('conflict', `code "${input.code}" is taken (codes are compared ignoring case)`, [{ field: 'code', message: 'is taken' }]);
    }
    throw error;
  }
}

export async function findCode(sql: Tx, id: string): Promise<PromotionCode | null> {
  if (!isId('promotionCode', id)) return null;
  const [row] = await sql<CodeRow[]>`select ${COLUMNS(sql)} from promotion_codes where id = ${id}`;
  return row ? toCode(row) : null;
}

export async function getCode(sql: Tx, id: string): Promise<PromotionCode> {
  const code = await findCode(sql, id);
  if (!code) throw notFound('code');
  return code;
}

/** Newest first, optionally for one partner and/or one campaign. */
export async function listCodes(
  sql: Sql,
  filter: { limit: number; cursor?: string; partnerId?: string; campaignId?: string },
): Promise<PromotionCode[]> {
  const rows = await sql<CodeRow[]>`
    select ${COLUMNS(sql)} from promotion_codes
    where true
      ${filter.partnerId !== undefined ? sql`and partner_id = ${filter.partnerId}` : sql``}
      ${filter.campaignId !== undefined ? sql`and campaign_id = ${filter.campaignId}` : sql``}
      ${filter.cursor ? sql`and id < ${filter.cursor}` : sql``}
    order by id desc
    limit ${filter.limit + 1}`;
  return rows.map(toCode);
}

/**
 * Archives (stops crediting) or unarchives a code; archiving twice keeps the first time. A code
 * synced to Stripe is deactivated (reactivated) there first: if Stripe refuses, nothing changes.
 */
export async function setCodeArchived(sql: Sql, id: string, archived: boolean, sync?: PromotionCodeSync | null): Promise<PromotionCode> {
  if (!isId('promotionCode', id)) throw notFound('code');
  const [synced] = await sql<{ stripe_promotion_code_id: string | null; archived: boolean }[]>`
    select stripe_promotion_code_id, archived_at is not null as archived from promotion_codes where id = ${id}`;
  if (!synced) throw notFound('code');
  if (sync && synced.stripe_promotion_code_id && synced.archived !== archived) await sync.setActive(synced.stripe_promotion_code_id, !archived);
  return sql.begin(async (tx) => {
    const [row] = await tx<CodeRow[]>`
      update promotion_codes
      set archived_at = ${archived ? tx`coalesce(archived_at, now())` : null}
      where id = ${id}
      returning ${COLUMNS(tx)}`;
    if (!row) throw notFound('code');
    if (synced.archived !== archived) {
      await record(tx, { action: archived ? 'code.archived' : 'code.unarchived', target: { type: 'code', id }, changes: { archived: [synced.archived, archived] } });
    }
    return toCode(row);
  });
}

/** A code that credits: `text` names it (ignoring case) or is its Stripe promotion code id. */
export type CreditingCode = { id: string; code: string; partnerId: string; campaignId: string };

/**
 * The code an event's couponCode names, if it credits anyone: not archived, and its partner not
 * revoked. An unknown code is no error: the caller falls back to clicks.
 */
export async function findCreditingCode(sql: Tx, text: string): Promise<CreditingCode | null> {
  if (text.length === 0 || text.length > 255) return null;
  const [row] = await sql<{ id: string; code: string; partner_id: string; campaign_id: string }[]>`
    select pc.id, pc.code, pc.partner_id, pc.campaign_id
    from promotion_codes pc join partners p on p.id = pc.partner_id
    where (lower(pc.code) = lower(${text}) or pc.stripe_promotion_code_id = ${text})
      and pc.archived_at is null and p.revoked_at is null
    limit 1`;
  return row ? { id: row.id, code: row.code, partnerId: row.partner_id, campaignId: row.campaign_id } : null;
}

/** Money per currency, minor units. */
export type Sums = { currency: string; amount: bigint }[];

export type CodeStats = {
  /** Customers the code brought: referrals it started. */
  customers: number;
  /** The events credited through the code (first and later ones). */
  conversions: number;
  /** What those customers paid in the credited events. */
  revenue: Sums;
  /** The partner's commissions through the code, reversed ones left out. */
  earnings: Sums;
};

/** Usage and money of each code, for the admin and portal pages. */
export async function codeStats(sql: Tx, codeIds: string[]): Promise<Map<string, CodeStats>> {
  const stats = new Map<string, CodeStats>(codeIds.map((id) => [id, { customers: 0, conversions: 0, revenue: [], earnings: [] }]));
  if (codeIds.length === 0) return stats;
  const [customers, revenue, earnings] = await Promise.all([
    sql<{ code_id: string; n: number }[]>`
      select code_id, count(*)::int as n from referral_touches where code_id = any(${codeIds}) group by code_id`,
    sql<{ code_id: string; currency: string | null; amount: bigint | null; n: number }[]>`
      select a.code_id, e.currency, sum(e.amount)::bigint as amount, count(*)::int as n
      from attributions a join events e on e.id = a.event_id
      where a.code_id = any(${codeIds})
      group by a.code_id, e.currency`,
    sql<{ code_id: string; currency: string; amount: bigint }[]>`
      select a.code_id, c.currency, sum(c.amount)::bigint as amount
      from commissions c join attributions a on a.id = c.attribution_id
      where a.code_id = any(${codeIds}) and c.status <> 'reversed'
      group by a.code_id, c.currency`,
  ]);
  for (const r of customers) stats.get(r.code_id)!.customers = r.n;
  for (const r of revenue) {
    const s = stats.get(r.code_id)!;
    s.conversions += r.n;
    if (r.currency !== null && r.amount !== null && r.amount > 0n) s.revenue.push({ currency: r.currency, amount: BigInt(r.amount) });
  }
  for (const r of earnings) stats.get(r.code_id)!.earnings.push({ currency: r.currency, amount: BigInt(r.amount) });
  for (const s of stats.values()) {
    s.revenue.sort((a, b) => a.currency.localeCompare(b.currency));
    s.earnings.sort((a, b) => a.currency.localeCompare(b.currency));
  }
  return stats;
}
