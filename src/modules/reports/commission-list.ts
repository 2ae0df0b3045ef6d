// Reads behind the admin commissions list: a sortable, counted page, the ticked rows of a bulk action
// and the CSV export. Every amount stays in minor units (bigint).
import type { Sql, Tx } from '../../db';
import { csvStream } from '../../lib/csv';
import { formatMinor } from '../../lib/money';
import { iso } from '../../lib/time';
import { COMMISSION_COLUMNS, toCommission, type Commission, type CommissionRow, type CommissionStatus } from '../commissions/service';
import { direction, type Dir, type SORTS } from './money-shared';

/** `from` / `to`: when the sale happened (occurredAt, [from, to)); `flagged`: with fraud flags or without. */
export type CommissionFilter = { status?: CommissionStatus; partnerId?: string; campaignId?: string; from?: Date; to?: Date; flagged?: boolean };

function commissionWhere(sql: Tx, f: CommissionFilter) {
  return sql`
    ${f.status ? sql`and c.status = ${f.status}` : sql``}
    ${f.from ? sql`and c.occurred_at >= ${f.from}` : sql``}
    ${f.to ? sql`and c.occurred_at < ${f.to}` : sql``}
    ${f.flagged === undefined ? sql`` : f.flagged ? sql`and c.flags <> '{}'` : sql`and c.flags = '{}'`}
    ${f.partnerId ? sql`and c.partner_id = ${f.partnerId}` : sql``}
    ${f.campaignId ? sql`and c.campaign_id = ${f.campaignId}` : sql``}`;
}

/** A commission with its partner's and campaign's names, and its amount in minor units. */
export type CommissionListed = Commission & { partnerName: string; campaignName: string; amountMinor: bigint };

/** The columns and joins of a listed commission (its partner's and campaign's names). */
export const commissionList = (sql: Tx) => sql`
  select ${sql(COMMISSION_COLUMNS.map((c) => `c.${c}`))}, p.name as partner_name, p.email as partner_email, k.name as campaign_name
  from commissions c join partners p on p.id = c.partner_id join campaigns k on k.id = c.campaign_id`;

export type CommissionListRow = CommissionRow & { partner_name: string; partner_email: string; campaign_name: string };

export const listedCommission = (r: CommissionListRow): CommissionListed => ({ ...toCommission(r), partnerName: r.partner_name, campaignName: r.campaign_name, amountMinor: r.amount });

/** One page of the filtered commissions, sorted, and how many match in all. */
export async function commissionPage(
  sql: Sql,
  input: { filter: CommissionFilter; sort: { key: (typeof SORTS.commissions)[number]; dir: Dir }; offset: number; limit: number },
): Promise<{ rows: CommissionListed[]; total: number }> {
  const column = input.sort.key === 'amount' ? sql`c.amount` : sql`c.id`;
  const dir = direction(sql, input.sort.dir);
  const [rows, [count]] = await Promise.all([
    sql<CommissionListRow[]>`
      ${commissionList(sql)}
      where true ${commissionWhere(sql, input.filter)}
      order by ${column} ${dir}, c.id ${dir}
      offset ${input.offset} limit ${input.limit}`,
    sql<{ n: number }[]>`select count(*)::int as n from commissions c where true ${commissionWhere(sql, input.filter)}`,
  ]);
  return { rows: rows.map(listedCommission), total: count!.n };
}

/** Whether any commission exists (tells "nothing yet" from "no match"). */
export async function anyCommission(sql: Sql): Promise<boolean> {
  const [row] = await sql<{ any: boolean }[]>`select exists (select 1 from commissions) as any`;
  return row!.any;
}

/** The ticked commissions, as a bulk confirmation lists them (unknown ids are simply absent). */
export async function commissionsByIds(sql: Sql, ids: string[]): Promise<CommissionListed[]> {
  if (ids.length === 0) return [];
  const rows = await sql<CommissionListRow[]>`
    ${commissionList(sql)}
    where c.id = any(${ids}::text[])
    order by c.id desc`;
  return rows.map(listedCommission);
}

export const COMMISSION_CSV_COLUMNS = [
  'commission_id', 'created_at', 'status', 'partner_id', 'partner_name', 'partner_email', 'campaign_id', 'campaign_name',
  'event_id', 'event_type', 'user_id', 'currency', 'amount', 'event_value', 'approved_at', 'paid_at', 'reversed_at',
  'reversal_reason', 'payout_id', 'occurred_at',
] as const;

/** The filtered commissions as CSV, newest first; amounts in major units beside their currency. */
export function commissionsCsv(sql: Sql, filter: CommissionFilter): ReadableStream<Uint8Array> {
  return csvStream<CommissionListRow>({
    header: COMMISSION_CSV_COLUMNS,
    page: (after, limit) => sql<CommissionListRow[]>`
      ${commissionList(sql)}
      where true ${commissionWhere(sql, filter)} ${after ? sql`and c.id < ${after.id}` : sql``}
      order by c.id desc
      limit ${limit}`,
    cells: (r) => [
      r.id, iso(r.created_at), r.status, r.partner_id, r.partner_name, r.partner_email, r.campaign_id, r.campaign_name,
      r.event_id, r.event_type, r.user_id, r.currency, formatMinor(r.amount, r.currency),
      r.event_value === null ? '' : formatMinor(r.event_value, r.currency), iso(r.approved_at), iso(r.paid_at), iso(r.reversed_at),
      r.reversal_reason, r.payout_id, iso(r.occurred_at),
    ],
  });
}
