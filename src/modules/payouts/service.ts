// Payout runs and payouts: per partner and currency, approved commissions minus open clawbacks; when
// the net reaches MIN_PAYOUT, one payout. Set-based SQL, one transaction per batch of partners, under
// an advisory lock so replicas never run it twice at once.
import type { PayoutOutcome, PayoutProvider } from '../../../plugins/billing';
import type { AppContext } from '../../context';
import type { Sql, Tx } from '../../db';
import { AppError, conflict, notFound } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { iso } from '../../lib/time';
import { LOCKS, withAdvisoryLock } from '../../db/lock';
import { TRANSITIONS } from '../commissions/lifecycle';
import { DELIVERY_CHANNEL, insertDeliveriesForEnvelopes } from '../webhooks/outbox';
import { exponentOf, formatMinor, majorToMinorCeil } from '../../lib/money';
import { idBase } from '../webhooks/bulk-events';

export const PAYOUT_STATUSES = ['pending', 'paid', 'failed'] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

type Row = Record<string, any>;

/** A payout as the API answers it; amounts in major units as decimal strings. */
export type PayoutView = {
  id: string;
  partnerId: string;
  currency: string;
  amount: string;
  commissionsAmount: string;
  clawbacksAmount: string;
  commissionCount: number;
  clawbackCount: number;
  status: PayoutStatus;
  provider: string;
  providerReference: string | null;
  failureReason: string | null;
  createdAt: string;
  paidAt: string | null;
  failedAt: string | null;
};

export function payoutView(row: Row): PayoutView {
  const currency = row.currency as string;
  return {
    id: row.id as string,
    partnerId: row.partner_id as string,
    currency,
    amount: formatMinor(row.amount, currency),
    commissionsAmount: formatMinor(row.commissions_amount, currency),
    clawbacksAmount: formatMinor(row.clawbacks_amount, currency),
    commissionCount: row.commission_count as number,
    clawbackCount: row.clawback_count as number,
    status: row.status as PayoutStatus,
    provider: row.provider as string,
    providerReference: (row.provider_reference as string | null) ?? null,
    failureReason: (row.failure_reason as string | null) ?? null,
    createdAt: iso(row.created_at)!,
    paidAt: iso(row.paid_at),
    failedAt: iso(row.failed_at),
  };
}

// ---------------------------------------------------------------------------------------------
// The run

