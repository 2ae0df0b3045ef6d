// Settling a payout: paid, or failed (the money did not move, so what it held becomes payable again).
// One at a time (mark-paid, mark-failed, a rail's answer) or in bulk (POST /v1/payouts/settle, all
// or nothing). Each emits payout.paid or payout.failed in the same transaction.
import type { Sql, Transaction, Tx } from '../../db';
import { auditInsertFrom } from '../audit/bulk';
import { record, type Changes } from '../audit/service';
import { AppError, conflict, notFound } from '../../lib/errors';
import { formatMinor } from '../../lib/money';
import { TRANSITIONS } from '../commissions/lifecycle';
import { enqueueEvent } from '../webhooks/outbox';
import { PAYOUT_COLUMNS, payoutView, type PayoutRow, type PayoutView } from './record';

/** The statuses a payout can be settled from: made and not yet answered, or handed to a rail. */
export const OPEN_STATUSES = ['pending', 'processing'] as const;

export type Settlement =
  /** invoicePrefix: INVOICE_PREFIX, the first part of the self-billing invoice number the payout gets. */
  | { id: string; status: 'paid'; reference?: string | null; answer?: string | null; invoicePrefix: string }
  | { id: string; status: 'failed'; reason: string; answer?: string | null };

const isOpen = (status: string) => (OPEN_STATUSES as readonly string[]).includes(status);

function refuseSettled(row: Pick<PayoutRow, 'id' | 'status'>): never {
  throw conflict(`payout ${row.id} is already ${row.status}`, { payoutId: row.id, status: row.status });
}

async function lockPayouts(tx: Tx, ids: string[]): Promise<Map<string, PayoutRow>> {
  const rows = await tx<PayoutRow[]>`
    select ${tx([...PAYOUT_COLUMNS])} from payouts where id = any(${ids}::text[]) order by id for update`;
  return new Map(rows.map((r) => [r.id, r]));
}

/** Settles one payout the caller has locked and found open. */
async function apply(tx: Transaction, current: PayoutRow, settlement: Settlement, actor: string): Promise<PayoutRow> {
  const changes: Changes = { status: [current.status, settlement.status] };
  if (settlement.status === 'paid' && settlement.reference) changes.providerReference = [current.provider_reference, settlement.reference];
  if (settlement.status === 'failed') changes.failureReason = [null, settlement.reason];
  await record(tx, { action: `payout.${settlement.status}`, target: { type: 'payout', id: current.id }, changes });
  if (settlement.status === 'paid') {
    // the self-billing invoice number: the year's counter row, incremented (and so locked) in this
    // transaction, so numbers are gapless per year whichever replica pays, and a rollback returns one
    const [row] = await tx<PayoutRow[]>`
      with counter as (
        insert into invoice_counters (year, last_number) values (extract(year from now() at time zone 'UTC')::int, 1)
        on conflict (year) do update set last_number = invoice_counters.last_number + 1
        returning year, last_number
      )
      update payouts set status = 'paid', paid_at = now(), settled_by = ${actor},
        provider_reference = coalesce(${settlement.reference ?? null}, provider_reference),
        provider_answer = coalesce(${settlement.answer ?? null}, provider_answer),
        invoice_number = ${settlement.invoicePrefix} || '-' || counter.year || '-' || lpad(counter.last_number::text, 6, '0')
      from counter
      where id = ${current.id}
      returning ${tx(PAYOUT_COLUMNS.map((c) => `payouts.${c}`))}`;
    await enqueueEvent(tx, 'payout.paid', {
      payoutId: row!.id,
      partnerId: row!.partner_id,
      amount: formatMinor(row!.amount, row!.currency),
      currency: row!.currency,
      provider: row!.provider,
      providerReference: row!.provider_reference,
      paidAt: row!.paid_at!.toISOString(),
    });
    return row!;
  }
  const id = current.id;
  const [row] = await tx<PayoutRow[]>`
    update payouts set status = 'failed', failed_at = now(), failure_reason = ${settlement.reason}, settled_by = ${actor},
      provider_answer = coalesce(${settlement.answer ?? null}, provider_answer),
      failed_lines = jsonb_build_object(
        'commissions', (select coalesce(jsonb_agg(jsonb_build_object('id', c.id, 'amount', c.amount, 'status', c.status) order by c.id), '[]')
                        from commissions c where c.payout_id = ${id}),
        'clawbacks', (select coalesce(jsonb_agg(jsonb_build_object('commissionId', k.commission_id, 'amount', k.amount, 'reason', k.reason) order by k.id), '[]')
                      from clawbacks k where k.payout_id = ${id}))
    where id = ${id}
    returning ${tx([...PAYOUT_COLUMNS])}`;
  // clawbacks opened against this payout's commissions while it was open are void: the money
  // never left (a released commission is paid again at its reduced amount)
  await tx`
    update clawbacks set status = 'cancelled'
    where status = 'open' and commission_id in (select id from commissions where payout_id = ${id})`;
  await tx`
    with released as (
      update commissions set status = ${TRANSITIONS.release.to}, payout_id = null, paid_at = null
      where payout_id = ${id} and status = any(${TRANSITIONS.release.from as unknown as string[]}::text[])
      returning id
    ), audited as (
      ${auditInsertFrom(tx, { source: 'released', targetColumn: 'id', action: 'commission.released', targetType: 'commission', changes: tx`jsonb_build_object('status', jsonb_build_array('paid', ${TRANSITIONS.release.to}::text), 'payoutId', jsonb_build_array(${id}::text, null))` })}
    )
    insert into commission_transitions (commission_id, from_status, to_status, actor, reason)
    select id, 'paid', ${TRANSITIONS.release.to}, ${actor}, ${`payout ${id} failed: ${settlement.reason}`} from released`;
  await tx`update clawbacks set status = 'open', payout_id = null, applied_at = null where payout_id = ${id}`;
  await enqueueEvent(tx, 'payout.failed', {
    payoutId: row!.id,
    partnerId: row!.partner_id,
    amount: formatMinor(row!.amount, row!.currency),
    currency: row!.currency,
    provider: row!.provider,
    reason: settlement.reason,
    failedAt: row!.failed_at!.toISOString(),
  });
  return row!;
}

