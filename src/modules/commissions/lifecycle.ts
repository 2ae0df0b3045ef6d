// The commission state machine after accrual: approval (by hand or by the holdback job), payment (by
// the payout runner), reversal (with a clawback once paid). Every move is checked against one table,
// stamped in commission_transitions and reported by its webhook, all in one transaction.
import type { Sql, Transaction, Tx } from '../../db';
import { auditInsertFrom } from '../audit/bulk';
import { record, type Changes } from '../audit/service';
import { AppError, notFound } from '../../lib/errors';
import { iso } from '../../lib/time';
import type { Principal } from '../auth/scopes';
import { DELIVERY_CHANNEL, enqueueEvent, insertDeliveriesForEnvelopes } from '../webhooks/outbox';
import { exponentArrays, formatMinor, roundHalfEven } from '../../lib/money';
import { COMMISSION_COLUMNS, toCommission, type Commission, type CommissionRow, type CommissionStatus } from './service';
import { idBase } from '../webhooks/bulk-events';

/**
 * The only moves a commission can make after accrual. Anything else is a 409 that changes nothing.
 * - approve: by an API caller or the holdback job
 * - pay: by the payout runner only (no route makes it)
 * - reverse: by an API caller (refund, chargeback, fraud); from paid it opens a clawback, a negative
 *   line netted in the partner's next payout
 * - release: the payout the commission was in failed; it becomes payable again
 */
export const TRANSITIONS = {
  approve: { from: ['accrued'], to: 'approved' },
  pay: { from: ['approved'], to: 'paid' },
  reverse: { from: ['accrued', 'approved', 'paid'], to: 'reversed' },
  release: { from: ['paid'], to: 'approved' },
} as const satisfies Record<string, { from: readonly CommissionStatus[]; to: CommissionStatus }>;

export type CommissionAction = keyof typeof TRANSITIONS;

export function canTransition(action: CommissionAction, from: CommissionStatus): boolean {
  return (TRANSITIONS[action].from as readonly CommissionStatus[]).includes(from);
}

function throwIfIllegal(action: CommissionAction, commissionId: string, from: CommissionStatus): void {
  if (canTransition(action, from)) return;
  throw new AppError('conflict', `a commission that is ${from} cannot be ${TRANSITIONS[action].to}`, {
    commissionId,
    status: from,
    allowedFrom: TRANSITIONS[action].from,
  });
}

/** Who did it, as written in commission_transitions.actor. */
export function actorOf(principal: Principal): string {
  switch (principal.kind) {
    case 'admin':
      return principal.keyId ? `key:${principal.keyId}` : `admin:${principal.email}`;
    case 'partner':
      return principal.keyId ? `key:${principal.keyId}` : `partner:${principal.partnerId}`;
    default:
      return `key:${principal.keyId}`;
  }
}

/** The lifecycle routes answer the same commission record as GET /v1/commissions/:id. */
export type CommissionView = Commission;
const commissionView = toCommission;

async function lockCommission(tx: Tx, id: string): Promise<CommissionRow> {
  const [row] = await tx<CommissionRow[]>`select ${tx([...COMMISSION_COLUMNS])} from commissions where id = ${id} for update`;
  if (!row) throw notFound('commission');
  return row;
}

async function recordTransition(tx: Transaction, t: { id: string; from: CommissionStatus; to: CommissionStatus; actor: string; reason?: string | null }) {
  await tx`
    insert into commission_transitions (commission_id, from_status, to_status, actor, reason)
    values (${t.id}, ${t.from}, ${t.to}, ${t.actor}, ${t.reason ?? null})`;
  const changes: Changes = { status: [t.from, t.to] };
  if (t.reason) changes.reason = [null, t.reason];
  await record(tx, { action: `commission.${t.to}`, target: { type: 'commission', id: t.id }, changes });
}

/** accrued -> approved by hand; emits commission.approved. */
export async function approveCommission(sql: Sql, input: { id: string; actor: string }): Promise<CommissionView> {
  return sql.begin(async (tx) => {
    const current = await lockCommission(tx, input.id);
    throwIfIllegal('approve', input.id, current.status);
    const [row] = await tx<CommissionRow[]>`
      update commissions set status = ${TRANSITIONS.approve.to}, approved_at = now()
      where id = ${input.id}
      returning ${tx([...COMMISSION_COLUMNS])}`;
    await recordTransition(tx, { id: input.id, from: current.status, to: 'approved', actor: input.actor });
    await enqueueEvent(tx, 'commission.approved', {
      commissionId: row!.id,
      partnerId: row!.partner_id,
      amount: formatMinor(row!.amount, row!.currency),
      currency: row!.currency,
      approvedAt: iso(row!.approved_at)!,
    });
    return commissionView(row!);
  });
}

