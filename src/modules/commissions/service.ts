// Reading commissions: the list with its filters, and one commission.
import type { Sql } from '../../db';
import { notFound } from '../../lib/errors';
import { formatMinor, minorToNumber } from '../../lib/money';
import { iso } from '../../lib/time';

export const COMMISSION_STATUSES = ['accrued', 'approved', 'paid', 'reversed'] as const;
export type CommissionStatus = (typeof COMMISSION_STATUSES)[number];

export type Commission = {
  id: string;
  status: CommissionStatus;
  partnerId: string;
  campaignId: string;
  attributionId: string;
  eventId: string;
  userId: string;
  amount: string; // decimal, major units
  currency: string;
  eventType: string;
  eventValue: number | null; // major units of `currency`
  holdbackDays: number;
  createdAt: string;
  approvedAt: string | null;
  paidAt: string | null;
  reversedAt: string | null;
  reason: string | null;
  payoutId: string | null;
};

export function toCommission(row: Record<string, any>): Commission {
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
    createdAt: iso(row.created_at)!,
    approvedAt: iso(row.approved_at),
    paidAt: iso(row.paid_at),
    reversedAt: iso(row.reversed_at),
    reason: row.reversal_reason ?? null,
    payoutId: row.payout_id ?? null,
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
};

/** Newest first; `from` is inclusive and `to` exclusive, both on createdAt. */
export async function listCommissions(sql: Sql, filter: CommissionFilter): Promise<Commission[]> {
  const rows = await sql`
    select * from commissions
    where true
      ${filter.status ? sql`and status = ${filter.status}` : sql``}
      ${filter.partnerId ? sql`and partner_id = ${filter.partnerId}` : sql``}
      ${filter.campaignId ? sql`and campaign_id = ${filter.campaignId}` : sql``}
      ${filter.from ? sql`and created_at >= ${filter.from}` : sql``}
      ${filter.to ? sql`and created_at < ${filter.to}` : sql``}
      ${filter.cursor ? sql`and id < ${filter.cursor}` : sql``}
    order by id desc
    limit ${filter.limit + 1}`;
  return rows.map(toCommission);
}

export async function getCommission(sql: Sql, id: string): Promise<Commission> {
  const [row] = await sql`select * from commissions where id = ${id}`;
  if (!row) throw notFound('commission');
  return toCommission(row);
}
