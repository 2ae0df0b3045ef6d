// Payouts: the record, settling one (paid, or failed: what it held becomes payable again), reading
// them and the CSV export. A payout run, which creates them, is src/workflows/run-payouts.ts.
import type { Sql, Tx } from '../../db';
import { conflict, notFound } from '../../lib/errors';
import { iso } from '../../lib/time';
import { TRANSITIONS } from '../commissions/lifecycle';
import { formatMinor } from '../../lib/money';
import { csvStream } from '../../lib/csv';
import { CSV_COLUMNS, PAYOUT_STATUSES, type PayoutDetail, type PayoutRecord } from './model';

export { PAYOUT_STATUSES };
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

/** A payout as the API answers it; amounts in major units as decimal strings. */
export type PayoutView = typeof PayoutRecord.static;

/** What a failed payout held when it failed (payouts.failed_lines); amounts in minor units. */
type FailedLines = {
  commissions: { id: string; amount: number; status: string }[];
  clawbacks: { commissionId: string; amount: number; reason: string }[];
};

/** The columns a PayoutRow holds, for `select ${sql(PAYOUT_COLUMNS)}`. */
export const PAYOUT_COLUMNS = [
  'id', 'partner_id', 'currency', 'amount', 'commissions_amount', 'clawbacks_amount', 'commission_count', 'clawback_count',
  'status', 'provider', 'provider_reference', 'failure_reason', 'failed_lines', 'created_at', 'paid_at', 'failed_at',
] as const;

export type PayoutRow = {
  id: string;
  partner_id: string;
  currency: string;
  amount: bigint;
  commissions_amount: bigint;
  clawbacks_amount: bigint;
  commission_count: number;
  clawback_count: number;
  status: PayoutStatus;
  provider: string;
  provider_reference: string | null;
  failure_reason: string | null;
  failed_lines: FailedLines | null;
  created_at: Date;
  paid_at: Date | null;
  failed_at: Date | null;
};

export function payoutView(row: Omit<PayoutRow, 'failed_lines'>): PayoutView {
  const currency = row.currency;
  return {
    id: row.id,
    partnerId: row.partner_id,
    currency,
    amount: formatMinor(row.amount, currency),
    commissionsAmount: formatMinor(row.commissions_amount, currency),
    clawbacksAmount: formatMinor(row.clawbacks_amount, currency),
    commissionCount: row.commission_count,
    clawbackCount: row.clawback_count,
    status: row.status,
    provider: row.provider,
    providerReference: row.provider_reference ?? null,
    failureReason: row.failure_reason ?? null,
    createdAt: iso(row.created_at)!,
    paidAt: iso(row.paid_at),
    failedAt: iso(row.failed_at),
  };
}

// ---------------------------------------------------------------------------------------------
// Settling

async function lockPayout(tx: Tx, id: string): Promise<PayoutRow> {
  const [row] = await tx<PayoutRow[]>`select ${tx([...PAYOUT_COLUMNS])} from payouts where id = ${id} for update`;
  if (!row) throw notFound('payout');
  return row;
}

/** pending -> paid (an operator paid it by hand, or the provider confirmed). */
export async function markPayoutPaid(sql: Sql, input: { id: string; actor: string; reference?: string }): Promise<PayoutView> {
  return sql.begin(async (tx) => {
    const current = await lockPayout(tx, input.id);
    if (current.status !== 'pending') throw conflict(`payout is already ${current.status}`, { payoutId: input.id, status: current.status });
    const [row] = await tx<PayoutRow[]>`
      update payouts set status = 'paid', paid_at = now(), settled_by = ${input.actor},
        provider_reference = coalesce(${input.reference ?? null}, provider_reference)
      where id = ${input.id}
      returning ${tx([...PAYOUT_COLUMNS])}`;
    return payoutView(row!);
  });
}

/**
 * pending -> failed. The money did not move, so what the payout held becomes payable again:
 * its commissions go back to approved (transition `release`), the clawbacks it netted reopen, and a
 * clawback opened against one of its commissions while it was pending (a reversal, a partial refund)
 * is cancelled (that money was never paid).
 * The lines it held are kept on the payout (failed_lines) for the record.
 */
export async function markPayoutFailed(sql: Sql, input: { id: string; actor: string; reason: string }): Promise<PayoutView> {
  return sql.begin(async (tx) => {
    const current = await lockPayout(tx, input.id);
    if (current.status !== 'pending') throw conflict(`payout is already ${current.status}`, { payoutId: input.id, status: current.status });
    const [row] = await tx<PayoutRow[]>`
      update payouts set status = 'failed', failed_at = now(), failure_reason = ${input.reason}, settled_by = ${input.actor},
        failed_lines = jsonb_build_object(
          'commissions', (select coalesce(jsonb_agg(jsonb_build_object('id', c.id, 'amount', c.amount, 'status', c.status) order by c.id), '[]')
                          from commissions c where c.payout_id = ${input.id}),
          'clawbacks', (select coalesce(jsonb_agg(jsonb_build_object('commissionId', k.commission_id, 'amount', k.amount, 'reason', k.reason) order by k.id), '[]')
                        from clawbacks k where k.payout_id = ${input.id}))
      where id = ${input.id}
      returning ${tx([...PAYOUT_COLUMNS])}`;
    // clawbacks opened against this payout's commissions while it was pending are void: the money
    // never left (a released commission is paid again at its reduced amount)
    await tx`
      update clawbacks set status = 'cancelled'
      where status = 'open' and commission_id in (select id from commissions where payout_id = ${input.id})`;
    await tx`
      with released as (
        update commissions set status = ${TRANSITIONS.release.to}, payout_id = null, paid_at = null
        where payout_id = ${input.id} and status = any(${TRANSITIONS.release.from as unknown as string[]}::text[])
        returning id
      )
      insert into commission_transitions (commission_id, from_status, to_status, actor, reason)
      select id, 'paid', ${TRANSITIONS.release.to}, ${input.actor}, ${`payout ${input.id} failed: ${input.reason}`} from released`;
    await tx`update clawbacks set status = 'open', payout_id = null, applied_at = null where payout_id = ${input.id}`;
    return payoutView(row!);
  });
}

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