/**
 * Settles one open payout in the caller's transaction. `strict`: a payout that is not open is a 409;
 * otherwise it is left as it is and answered (a rail's late or repeated answer).
 */
export async function settleIn(tx: Transaction, settlement: Settlement, actor: string, strict = true): Promise<PayoutRow> {
  const current = (await lockPayouts(tx, [settlement.id])).get(settlement.id);
  if (!current) throw notFound('payout');
  if (!isOpen(current.status)) {
    if (strict) refuseSettled(current);
    return current;
  }
  return apply(tx, current, settlement, actor);
}

/** pending | processing -> paid (an operator paid it, or the rail confirmed). */
export async function markPayoutPaid(sql: Sql, input: { id: string; actor: string; reference?: string; invoicePrefix: string }): Promise<PayoutView> {
  return payoutView(await sql.begin((tx) => settleIn(tx, { id: input.id, status: 'paid', reference: input.reference, invoicePrefix: input.invoicePrefix }, input.actor)));
}

/**
 * pending | processing -> failed. Its commissions go back to approved (transition `release`), the
 * clawbacks it netted reopen, and a clawback opened against one of its commissions while it was open
 * is cancelled (that money was never paid). The lines it held are kept on it (failed_lines).
 */
export async function markPayoutFailed(sql: Sql, input: { id: string; actor: string; reason: string }): Promise<PayoutView> {
  return payoutView(await sql.begin((tx) => settleIn(tx, { id: input.id, status: 'failed', reason: input.reason }, input.actor)));
}

/**
 * Settles many at once, all or nothing: an unknown id is a 404 and one that is not open a 409, each
 * naming the first such payout in the order given; then nothing changes.
 */
export async function settlePayouts(sql: Sql, settlements: Settlement[], actor: string): Promise<PayoutView[]> {
  const seen = new Set<string>();
  for (const [i, s] of settlements.entries()) {
    if (seen.has(s.id)) throw new AppError('invalid_body', `payouts/${i}/id: payout ${s.id} is listed twice`, { field: `payouts/${i}/id`, payoutId: s.id });
    seen.add(s.id);
  }
  return sql.begin(async (tx) => {
    const rows = await lockPayouts(tx, [...seen]);
    for (const s of settlements) {
      const row = rows.get(s.id);
      if (!row) throw new AppError('not_found', `payout ${s.id} not found`, { payoutId: s.id });
      if (!isOpen(row.status)) refuseSettled(row);
    }
    const settled: PayoutView[] = [];
    for (const s of settlements) settled.push(payoutView(await apply(tx, rows.get(s.id)!, s, actor)));
    return settled;
  });
}
