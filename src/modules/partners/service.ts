// Partner rules: creation (admin, self-signup, federation), updates, activation. Inviting is
// src/workflows/invite-partner.ts; revoking and reinstating a partner is src/workflows/revoke-partner.ts.
import type { JSONValue } from 'postgres';
import type { Sql, Transaction, Tx } from '../../db';
import { AppError, conflict, invalidFields, notFound } from '../../lib/errors';
import { idTime, isId, newId } from '../../lib/ids';
import { checkMetadata } from '../../lib/metadata';
import { iso } from '../../lib/time';
import { NOTIFICATION_KINDS, type Notifications } from '../../mail/template';
import { ruleProblems, type CommissionSnapshot } from '../campaigns/rules';
import { checkGroupId } from '../groups/service';
import { enqueueEvent } from '../webhooks/outbox';
import { record } from '../audit/service';
import { recordPartnerChange } from './audit';
import type { ApplicationAnswers } from '../../lib/fields';
import type { PartnerRecord, PartnerStatus, SnapshotRecord } from './model';

export type Partner = typeof PartnerRecord.static;
/** The columns SELECT_PARTNER reads. */
type PartnerRow = {
  id: string;
  status: PartnerStatus;
  email: string;
  name: string;
  activated_at: Date | null;
  created_at: Date;
  revoked_at: Date | null;
  revoke_reason: string | null;
  billing_connect_account_id: string | null;
  payout_email: string | null;
  metadata: Record<string, unknown> | null;
  campaign_ids: string[];
  applied_at: Date | null;
  approved_at: Date | null;
  declined_at: Date | null;
  decline_reason: string | null;
  application_answers: ApplicationAnswers | null;
  notifications: Partial<Notifications>;
  group_id: string | null;
  referred_by: string | null;
};

/** The switches of a PATCH (undefined when absent), or a 400 naming each one that is wrong. */
export function checkNotifications(value: unknown): Partial<Notifications> | undefined {
  if (value === undefined) return undefined;
  const field = 'notifications';
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new AppError('invalid_body', `${field}: must be a JSON object`, [{ field, message: 'must be a JSON object' }]);
  }
  const details = Object.entries(value).flatMap(([key, on]) => {
    if (!(NOTIFICATION_KINDS as readonly string[]).includes(key)) return [{ field: `${field}.${key}`, message: `is not an email kind (${NOTIFICATION_KINDS.join(', ')})` }];
    return typeof on === 'boolean' ? [] : [{ field: `${field}.${key}`, message: 'must be true or false' }];
  });
  if (details.length > 0) throw invalidFields(details);
  return value as Partial<Notifications>;
}

/** The stored switches with the defaults filled in: a kind never turned off is on. */
export function notificationsOf(stored: Partial<Notifications> | null): Notifications {
  return Object.fromEntries(NOTIFICATION_KINDS.map((kind) => [kind, stored?.[kind] !== false])) as Notifications;
}

function toPartner(row: PartnerRow): Partner {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    status: row.status,
    activatedAt: iso(row.activated_at),
    createdAt: iso(row.created_at)!,
    revokedAt: iso(row.revoked_at),
    revokeReason: row.revoke_reason,
    billingConnectAccountId: row.billing_connect_account_id,
    payoutEmail: row.payout_email,
    metadata: row.metadata ?? {},
    campaignIds: row.campaign_ids,
    appliedAt: iso(row.applied_at),
    applicationAnswers: row.application_answers,
    declineReason: row.decline_reason,
    notifications: notificationsOf(row.notifications),
    groupId: row.group_id,
    referredBy: row.referred_by,
  };
}

const SELECT_PARTNER = (sql: Tx) => sql`
  select p.id, partner_status(p) as status, p.email, p.name, p.activated_at, p.created_at, p.revoked_at, p.revoke_reason,
    p.billing_connect_account_id, p.payout_email, p.metadata, p.group_id, p.referred_by,
    p.applied_at, p.approved_at, p.declined_at, p.decline_reason, p.application_answers, p.notifications,
    coalesce((select array_agg(pc.campaign_id order by pc.campaign_id) from partner_campaigns pc where pc.partner_id = p.id), '{}') as campaign_ids
  from partners p`;

