// Payout runs: per partner and currency, approved commissions minus open clawbacks; when the net
// reaches MIN_PAYOUT, one payout. Set-based SQL, one transaction per batch of partners (commissions
// paid, clawbacks netted, payouts created, webhook envelopes), under an advisory lock so replicas
// never run it twice at once. Called by POST /v1/payouts/run, the admin page and the payout job.
import type { PayoutRails } from '../../plugins/payouts';
import type { AppContext } from '../context';
import type { Tx } from '../db';
import { LOCKS, withAdvisoryLock } from '../db/lock';
import { AppError } from '../lib/errors';
import { newId } from '../lib/ids';
import { exponentOf } from '../lib/money';
import { notifyAdminsOfPayoutRun } from '../mail/notify';
import { TRANSITIONS } from '../modules/commissions/lifecycle';
import { isDue, payableGroups } from '../modules/payouts/due';
import { routesOf } from '../modules/payouts/routing';
import { PAYOUT_COLUMNS, payoutView, readPayouts, type PayoutRow, type PayoutView } from '../modules/payouts/service';
import { auditInsertFrom } from '../modules/audit/bulk';
import { idBase } from '../modules/webhooks/bulk-events';
import { DELIVERY_CHANNEL, insertDeliveriesForEnvelopes } from '../modules/webhooks/outbox';
import { handOverPending } from './hand-over-payouts';

export type RunOptions = {
  /** Who started it: 'job:payout' for the schedule, the caller's actor for the API. */
  actor: string;
  /** The rails that pay (ctx.payoutProvider unless given). */
  provider?: PayoutRails;
  /** Partners per transaction. */
  batchSize?: number;
  /** Transactions in flight at once. */
  workers?: number;
};

/**
 * One payout run. Answers the payouts it created, or null when another run holds the lock (on this
 * or another replica). A crash leaves whole batches committed and the rest untouched.
 */
export async function runPayouts(ctx: AppContext, options: RunOptions): Promise<PayoutView[] | null> {
  const outcome = await withAdvisoryLock(ctx.sql, LOCKS.payouts, () => payEligiblePartners(ctx, options));
  return outcome.ran ? outcome.result : null;
}

/**
 * The run's body without the advisory lock (use runPayouts). Safe on its own too: batches lock the
 * rows they pay and pay only rows still approved, so two of these at once pay each commission once.
 */
export async function payEligiblePartners(ctx: AppContext, options: RunOptions): Promise<PayoutView[]> {
  const { sql, log } = ctx;
  const rails = options.provider ?? ctx.payoutProvider;
  const batchSize = options.batchSize ?? 1000;
  const created: PayoutView[] = [];
  // Partners are handed out in id order, `batchSize` at a time, to `workers` concurrent transactions;
  // batches never share a partner, so they never wait on each other's rows.
  let after = '';
  let exhausted = false;
  let turn: Promise<unknown> = Promise.resolve();
  const nextBatch = (): Promise<string[]> => {
    const batch = turn.then(async () => {
      if (exhausted) return [];
      const rows = await sql<{ partner_id: string }[]>`
        select distinct partner_id from commissions
        where status = 'approved' and partner_id > ${after}
        order by partner_id
        limit ${batchSize}`;
      if (rows.length < batchSize) exhausted = true;
      if (rows.length > 0) after = rows[rows.length - 1]!.partner_id;
      return rows.map((r) => r.partner_id);
    });
    turn = batch.catch(() => undefined);
    return batch;
  };
  const worker = async () => {
    try {
      for (;;) {
        const partnerIds = await nextBatch();
        if (partnerIds.length === 0) return;
        const batch = await sql.begin((tx) => payBatch(tx, { partnerIds, minPayout: ctx.config.minPayout, actor: options.actor, stripe: rails.stripe !== null }));
        created.push(...batch);
      }
    } catch (error) {
      exhausted = true; // the other workers finish their batch and stop
      throw error;
    }
  };
  // wait for every worker, so nothing still runs once the lock is released
  const results = await Promise.allSettled(Array.from({ length: Math.max(1, options.workers ?? 2) }, worker));
  const failure = results.find((r) => r.status === 'rejected');
  if (failure) {
    log.error('payout run stopped; committed batches stand, the rest waits for the next run', { paid: created.length });
    throw failure.reason;
  }
  // every batch committed: hand the run's payouts to their rails (PayPal in batches of the whole run)
  const answered = await handOverPending(ctx, rails, created.map((p) => p.id)).then(
    () => readPayouts(sql, created.map((p) => p.id)),
    (error) => {
      // the payouts stay pending and are handed over again (at start, by the rails job)
      log.error('payout hand-over stopped; the rest is handed over again later', { error });
      return created;
    },
  );
  created.length = 0;
  created.push(...answered);
  if (created.length > 0) log.info('payout run', { payouts: created.length, actor: options.actor });
  // after the batches committed: a summary lost to a crash here is the price of not holding them open
  await notifyAdminsOfPayoutRun(sql, created).catch((error) => log.error('payout run summary email failed', { error }));
  return created.sort((a, b) => (a.id < b.id ? -1 : 1));
}

