// Reading commissions: the list with its filters, and one commission.
import type { Sql } from '../../db';
import { notFound } from '../../lib/errors';
import { formatMinor, minorToNumber } from '../../lib/money';
import { iso } from '../../lib/time';
import type { Flag } from '../fraud/signals';
import type { RuleSource } from './terms';
import { COMMISSION_STATUSES, type CommissionRecord } from './model';

export { COMMISSION_STATUSES };
export type CommissionStatus = (typeof COMMISSION_STATUSES)[number];

/** A commission as the API answers it: amounts in major units (amount a decimal string). */
export type Commission = typeof CommissionRecord.static;

/** The columns a CommissionRow holds, for `select ${sql(COMMISSION_COLUMNS)}`. */
export const COMMISSION_COLUMNS = [
  'id', 'status', 'partner_id', 'campaign_id', 'attribution_id', 'event_id', 'user_id', 'amount', 'currency', 'event_type',
  'event_value', 'holdback_days', 'occurred_at', 'created_at', 'approved_at', 'paid_at', 'reversed_at', 'reversal_reason', 'payout_id', 'flags',
  'rule_source', 'source_commission_id',
] as const;

export type CommissionRow = {
  id: string;
  status: CommissionStatus;
  partner_id: string;
  campaign_id: string;
  attribution_id: string;
  event_id: string;
  user_id: string;
  amount: bigint; // minor units of `currency`
  currency: string;
  event_type: string;
  event_value: bigint | null;
  holdback_days: number;
  occurred_at: Date;
  created_at: Date;
  approved_at: Date | null;
  paid_at: Date | null;
  reversed_at: Date | null;
  reversal_reason: string | null;
  payout_id: string | null;
  flags: Flag[];
  rule_source: RuleSource;
  source_commission_id: string | null;
};

export function toCommission(row: CommissionRow): Commission {
  return {
    id: row.id,
    status: row.status,
    partnerId: row.partner_id,
    campaignId: row.campaign_id,
    attributionId: row.attribution_id,
    eventId: row.event_id,
    userId: row.user_id,
    amount: formatMinor(row.amount, row.currency),
    currency: row.currency,
    eventType: row.event_type,
    eventValue: row.event_value === null ? null : minorToNumber(row.event_value, row.currency),
    holdbackDays: row.holdback_days,
    occurredAt: iso(row.occurred_at)!,
    createdAt: iso(row.created_at)!,
    approvedAt: iso(row.approved_at),
    paidAt: iso(row.paid_at),
    reversedAt: iso(row.reversed_at),
    reason: row.reversal_reason ?? null,
    payoutId: row.payout_id ?? null,
    flags: row.flags ?? [],
    ruleSource: row.rule_source,
    sourceCommissionId: row.source_commission_id,
  };
}

export type CommissionFilter = {
  limit: number;
  cursor?: string;
  status?: CommissionStatus;
  partnerId?: string;
  campaignId?: string;
  from?: Date;
  to?: Date;
  /** on occurredAt: when the sale happened */
  occurredFrom?: Date;
  occurredTo?: Date;
  flagged?: boolean;
};

/** Newest first; `from` is inclusive and `to` exclusive, both on createdAt; `occurredFrom` / `occurredTo` the same on occurredAt. */
export async function listCommissions(sql: Sql, filter: CommissionFilter): Promise<Commission[]> {
  const rows = await sql<CommissionRow[]>`
    select ${sql([...COMMISSION_COLUMNS])} from commissions
    where true
      ${filter.status ? sql`and status = ${filter.status}` : sql``}
      ${filter.partnerId ? sql`and partner_id = ${filter.partnerId}` : sql``}
      ${filter.campaignId ? sql`and campaign_id = ${filter.campaignId}` : sql``}
      ${filter.from ? sql`and created_at >= ${filter.from}` : sql``}
      ${filter.to ? sql`and created_at < ${filter.to}` : sql``}
      ${filter.occurredFrom ? sql`and occurred_at >= ${filter.occurredFrom}` : sql``}
      ${filter.occurredTo ? sql`and occurred_at < ${filter.occurredTo}` : sql``}
      ${filter.flagged === undefined ? sql`` : filter.flagged ? sql`and flags <> '{}'` : sql`and flags = '{}'`}
      ${filter.cursor ? sql`and id < ${filter.cursor}` : sql``}
    order by id desc
    limit ${filter.limit + 1}`;
  return rows.map(toCommission);
}

export async function getCommission(sql: Sql, id: string): Promise<Commission> {
  const [row] = await sql<CommissionRow[]>`select ${sql([...COMMISSION_COLUMNS])} from commissions where id = ${id}`;
  if (!row) throw notFound('commission');
  return toCommission(row);
}