export async function findPartner(sql: Tx, id: string): Promise<Partner | null> {
  const [row] = await sql<PartnerRow[]>`${SELECT_PARTNER(sql)} where p.id = ${id}`;
  return row ? toPartner(row) : null;
}

export async function getPartner(sql: Tx, id: string): Promise<Partner> {
  const partner = await findPartner(sql, id);
  if (!partner) throw notFound('partner');
  return partner;
}

export async function findPartnerByEmail(sql: Tx, email: string): Promise<Partner | null> {
  const [row] = await sql<PartnerRow[]>`${SELECT_PARTNER(sql)} where p.email = ${email.toLowerCase()}`;
  return row ? toPartner(row) : null;
}

export async function listPartners(
  sql: Sql,
  filter: { email?: string; search?: string; status?: PartnerStatus; groupId?: string; limit: number; cursor?: string },
): Promise<Partner[]> {
  // `search`: a case-insensitive substring of the email or the name (the admin pages' search box)
  const like = filter.search ? `%${filter.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null;
  const rows = await sql<PartnerRow[]>`
    ${SELECT_PARTNER(sql)}
    where true
      ${filter.email !== undefined ? sql`and p.email = ${filter.email.toLowerCase()}` : sql``}
      ${like !== null ? sql`and (p.email ilike ${like} or p.name ilike ${like})` : sql``}
      ${filter.status !== undefined ? sql`and partner_status(p) = ${filter.status}` : sql``}
      ${filter.groupId !== undefined ? sql`and p.group_id = ${filter.groupId}` : sql``}
      ${filter.cursor ? sql`and p.id < ${filter.cursor}` : sql``}
    order by p.id desc
    limit ${filter.limit + 1}`;
  return rows.map(toPartner);
}

/** Omitted: every current campaign. Given: each must exist and not be archived. */
async function resolveCampaignIds(sql: Tx, requested: string[] | undefined): Promise<string[]> {
  if (requested === undefined) {
    const rows = await sql<{ id: string }[]>`select id from campaigns where archived_at is null order by id`;
    return rows.map((r) => r.id);
  }
  const unique = [...new Set(requested)].sort();
  if (unique.length === 0) return [];
  const rows = await sql<{ id: string }[]>`select id from campaigns where id = any(${unique}) and archived_at is null`;
  const found = new Set(rows.map((r) => r.id));
  const missing = unique.filter((id) => !found.has(id));
  if (missing.length > 0) {
    throw new AppError(
      'invalid_body',
      `campaignIds: unknown or archived campaign ${missing.join(', ')}`,
      missing.map((id) => ({ field: 'campaignIds', message: `unknown or archived campaign ${id}` })),
    );
  }
  return unique;
}

async function grantCampaigns(sql: Tx, partnerId: string, campaignIds: string[], source: string) {
  if (campaignIds.length === 0) return;
  const rows = campaignIds.map((campaign_id) => ({ partner_id: partnerId, campaign_id, source }));
  await sql`insert into partner_campaigns ${sql(rows, 'partner_id', 'campaign_id', 'source')} on conflict do nothing`;
}

export type CreatePartnerInput = {
  email: string;
  name: string;
  sendInvite?: boolean;
  metadata?: unknown;
  campaignIds?: string[];
  campaignGrantSource?: 'admin' | 'offering' | 'signup';
  commissionSnapshot?: CommissionSnapshot;
  /** A self-signup's answers to the signup questions, stored as given. */
  applicationAnswers?: ApplicationAnswers;
  /** Under partnerSignup = review: the partner waits as `applied`; no invite, whatever sendInvite says. */
  applied?: boolean;
  groupId?: string | null;
  /** The recruiter's partner id (admin API, or a recruiting link's ref resolved by the signup). */
  referredBy?: string | null;
};

/**
 * Inserts a partner in `tx` and emits partner.created (and partnership.approved for network
 * federation). `invited`: the partner waits as pending for the invite the caller sends; otherwise,
 * unless it applied, it is active at once. Inviting is src/workflows/invite-partner.ts.
 */
export async function insertPartner(tx: Transaction, input: CreatePartnerInput & { invited: boolean }): Promise<Partner> {
  const email = input.email.trim().toLowerCase();
  const applied = input.applied ?? false;
  // an application is neither invited nor active until an admin approves it
  const activatedNow = !applied && !input.invited;
  checkMetadata(input.metadata);
  if (input.commissionSnapshot) {
    const problems = ruleProblems(input.commissionSnapshot.rules, 'commissionSnapshot.rules');
    if (problems.length > 0) throw invalidFields(problems);
  }
  const source = input.campaignGrantSource ?? 'admin';
  const networkCreatorId = (input.metadata as Record<string, unknown> | undefined)?.networkCreatorId;
  const federated = source === 'offering' && typeof networkCreatorId === 'string' && input.commissionSnapshot !== undefined;

  const campaignIds = await resolveCampaignIds(tx, input.campaignIds);
  await checkGroupId(tx, input.groupId ?? null);
  await checkRecruiter(tx, input.referredBy ?? null, null);
  const id = newId('partner');
  const inserted = await tx`
    insert into partners (id, email, name, metadata, activated_at, applied_at, application_answers, group_id, referred_by)
    values (${id}, ${email}, ${input.name.trim()}, ${tx.json((input.metadata ?? {}) as JSONValue)},
            ${activatedNow ? idTime(id) : null}, ${applied ? idTime(id) : null},
            ${input.applicationAnswers ? tx.json(input.applicationAnswers as JSONValue) : null}, ${input.groupId ?? null}, ${input.referredBy ?? null})
    on conflict (email) do nothing
    returning id`;
  if (inserted.length === 0) throw conflict(`a partner with email ${email} already exists`);
  await grantCampaigns(tx, id, campaignIds, source);
  if (input.commissionSnapshot) {
    await tx`insert into partner_commission_snapshots (partner_id, snapshot) values (${id}, ${tx.json(input.commissionSnapshot as JSONValue)})`;
  }
  const partner = (await findPartner(tx, id))!;
  // a self-signup is the partner's own doing
  await recordPartnerChange(tx, 'created', null, partner, source === 'signup' ? { type: 'partner', id } : undefined);
  await enqueueEvent(tx, 'partner.created', { partnerId: id, email, name: partner.name, activatedAt: partner.activatedAt, invited: input.invited, campaignIds });
  if (federated) {
    await enqueueEvent(tx, 'partnership.approved', { partnerId: id, email, name: partner.name, networkCreatorId: networkCreatorId as string, campaignIds });
  }
  return partner;
}

export type UpdatePartnerInput = {
  name?: string;
  metadata?: unknown;
  campaignIds?: string[];
  billingConnectAccountId?: string | null;
  payoutEmail?: string | null;
  notifications?: unknown;
  groupId?: string | null;
  referredBy?: string | null;
};

export async function updatePartner(sql: Sql, id: string, input: UpdatePartnerInput): Promise<Partner> {
  checkMetadata(input.metadata);
  const notifications = checkNotifications(input.notifications);
  return sql.begin(async (tx) => {
    const before = await findPartner(tx, id);
    if (input.groupId !== undefined) await checkGroupId(tx, input.groupId);
    if (input.referredBy !== undefined) await checkRecruiter(tx, input.referredBy, id);
    const [row] = await tx`
      update partners set
        name = coalesce(${input.name?.trim() ?? null}, name),
        metadata = coalesce(${input.metadata ? tx.json(input.metadata as JSONValue) : null}, metadata),
        billing_connect_account_id = ${
          input.billingConnectAccountId === undefined ? tx`billing_connect_account_id` : input.billingConnectAccountId
        },
        payout_email = ${input.payoutEmail === undefined ? tx`payout_email` : (input.payoutEmail?.trim().toLowerCase() ?? null)},
        notifications = notifications || ${tx.json((notifications ?? {}) as JSONValue)},
        group_id = ${input.groupId === undefined ? tx`group_id` : input.groupId},
        referred_by = ${input.referredBy === undefined ? tx`referred_by` : input.referredBy},
        updated_at = now()
      where id = ${id}
      returning id`;
    if (!row) throw notFound('partner');
    if (input.campaignIds !== undefined) {
      const campaignIds = await resolveCampaignIds(tx, input.campaignIds);
      await tx`delete from partner_campaigns where partner_id = ${id} and campaign_id <> all(${campaignIds})`;
      await grantCampaigns(tx, id, campaignIds, 'admin');
    }
    const after = (await findPartner(tx, id))!;
    await recordPartnerChange(tx, 'updated', before, after);
    return after;
  });
}

/**
 * A partner's own changes from the portal: name and payout email (null clears it), and the billing
 * Connect account id only while none is set: once set, only an admin changes it (PATCH
 * /partners/:id), so a stolen session cannot redirect payouts. Giving the id already set is no change.
 */
export async function updateOwnProfile(
  sql: Sql,
  id: string,
  input: { name: string; payoutEmail: string | null; billingConnectAccountId?: string },
): Promise<Partner> {
  return sql.begin(async (tx) => {
    const [row] = await tx<{ billing_connect_account_id: string | null }[]>`select billing_connect_account_id from partners where id = ${id} for update`;
    if (!row) throw notFound('partner');
    const before = (await findPartner(tx, id))!;
    const account = input.billingConnectAccountId;
    if (account !== undefined && row.billing_connect_account_id !== null && account !== row.billing_connect_account_id) {
      throw new AppError('conflict', 'billingConnectAccountId: already set; ask the program to change it', [
        { field: 'billingConnectAccountId', message: 'is already set; ask the program to change it' },
      ]);
    }
    await tx`
      update partners set
        name = ${input.name.trim()},
        payout_email = ${input.payoutEmail === null ? null : input.payoutEmail.trim().toLowerCase()},
        billing_connect_account_id = coalesce(billing_connect_account_id, ${account ?? null}),
        updated_at = now()
      where id = ${id}`;
    const after = (await findPartner(tx, id))!;
    await recordPartnerChange(tx, 'updated', before, after);
    return after;
  });
}

/**
 * A recruiter given in a request: an existing partner, not the partner itself, and not one of its
 * own recruits (overrides are one level deep; a loop would make each the other's recruiter).
 * null clears. Problems are a 400 on `referredBy`.
 */
async function checkRecruiter(sql: Tx, recruiterId: string | null, partnerId: string | null): Promise<void> {
  if (recruiterId === null) return;
  const problem = (message: string) => new AppError('invalid_body', `referredBy: ${message}`, [{ field: 'referredBy', message }]);
  if (recruiterId === partnerId) throw problem('a partner cannot be its own recruiter');
  const [row] = isId('partner', recruiterId)
    ? await sql<{ referred_by: string | null }[]>`select referred_by from partners where id = ${recruiterId}`
    : [];
  if (!row) throw problem(`unknown partner ${recruiterId}`);
  if (partnerId !== null && row.referred_by === partnerId) throw problem('that partner was recruited by this one');
}

/** The partner a recruiting link's `ref` names, when it may recruit (exists, not revoked); else null. */
export async function findRecruiter(sql: Tx, ref: string | undefined): Promise<string | null> {
  if (ref === undefined || !isId('partner', ref)) return null;
  const [row] = await sql<{ id: string }[]>`select id from partners where id = ${ref} and revoked_at is null`;
  return row?.id ?? null;
}

export async function getCommissionSnapshot(sql: Sql, partnerId: string): Promise<typeof SnapshotRecord.static> {
  await getPartner(sql, partnerId);
  const [row] = await sql<{ snapshot: CommissionSnapshot; created_at: Date }[]>`select snapshot, created_at from partner_commission_snapshots where partner_id = ${partnerId}`;
  if (!row) return null;
  return { partnerId, ...row.snapshot, createdAt: iso(row.created_at)! };
}

/** Activates a pending partner (first use of an invite or sign-in link); emits partner.activated. */
export async function activatePartner(tx: Transaction, id: string): Promise<void> {
  const [row] = await tx<{ id: string; email: string; name: string; activated_at: Date }[]>`
    update partners set activated_at = now(), updated_at = now()
    where id = ${id} and partner_status(partners) = 'pending'
    returning id, email, name, activated_at`;
  if (!row) return;
  await record(tx, { action: 'partner.activated', target: { type: 'partner', id }, changes: { status: ['pending', 'active'] }, actor: { type: 'partner', id } });
  await enqueueEvent(tx, 'partner.activated', {
    partnerId: row.id,
    email: row.email,
    name: row.name,
    activatedAt: iso(row.activated_at)!,
  });
}

/** Names of the given partners, for tables that show many rows of several partners. */
export async function partnerNames(sql: Sql, ids: string[]): Promise<Map<string, string>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const rows = await sql<{ id: string; name: string }[]>`select id, name from partners where id = any(${unique})`;
  return new Map(rows.map((r) => [r.id, r.name]));
}