/** Pays what is due for these partners, in one transaction. Answers the payouts it created. */
async function payBatch(
  tx: Tx,
  input: { partnerIds: string[]; minPayout: string; actor: string; stripe: boolean },
): Promise<PayoutView[]> {
  // a partner whose payout method holds their money (a recent change, an account not ready) is left
  // for a later run: their commissions stay approved and unlocked
  const routes = await routesOf(tx, input.partnerIds, { stripe: input.stripe });
  const routed = input.partnerIds.filter((id) => { const r = routes.get(id); return r !== undefined && 'rail' in r; });
  if (routed.length === 0) return [];
  const due = (await payableGroups(tx, { partnerIds: routed, lock: true })).filter((g) => isDue(g, input.minPayout));
  if (due.length === 0) return [];
  const railOf = (partnerId: string) => routes.get(partnerId) as { rail: string; destination: string | null };

  // the batch's rows pass through several CTEs: keep them in memory rather than temp files
  await tx`set local work_mem = '64MB'`;
  const payoutIds = due.map(() => newId('payout'));
  const events = idBase();
  const deliveries = idBase();
  const rows = await tx<(PayoutRow & { delivery_count: number })[]>`
    with groups as (
      select payout_id, partner_id, currency, exp, rail, destination from unnest(
        ${payoutIds}::text[], ${due.map((g) => g.partnerId)}::text[], ${due.map((g) => g.currency)}::text[],
        ${due.map((g) => exponentOf(g.currency))}::int[], ${due.map((g) => railOf(g.partnerId).rail)}::text[],
        ${due.map((g) => railOf(g.partnerId).destination)}::text[]
      ) as g(payout_id, partner_id, currency, exp, rail, destination)
    ), paid as (
      update commissions c set status = ${TRANSITIONS.pay.to}, payout_id = g.payout_id, paid_at = now()
      from groups g
      where c.partner_id = any(${routed}::text[])
        and c.status = any(${TRANSITIONS.pay.from as unknown as string[]}::text[])
        and c.partner_id = g.partner_id and c.currency = g.currency
      returning c.id, c.partner_id, c.currency, c.amount, g.payout_id, g.exp
    ), netted as (
      update clawbacks k set status = 'applied', payout_id = g.payout_id, applied_at = now()
      from groups g
      where k.id = any(${due.flatMap((g) => g.clawIds)}::bigint[])
        and k.partner_id = g.partner_id and k.currency = g.currency and k.status = 'open'
      returning k.amount, g.payout_id
    ), totals as (
      select g.payout_id, g.partner_id, g.currency, g.exp, g.rail, g.destination,
        coalesce(p.gross, 0)::bigint as gross, coalesce(p.n, 0)::int as n,
        coalesce(k.claw, 0)::bigint as claw, coalesce(k.m, 0)::int as m
      from groups g
      left join (select payout_id, sum(amount) as gross, count(*) as n from paid group by payout_id) p using (payout_id)
      left join (select payout_id, sum(amount) as claw, count(*) as m from netted group by payout_id) k using (payout_id)
    ), created as (
      insert into payouts (id, partner_id, currency, amount, commissions_amount, clawbacks_amount,
                           commission_count, clawback_count, provider, destination, created_by)
      select payout_id, partner_id, currency, gross - claw, gross, claw, n, m, rail, destination, ${input.actor}
      from totals
      returning ${tx([...PAYOUT_COLUMNS])}
    ), transitions as (
      insert into commission_transitions (commission_id, from_status, to_status, actor, reason)
      select id, 'approved', ${TRANSITIONS.pay.to}, ${input.actor}, 'payout ' || payout_id from paid
    ), envelopes as (
      insert into webhook_events (id, type, data)
      select ${events} || '0' || lpad(to_hex(row_number() over ()), 7, '0'), 'payout.created',
        jsonb_build_object(
          'payoutId', t.payout_id, 'partnerId', t.partner_id,
          'amount', partnerd_format_minor(t.gross - t.claw, t.exp), 'currency', t.currency, 'commissionCount', t.n)
      from totals t
      union all
      select ${events} || '1' || lpad(to_hex(row_number() over ()), 7, '0'), 'commission.paid',
        jsonb_build_object(
          'commissionId', p.id, 'payoutId', p.payout_id, 'partnerId', p.partner_id,
          'amount', partnerd_format_minor(p.amount, p.exp), 'currency', p.currency)
      from paid p
      returning id, type
    ), delivered as (
      ${insertDeliveriesForEnvelopes(tx, deliveries)}
    ), audited as (
      ${auditInsertFrom(tx, { source: 'created', targetColumn: 'id', action: 'payout.run', targetType: 'payout', changes: tx`jsonb_build_object('status', jsonb_build_array(null, status), 'partnerId', jsonb_build_array(null, partner_id), 'amount', jsonb_build_array(null, amount::text), 'currency', jsonb_build_array(null, currency), 'commissionCount', jsonb_build_array(null, commission_count))` })}
    ), audited_paid as (
      ${auditInsertFrom(tx, { source: 'paid', targetColumn: 'id', action: 'commission.paid', targetType: 'commission', changes: tx`jsonb_build_object('status', jsonb_build_array('approved', 'paid'), 'payoutId', jsonb_build_array(null, payout_id))` })}
    )
    select ${tx(PAYOUT_COLUMNS.map((c) => `c.${c}`))}, (select count(*) from delivered)::int as delivery_count from created c order by c.id`;
  if (rows.length > 0 && rows[0]!.delivery_count > 0) await tx`select pg_notify(${DELIVERY_CHANNEL}, ${`${events}00000001`})`; // first envelope: a payout.created
  return rows.map(payoutView);
}

export function throwIfLocked(result: PayoutView[] | null): PayoutView[] {
  if (result === null) throw new AppError('conflict', 'a payout run is already in progress');
  return result;
}