/**
 * accrued | approved | paid -> reversed; emits commission.reversed. A paid commission also opens a
 * clawback for its amount. Takes a transaction so that a billing plugin can reverse inside its own.
 */
export async function reverseCommissionIn(tx: Transaction, input: { id: string; actor: string; reason: string }): Promise<CommissionView> {
  const current = await lockCommission(tx, input.id);
  throwIfIllegal('reverse', input.id, current.status);
  const [row] = await tx<CommissionRow[]>`
    update commissions set status = ${TRANSITIONS.reverse.to}, reversed_at = now(), reversal_reason = ${input.reason}
    where id = ${input.id}
    returning ${tx([...COMMISSION_COLUMNS])}`;
  await recordTransition(tx, { id: input.id, from: current.status, to: 'reversed', actor: input.actor, reason: input.reason });
  await clawBackAndReport(tx, row!, { wasPaid: current.status === 'paid', clawback: row!.amount, reason: input.reason });
  // the recruiter's override goes with it (one level: an override has none of its own)
  const override = await liveOverrideOf(tx, input.id);
  if (override) await reverseCommissionIn(tx, { id: override.id, actor: input.actor, reason: input.reason });
  return commissionView(row!);
}

/**
 * The tail of a reversal or a reduction: money already paid out comes back as a clawback (a negative
 * line in the partner's next payout) of `clawback`, and commission.reversed says what the commission
 * amounts to now (`row`, as updated).
 */
async function clawBackAndReport(tx: Transaction, row: CommissionRow, change: { wasPaid: boolean; clawback: bigint; reason: string }): Promise<void> {
  if (change.wasPaid && change.clawback > 0n) {
    await tx`
      insert into clawbacks (commission_id, partner_id, currency, amount, reason)
      values (${row.id}, ${row.partner_id}, ${row.currency}, ${change.clawback}, ${change.reason})`;
    const changes: Changes = { clawback: [null, { amount: String(change.clawback), currency: row.currency }], reason: [null, change.reason] };
    await record(tx, { action: 'commission.clawback', target: { type: 'commission', id: row.id }, changes });
  }
  await enqueueEvent(tx, 'commission.reversed', {
    commissionId: row.id,
    partnerId: row.partner_id,
    amount: formatMinor(row.amount, row.currency),
    currency: row.currency,
    reason: change.reason,
  });
}

/** The live recruit_override commission on a commission, if any. */
async function liveOverrideOf(tx: Tx, commissionId: string): Promise<{ id: string; amount: bigint; accrued: bigint } | null> {
  const [row] = await tx<{ id: string; amount: bigint; accrued: bigint }[]>`
    select o.id, o.amount,
      coalesce((select a.amount_before from commission_adjustments a where a.commission_id = o.id order by a.id limit 1), o.amount) as accrued
    from commissions o where o.source_commission_id = ${commissionId} and o.status <> 'reversed'`;
  return row ?? null;
}

/**
 * Lowers a live commission's amount (a partial refund of its conversion): records the adjustment
 * (who, when, why, from what to what), opens a clawback for the difference when the commission was
 * already paid, and emits commission.reversed with the amount it has now. The status does not change.
 */
