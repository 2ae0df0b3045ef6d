// Payouts: reading them and the CSV export; the record is ./record.ts, settling (paid, or failed:
// what it held becomes payable again) ./settle.ts. A payout run, which creates them, is src/workflows/run-payouts.ts.
import type { Sql, Tx } from '../../db';
import { iso } from '../../lib/time';
import { PAYOUT_COLUMNS, payoutView, type PayoutRow, type PayoutStatus, type PayoutView } from './record';
import { formatMinor } from '../../lib/money';
import { csvStream } from '../../lib/csv';
import { CSV_COLUMNS, type PayoutDetail } from './model';

export { PAYOUT_STATUSES } from './model';
export { PAYOUT_COLUMNS, payoutView, type PayoutRow, type PayoutStatus, type PayoutView } from './record';
export { markPayoutFailed, markPayoutPaid, settlePayouts } from './settle';

// ---------------------------------------------------------------------------------------------
// Reading

export type PayoutFilter = { partnerId?: string; status?: PayoutStatus; currency?: string };

function filterSql(sql: Tx, f: PayoutFilter) {
  return sql`
    ${f.partnerId ? sql`and p.partner_id = ${f.partnerId}` : sql``}
    ${f.status ? sql`and p.status = ${f.status}` : sql``}
    ${f.currency ? sql`and p.currency = ${f.currency}` : sql``}`;
}

/** Newest first; limit + 1 rows so the caller can paginate. */
export async function listPayouts(sql: Sql, input: PayoutFilter & { limit: number; cursor?: string }): Promise<PayoutView[]> {
  const rows = await sql<PayoutRow[]>`
    select ${sql(PAYOUT_COLUMNS.map((c) => `p.${c}`))} from payouts p
    where true ${filterSql(sql, input)} ${input.cursor ? sql`and p.id < ${input.cursor}` : sql``}
    order by p.id desc
    limit ${input.limit + 1}`;
  return rows.map(payoutView);
}

/** These payouts, by id. */
export async function readPayouts(sql: Sql, ids: string[]): Promise<PayoutView[]> {
  const rows = await sql<PayoutRow[]>`select ${sql([...PAYOUT_COLUMNS])} from payouts where id = any(${ids}::text[]) order by id`;
  return rows.map(payoutView);
}

export async function findPayoutRow(sql: Sql, id: string): Promise<PayoutRow | null> {
  const [row] = await sql<PayoutRow[]>`select ${sql([...PAYOUT_COLUMNS])} from payouts where id = ${id}`;
  return row ?? null;
}

/** A payout with its lines: the commissions it paid and the clawbacks (negative lines) it netted. */
export async function payoutDetail(sql: Sql, row: PayoutRow): Promise<typeof PayoutDetail.static> {
  const currency = row.currency;
  if (row.status === 'failed' && row.failed_lines) {
    const lines = row.failed_lines;
    return {
      ...payoutView(row),
      commissions: lines.commissions.map((c) => ({ id: c.id, amount: formatMinor(BigInt(c.amount), currency) })),
      clawbacks: lines.clawbacks.map((k) => ({ commissionId: k.commissionId, amount: formatMinor(-BigInt(k.amount), currency), reason: k.reason })),
    };
  }
  const commissions = await sql<
    { id: string; campaign_id: string; event_type: string; amount: bigint; status: string; created_at: Date; approved_at: Date | null; paid_at: Date | null }[]
  >`
    select id, campaign_id, event_type, amount, status, created_at, approved_at, paid_at
    from commissions where payout_id = ${row.id} order by id`;
  const clawbacks = await sql<{ commission_id: string; amount: bigint; reason: string; created_at: Date }[]>`
    select commission_id, amount, reason, created_at from clawbacks where payout_id = ${row.id} order by id`;
  return {
    ...payoutView(row),
    commissions: commissions.map((c) => ({
      id: c.id,
      campaignId: c.campaign_id,
      eventType: c.event_type,
      amount: formatMinor(c.amount, currency),
      status: c.status,
      createdAt: iso(c.created_at)!,
      approvedAt: iso(c.approved_at),
      paidAt: iso(c.paid_at),
    })),
    clawbacks: clawbacks.map((k) => ({
      commissionId: k.commission_id,
      amount: formatMinor(-k.amount, currency),
      reason: k.reason,
      createdAt: iso(k.created_at)!,
    })),
  };
}

// ---------------------------------------------------------------------------------------------
// CSV export, for paying by hand

/** The CSV as a stream, read from the database a page at a time (newest first). */
export function payoutsCsv(sql: Sql, filter: PayoutFilter): ReadableStream<Uint8Array> {
  type Row = PayoutRow & { partner_name: string; partner_email: string; billing_connect_account_id: string | null };
  return csvStream<Row>({
    header: CSV_COLUMNS,
    page: (after, limit) => sql<Row[]>`
      select ${sql(PAYOUT_COLUMNS.map((c) => `p.${c}`))}, pt.name as partner_name, pt.email as partner_email, pt.billing_connect_account_id
      from payouts p join partners pt on pt.id = p.partner_id
      where true ${filterSql(sql, filter)} ${after ? sql`and p.id < ${after.id}` : sql``}
      order by p.id desc
      limit ${limit}`,
    cells: (r) => {
      const v = payoutView(r);
      return [
        v.id, v.partnerId, r.partner_name, r.partner_email, r.billing_connect_account_id, v.currency, v.amount,
        v.commissionsAmount, v.clawbacksAmount, v.commissionCount, v.status, v.createdAt, v.paidAt,
      ];
    },
  });
}