export type RunOptions = {
  /** Who started it: 'job:payout' for the schedule, the caller's actor for the API. */
  actor: string;
  provider: PayoutProvider;
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
      const rows = await sql`
        select distinct partner_id from commissions
        where status = 'approved' and partner_id > ${after}
        order by partner_id
        limit ${batchSize}`;
      if (rows.length < batchSize) exhausted = true;
      if (rows.length > 0) after = rows[rows.length - 1]!.partner_id;
      return rows.map((r) => r.partner_id as string);
    });
    turn = batch.catch(() => undefined);
    return batch;
  };
  const worker = async () => {
    try {
      for (;;) {
        const partnerIds = await nextBatch();
        if (partnerIds.length === 0) return;
        const batch = await sql.begin((tx) => payBatch(tx, { partnerIds, minPayout: ctx.config.minPayout, ...options }));
        for (const payout of batch) created.push(await handOver(ctx, options.provider, payout));
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
  if (created.length > 0) log.info('payout run', { payouts: created.length, actor: options.actor });
  return created.sort((a, b) => (a.id < b.id ? -1 : 1));
}

type Group = { partnerId: string; currency: string; gross: bigint; claw: bigint; clawIds: string[] };

/** Pays what is due for these partners, in one transaction. Answers the payouts it created. */
async function payBatch(
  tx: Tx,
  input: { partnerIds: string[]; minPayout: string; actor: string; provider: PayoutProvider },
): Promise<PayoutView[]> {
  // Lock what the sums are made of: a reversal waiting on these rows then sees them paid (and opens a
  // clawback for the next payout) instead of shrinking this one after it was sized.
  const sums = await tx`
    with approved as (
      select partner_id, currency, amount from commissions
      where status = 'approved' and partner_id = any(${input.partnerIds}::text[])
      for update
    ), owed as (
      select commission_id, partner_id, currency, amount from clawbacks
      where status = 'open' and partner_id = any(${input.partnerIds}::text[])
      for update
    ), gross as (
      select partner_id, currency, sum(amount)::bigint as gross from approved group by partner_id, currency
    ), claw as (
      select partner_id, currency, sum(amount)::bigint as claw, array_agg(commission_id) as claw_ids
      from owed group by partner_id, currency
    )
    select g.partner_id, g.currency, g.gross, coalesce(c.claw, 0)::bigint as claw, coalesce(c.claw_ids, '{}') as claw_ids
    from gross g left join claw c using (partner_id, currency)`;

  const due: Group[] = [];
  for (const s of sums) {
    const group: Group = { partnerId: s.partner_id, currency: s.currency, gross: s.gross, claw: s.claw, clawIds: s.claw_ids };
    const net = group.gross - group.claw;
    if (net > 0n && net >= majorToMinorCeil(input.minPayout, group.currency)) due.push(group);
  }
  if (due.length === 0) return [];

  // the batch's rows pass through several CTEs: keep them in memory rather than temp files
  await tx`set local work_mem = '64MB'`;
  const payoutIds = due.map(() => newId('payout'));
  const events = idBase();
  const deliveries = idBase();
  const rows = await tx`
    with groups as (
      select * from unnest(
        ${payoutIds}::text[], ${due.map((g) => g.partnerId)}::text[], ${due.map((g) => g.currency)}::text[],
        ${due.map((g) => exponentOf(g.currency))}::int[]
      ) as g(payout_id, partner_id, currency, exp)
    ), paid as (
      update commissions c set status = ${TRANSITIONS.pay.to}, payout_id = g.payout_id, paid_at = now()
      from groups g
      where c.partner_id = any(${input.partnerIds}::text[])
        and c.status = any(${TRANSITIONS.pay.from as unknown as string[]}::text[])
        and c.partner_id = g.partner_id and c.currency = g.currency
      returning c.id, c.partner_id, c.currency, c.amount, g.payout_id, g.exp
    ), netted as (
      update clawbacks k set status = 'applied', payout_id = g.payout_id, applied_at = now()
      from groups g
      where k.commission_id = any(${due.flatMap((g) => g.clawIds)}::text[])
        and k.partner_id = g.partner_id and k.currency = g.currency and k.status = 'open'
      returning k.amount, g.payout_id
    ), totals as (
      select g.payout_id, g.partner_id, g.currency, g.exp,
        coalesce(p.gross, 0)::bigint as gross, coalesce(p.n, 0)::int as n,
        coalesce(k.claw, 0)::bigint as claw, coalesce(k.m, 0)::int as m
      from groups g
      left join (select payout_id, sum(amount) as gross, count(*) as n from paid group by payout_id) p using (payout_id)
      left join (select payout_id, sum(amount) as claw, count(*) as m from netted group by payout_id) k using (payout_id)
    ), created as (
      insert into payouts (id, partner_id, currency, amount, commissions_amount, clawbacks_amount,
                           commission_count, clawback_count, provider, created_by)
      select payout_id, partner_id, currency, gross - claw, gross, claw, n, m, ${input.provider.name}, ${input.actor}
      from totals
      returning *
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
    )
    select c.*, (select count(*) from delivered)::int as delivery_count from created c order by c.id`;
  if (rows.length > 0 && rows[0]!.delivery_count > 0) await tx`select pg_notify(${DELIVERY_CHANNEL}, ${`${events}00000001`})`; // first envelope: a payout.created
  return rows.map(payoutView);
}

/** Gives a committed payout to the provider and records what it answered. */
async function handOver(ctx: AppContext, provider: PayoutProvider, payout: PayoutView): Promise<PayoutView> {
  let outcome: PayoutOutcome;
  try {
    outcome = await provider.send(payout);
  } catch (error) {
    // the payout stays pending: the provider (or an operator) settles it later
    ctx.log.error('payout provider failed to start a payout', { payoutId: payout.id, provider: provider.name, error });
    return payout;
  }
  const actor = `provider:${provider.name}`;
  switch (outcome.status) {
    case 'pending':
      if (!outcome.reference) return payout;
      await ctx.sql`update payouts set provider_reference = ${outcome.reference} where id = ${payout.id}`;
      return { ...payout, providerReference: outcome.reference };
    case 'paid':
      return markPayoutPaid(ctx.sql, { id: payout.id, actor, reference: outcome.reference });
    case 'failed':
      return markPayoutFailed(ctx.sql, { id: payout.id, actor, reason: outcome.reason });
  }
}

// ---------------------------------------------------------------------------------------------
// Settling

async function lockPayout(tx: Tx, id: string): Promise<Row> {
  const [row] = await tx`select * from payouts where id = ${id} for update`;
  if (!row) throw notFound('payout');
  return row;
}

/** pending -> paid (an operator paid it by hand, or the provider confirmed). */
export async function markPayoutPaid(sql: Sql, input: { id: string; actor: string; reference?: string }): Promise<PayoutView> {
  return sql.begin(async (tx) => {
    const current = await lockPayout(tx, input.id);
    if (current.status !== 'pending') throw conflict(`payout is already ${current.status}`, { payoutId: input.id, status: current.status });
    const [row] = await tx`
      update payouts set status = 'paid', paid_at = now(), settled_by = ${input.actor},
        provider_reference = coalesce(${input.reference ?? null}, provider_reference)
      where id = ${input.id}
      returning *`;
    return payoutView(row!);
  });
}

/**
 * pending -> failed. The money did not move, so what the payout held becomes payable again:
 * its commissions go back to approved (transition `release`), the clawbacks it netted reopen, and a
 * clawback of a commission reversed while this payout was pending is cancelled (it was never paid).
 * The lines it held are kept on the payout (failed_lines) for the record.
 */
export async function markPayoutFailed(sql: Sql, input: { id: string; actor: string; reason: string }): Promise<PayoutView> {
  return sql.begin(async (tx) => {
    const current = await lockPayout(tx, input.id);
    if (current.status !== 'pending') throw conflict(`payout is already ${current.status}`, { payoutId: input.id, status: current.status });
    const [row] = await tx`
      update payouts set status = 'failed', failed_at = now(), failure_reason = ${input.reason}, settled_by = ${input.actor},
        failed_lines = jsonb_build_object(
          'commissions', (select coalesce(jsonb_agg(jsonb_build_object('id', c.id, 'amount', c.amount, 'status', c.status) order by c.id), '[]')
                          from commissions c where c.payout_id = ${input.id}),
          'clawbacks', (select coalesce(jsonb_agg(jsonb_build_object('commissionId', k.commission_id, 'amount', k.amount, 'reason', k.reason) order by k.commission_id), '[]')
                        from clawbacks k where k.payout_id = ${input.id}))
      where id = ${input.id}
      returning *`;
    await tx`
      with released as (
        update commissions set status = ${TRANSITIONS.release.to}, payout_id = null, paid_at = null
        where payout_id = ${input.id} and status = any(${TRANSITIONS.release.from as unknown as string[]}::text[])
        returning id
      )
      insert into commission_transitions (commission_id, from_status, to_status, actor, reason)
      select id, 'paid', ${TRANSITIONS.release.to}, ${input.actor}, ${`payout ${input.id} failed: ${input.reason}`} from released`;
    await tx`
      update clawbacks set status = 'cancelled'
      where status = 'open' and commission_id in (select id from commissions where payout_id = ${input.id} and status = 'reversed')`;
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
  const rows = await sql`
    select p.* from payouts p
    where true ${filterSql(sql, input)} ${input.cursor ? sql`and p.id < ${input.cursor}` : sql``}
    order by p.id desc
    limit ${input.limit + 1}`;
  return rows.map(payoutView);
}

export async function findPayoutRow(sql: Sql, id: string): Promise<Row | null> {
  const [row] = await sql`select * from payouts where id = ${id}`;
  return row ?? null;
}

/** A payout with its lines: the commissions it paid and the clawbacks (negative lines) it netted. */
export async function payoutDetail(sql: Sql, row: Row) {
  const currency = row.currency as string;
  if (row.status === 'failed' && row.failed_lines) {
    const lines = row.failed_lines as { commissions: Row[]; clawbacks: Row[] };
    return {
      ...payoutView(row),
      commissions: lines.commissions.map((c) => ({ id: c.id, amount: formatMinor(BigInt(c.amount), currency) })),
      clawbacks: lines.clawbacks.map((k) => ({ commissionId: k.commissionId, amount: formatMinor(-BigInt(k.amount), currency), reason: k.reason })),
    };
  }
  const commissions = await sql`
    select id, campaign_id, event_type, amount, status, created_at, approved_at, paid_at
    from commissions where payout_id = ${row.id} order by id`;
  const clawbacks = await sql`
    select commission_id, amount, reason, created_at from clawbacks where payout_id = ${row.id} order by commission_id`;
  return {
    ...payoutView(row),
    commissions: commissions.map((c) => ({
      id: c.id as string,
      campaignId: c.campaign_id as string,
      eventType: c.event_type as string,
      amount: formatMinor(c.amount, currency),
      status: c.status as string,
      createdAt: iso(c.created_at)!,
      approvedAt: iso(c.approved_at),
      paidAt: iso(c.paid_at),
    })),
    clawbacks: clawbacks.map((k) => ({
      commissionId: k.commission_id as string,
      amount: formatMinor(-(k.amount as bigint), currency),
      reason: k.reason as string,
      createdAt: iso(k.created_at)!,
    })),
  };
}

export function throwIfLocked(result: PayoutView[] | null): PayoutView[] {
  if (result === null) throw new AppError('conflict', 'a payout run is already in progress');
  return result;
}

// ---------------------------------------------------------------------------------------------
// CSV export, for paying by hand

const CSV_COLUMNS = [
  'payout_id', 'partner_id', 'partner_name', 'partner_email', 'billing_connect_account_id', 'currency', 'amount',
  'commissions_amount', 'clawbacks_amount', 'commission_count', 'status', 'created_at', 'paid_at',
] as const;

/**
 * One cell. Spreadsheets run cells starting with = + - @ (and tab or carriage return) as formulas,
 * so those get a leading apostrophe; cells with a comma, quote or line break are quoted.
 */
export function csvCell(value: string | number | null | undefined): string {
  let text = value === null || value === undefined ? '' : String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The CSV as a stream, read from the database a page at a time (newest first). */
export function payoutsCsv(sql: Sql, filter: PayoutFilter): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let cursor: string | undefined;
  let headerSent = false;
  let done = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!headerSent) {
        headerSent = true;
        controller.enqueue(encoder.encode(CSV_COLUMNS.join(',') + '\r\n'));
        return;
      }
      if (done) return controller.close();
      const rows = await sql`
        select p.*, pt.name as partner_name, pt.email as partner_email, pt.billing_connect_account_id
        from payouts p join partners pt on pt.id = p.partner_id
        where true ${filterSql(sql, filter)} ${cursor ? sql`and p.id < ${cursor}` : sql``}
        order by p.id desc
        limit 1000`;
      if (rows.length < 1000) done = true;
      if (rows.length === 0) return controller.close();
      cursor = rows[rows.length - 1]!.id;
      const text = rows
        .map((r) => {
          const v = payoutView(r);
          return [
            v.id, v.partnerId, r.partner_name, r.partner_email, r.billing_connect_account_id, v.currency, v.amount,
            v.commissionsAmount, v.clawbacksAmount, v.commissionCount, v.status, v.createdAt, v.paidAt,
          ]
            .map(csvCell)
            .join(',');
        })
        .join('\r\n');
      controller.enqueue(encoder.encode(text + '\r\n'));
    },
  });
}