export async function reduceCommissionIn(
  tx: Transaction,
  input: { id: string; amount: bigint; actor: string; reason: string; detail?: string },
): Promise<CommissionView> {
  const current = await lockCommission(tx, input.id);
  throwIfIllegal('reverse', input.id, current.status);
  if (input.amount < 0n || input.amount >= current.amount) {
    throw new RangeError(`a reduction of commission ${input.id} must end between 0 and ${current.amount} (got ${input.amount})`);
  }
  const [row] = await tx<CommissionRow[]>`
    update commissions set amount = ${input.amount} where id = ${input.id}
    returning ${tx([...COMMISSION_COLUMNS])}`;
  await record(tx, { action: 'commission.reduced', target: { type: 'commission', id: input.id }, changes: { amount: [String(current.amount), String(input.amount)], reason: [null, input.reason] } });
  await tx`
    insert into commission_adjustments (commission_id, amount_before, amount_after, reason, actor, detail)
    values (${input.id}, ${current.amount}, ${input.amount}, ${input.reason}, ${input.actor}, ${input.detail ?? null})`;
  await clawBackAndReport(tx, row!, { wasPaid: current.status === 'paid', clawback: current.amount - input.amount, reason: input.reason });
  // the override follows in proportion: what is left of it is what is left of the recruit's, of its accrued amount
  const override = await liveOverrideOf(tx, input.id);
  if (override) {
    const [first] = await tx<{ amount_before: bigint }[]>`
      select amount_before from commission_adjustments where commission_id = ${input.id} order by id limit 1`;
    const accrued = first?.amount_before ?? current.amount;
    const target = roundHalfEven(override.accrued * input.amount, accrued);
    if (target <= 0n) await reverseCommissionIn(tx, { id: override.id, actor: input.actor, reason: input.reason });
    else if (target < override.amount) {
      await reduceCommissionIn(tx, { id: override.id, amount: target, actor: input.actor, reason: input.reason, detail: input.detail });
    }
  }
  return commissionView(row!);
}

export async function reverseCommission(sql: Sql, input: { id: string; actor: string; reason: string }): Promise<CommissionView> {
  return sql.begin((tx) => reverseCommissionIn(tx, input));
}

/**
 * The holdback job's body: approves accrued commissions whose created_at + holdback_days has passed,
 * `batchSize` at a time, each batch one set-based transaction (update, transitions, envelopes,
 * deliveries). SKIP LOCKED leaves rows someone is approving or reversing by hand to them.
 * Answers how many it approved.
 */
export async function approveDueCommissions(sql: Sql, options: { actor?: string; batchSize?: number } = {}): Promise<number> {
  const actor = options.actor ?? 'job:approval';
  const batchSize = options.batchSize ?? 5000;
  const { codes, exps } = exponentArrays();
  let total = 0;
  for (;;) {
    const approved = await sql.begin(async (tx) => {
      const events = idBase();
      const deliveries = idBase();
      const [result] = await tx<{ approved: number; deliveries: number }[]>`
        with due as (
          select id from commissions
          where status = any(${TRANSITIONS.approve.from as unknown as string[]}::text[])
            and created_at + make_interval(days => holdback_days) <= now()
            and flags = '{}' -- flagged ones wait for a person
          order by id
          limit ${batchSize}
          for update skip locked
        ), moved as (
          update commissions c set status = ${TRANSITIONS.approve.to}, approved_at = now()
          from due where c.id = due.id
          returning c.id, c.partner_id, c.amount, c.currency, c.approved_at
        ), transitions as (
          insert into commission_transitions (commission_id, from_status, to_status, actor, reason)
          select id, 'accrued', ${TRANSITIONS.approve.to}, ${actor}, 'holdback elapsed' from moved
        ), envelopes as (
          insert into webhook_events (id, type, data)
          select ${events} || lpad(to_hex(row_number() over ()), 8, '0'), 'commission.approved',
            jsonb_build_object(
              'commissionId', m.id,
              'partnerId', m.partner_id,
              'amount', partnerd_format_minor(m.amount, coalesce(x.exp, 2)),
              'currency', m.currency,
              'approvedAt', to_char(m.approved_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
          from moved m
          left join unnest(${codes}::text[], ${exps}::int[]) as x(code, exp) on x.code = m.currency
          returning id, type
        ), deliveries as (
          ${insertDeliveriesForEnvelopes(tx, deliveries)}
        ), audited as (
          ${auditInsertFrom(tx, { source: 'moved', targetColumn: 'id', action: 'commission.approved', targetType: 'commission', changes: tx`jsonb_build_object('status', jsonb_build_array('accrued', 'approved'), 'reason', jsonb_build_array(null, 'holdback elapsed'))` })}
        )
        select (select count(*) from moved)::int as approved, (select count(*) from deliveries)::int as deliveries`;
      if (result!.deliveries > 0) await tx`select pg_notify(${DELIVERY_CHANNEL}, ${`${events}00000001`})`; // the first envelope
      return result!.approved;
    });
    total += approved;
    if (approved < batchSize) return total;
  }
}
