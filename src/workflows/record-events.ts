// Records conversion events: the event rows, attribution and commission accrual (with their webhook
// envelopes) in ONE transaction (DESIGN.md "Attribution", "Batch ingest"). Every event comes through
// here: the HTTP intake gathers concurrent requests into batches (group-commit.ts),
// POST /v1/events/batch sends its items, and a billing plugin's conversion is a batch of one
// written in the plugin's own transaction.
import type { AppContext } from '../context';
import type { Transaction, Tx } from '../db';
import { AppError, dataExceptionError, isDataException } from '../lib/errors';
import { idTime, newId } from '../lib/ids';
import { recordReferrals, resolveAttributions, type Resolution } from '../modules/attribution/service';
import { accrueCommissions } from '../modules/commissions/accrual';
import type { RuleSource } from '../modules/commissions/terms';
import type { AttributionResult, EventInput, EventOutcome, RecordedEvent } from '../modules/events/intake';
import { EVENT_COLUMNS, toEventRecord, type EventRow } from '../modules/events/service';
import { normalizeEmail } from '../modules/fraud/signals';
import { EnvelopeBatch } from '../modules/webhooks/outbox';
import { EVENT_KEY_LOCK, keyConflict, prepareEvent, USER_LOCK, type PreparedEvent } from './prepare-event';

/**
 * Records `inputs` in order and answers one outcome per input. A bad input (a 400, a reused
 * idempotency key with another body) fails alone. When the batch transaction itself fails (a
 * constraint, a deadlock, a bug), nothing of it is kept and each event is recorded again in a
 * transaction of its own, in order, so one bad event never takes the others down.
 *
 * In the caller's transaction `tx` when given (a billing conversion commits with its dedupe row):
 * then a failure of the batch is thrown, since the caller's transaction is lost with it.
 */
export async function recordEvents(ctx: AppContext, inputs: EventInput[], tx?: Transaction): Promise<EventOutcome[]> {
  const outcomes: EventOutcome[] = new Array(inputs.length);
  const valid: { index: number; prepared: PreparedEvent }[] = [];
  inputs.forEach((input, index) => {
    try {
      valid.push({ index, prepared: prepareEvent(input) });
    } catch (error) {
      outcomes[index] = failed(ctx, error);
    }
  });
  if (valid.length === 0) return outcomes;
  if (tx) {
    const written = await writeBatch(ctx, tx, valid.map((v) => v.prepared));
    written.forEach((outcome, k) => (outcomes[valid[k]!.index] = outcome));
    return outcomes;
  }
  try {
    const written = await ctx.sql.begin((tx) => writeBatch(ctx, tx, valid.map((v) => v.prepared)));
    written.forEach((outcome, k) => (outcomes[valid[k]!.index] = outcome));
  } catch (error) {
    if (valid.length === 1) {
      outcomes[valid[0]!.index] = failed(ctx, error);
      return outcomes;
    }
    ctx.log.warn('event batch failed; recording its events one by one', { events: valid.length, error: String((error as Error)?.message ?? error) });
    ctx.metrics.inc('partnerd_event_batch_retries_total');
    // in order: two events of one user keep their order
    for (const { index, prepared } of valid) {
      try {
        const [outcome] = await ctx.sql.begin((tx) => writeBatch(ctx, tx, [prepared]));
        outcomes[index] = outcome!;
      } catch (single) {
        outcomes[index] = failed(ctx, single);
      }
    }
  }
  return outcomes;
}

/** The error answer of one event: its own AppError, a 400 for a value PostgreSQL cannot store, else a logged 500. */
function failed(ctx: AppContext, error: unknown): EventOutcome {
  if (error instanceof AppError) return { ok: false, error };
  if (isDataException(error)) return { ok: false, error: dataExceptionError() };
  ctx.log.error('event not recorded', { error });
  return { ok: false, error: new AppError('internal', 'internal error') };
}

/**
 * One transaction for the whole batch. Every lock the batch needs (its idempotency keys and users)
 * is taken up front, in one statement, in a fixed order: two batches sharing users wait for each
 * other instead of deadlocking, and each event then sees its user's earlier events committed or
 * written before it in this batch.
 */
async function writeBatch(ctx: AppContext, sql: Transaction, items: PreparedEvent[]): Promise<EventOutcome[]> {
  const locks = new Set<string>();
  for (const { input } of items) {
    if (input.idempotencyKey !== undefined) locks.add(EVENT_KEY_LOCK + input.idempotencyKey);
    locks.add(USER_LOCK + input.userId);
  }
  await sql`
    select pg_advisory_xact_lock(k)
    from (select distinct hashtextextended(name, 0) as k from unnest(${[...locks]}::text[]) as name order by 1) as wanted`;

  const keys = [...new Set(items.flatMap((p) => (p.input.idempotencyKey === undefined ? [] : [p.input.idempotencyKey])))];
  const earlier = new Map<string, EventRow & { request_hash: string }>();
  if (keys.length > 0) {
    const rows = await sql<(EventRow & { request_hash: string; idempotency_key: string })[]>`
      select ${sql([...EVENT_COLUMNS, 'request_hash', 'idempotency_key'])} from events where idempotency_key = any(${keys}::text[])`;
    for (const row of rows) earlier.set(row.idempotency_key, row);
  }

  const outcomes: EventOutcome[] = new Array(items.length);
  const firstWithKey = new Map<string, number>();
  const sameAs = new Map<number, number>(); // a repeat inside the batch -> the item it repeats
  const replays: { index: number; row: EventRow }[] = [];
  // waves: consecutive new events of distinct users, in the batch's order; a user's next event starts
  // the next wave, so each event sees exactly the events before it in the batch written
  const waves: number[][] = [];
  let waveUsers = new Set<string>();
  items.forEach((item, index) => {
    const key = item.input.idempotencyKey;
    if (key !== undefined) {
      const row = earlier.get(key);
      const first = firstWithKey.get(key);
      if (row) {
        if (row.request_hash !== item.hash) outcomes[index] = { ok: false, error: keyConflict() };
        else replays.push({ index, row });
        return;
      }
      if (first !== undefined) {
        if (items[first]!.hash !== item.hash) outcomes[index] = { ok: false, error: keyConflict() };
        else sameAs.set(index, first);
        return;
      }
      firstWithKey.set(key, index);
    }
    if (waves.length === 0 || waveUsers.has(item.input.userId)) {
      waves.push([]);
      waveUsers = new Set();
    }
    waves.at(-1)!.push(index);
    waveUsers.add(item.input.userId);
  });

  await Promise.all(
    replays.map(async ({ index, row }) => {
      outcomes[index] = { ok: true, recorded: { replayed: true, event: toEventRecord(row), attribution: await loadAttributionResult(sql, row) } };
    }),
  );
  // a user's second event must see the referral and commissions of its first: one wave at a time.
  // The webhook envelopes of the whole batch are written together at the end (nothing in the
  // batch reads them back).
  const envelopes = new EnvelopeBatch();
  for (const wave of waves) {
    const recorded = await writeWave(ctx, sql, wave.map((i) => items[i]!), envelopes);
    wave.forEach((index, k) => (outcomes[index] = { ok: true, recorded: recorded[k]! }));
  }
  await envelopes.write(sql);
  for (const [index, first] of sameAs) {
    const original = outcomes[first]!;
    outcomes[index] = original.ok ? { ok: true, recorded: { ...original.recorded, replayed: true } } : original;
  }
  return outcomes;
}

/**
 * Events of distinct users, written together: their attribution in a few set-based reads, the events
 * and the new referrals in one statement each, then their accruals together (accrueCommissions).
 */
async function writeWave(ctx: AppContext, sql: Transaction, items: PreparedEvent[], envelopes: EnvelopeBatch): Promise<RecordedEvent[]> {
  const ids = items.map(() => newId('event'));
  // the default occurredAt is the event's createdAt: the time in its id
  const whens = items.map((p, k) => p.occurredAt ?? idTime(ids[k]!));
  const resolutions = await resolveAttributions(
    sql,
    items.map(({ input }, k) => ({ userId: input.userId, occurredAt: whens[k]!, couponCode: input.holdCode ? undefined : input.couponCode })),
  );
  const rows = items.map(({ input, hash, customerEmail }, k) => ({
    id: ids[k],
    user_id: input.userId,
    type: input.type,
    amount: input.amount?.toString() ?? null,
    currency: input.currency,
    occurred_at: whens[k]!.toISOString(),
    metadata: input.metadata,
    idempotency_key: input.idempotencyKey ?? null,
    request_hash: hash,
    source: input.source,
    attribution_status: resolutions[k]!.status,
    attribution_model: resolutions[k]!.model,
    coupon_code: input.couponCode ?? null,
    customer_email: customerEmail,
    customer_email_normalized: customerEmail === null ? null : normalizeEmail(customerEmail),
    customer_id: input.customerId ?? null,
  }));
  // one JSON parameter: the statement text is the same for every batch size (one prepared statement)
  const inserted = sql<EventRow[]>`
    insert into events (id, user_id, type, amount, currency, occurred_at, metadata, idempotency_key, request_hash, source,
                        attribution_status, attribution_model, coupon_code, customer_email, customer_email_normalized, customer_id)
    select id, user_id, type, amount, currency, occurred_at, coalesce(metadata, '{}'::jsonb), idempotency_key, request_hash, source,
           attribution_status, attribution_model, coupon_code, customer_email, customer_email_normalized, customer_id
    from jsonb_to_recordset(${sql.json(rows as never)}) as r(
      id text, user_id text, type text, amount bigint, currency text, occurred_at timestamptz, metadata jsonb, idempotency_key text,
      request_hash text, source text, attribution_status text, attribution_model text, coupon_code text, customer_email text,
      customer_email_normalized text, customer_id text)
    returning ${sql([...EVENT_COLUMNS])}`.execute();
  // queued in this order on the transaction's connection: the events and referrals exist before
  // any accrual writes an attribution pointing at them
  const referrals = recordReferrals(
    sql,
    items.flatMap(({ input }, k) =>
      resolutions[k]!.newReferral ? [{ userId: input.userId, model: resolutions[k]!.model, startedAt: whens[k]!, touches: resolutions[k]!.touches }] : [],
    ),
  );
  const [eventRows] = await Promise.all([inserted, referrals]);
  const answers = await accrueEvents(
    ctx,
    sql,
    items.map((prepared, k) => ({ id: ids[k]!, when: whens[k]!, prepared, resolution: resolutions[k]! })),
    envelopes,
  );
  const byId = new Map(eventRows.map((r) => [r.id, r]));
  return items.map((_, k) => ({ replayed: false, event: toEventRecord(byId.get(ids[k]!)!), attribution: answers[k]! }));
}

/** An event just written, with its attribution, ready for step 4. */
type ResolvedEvent = { id: string; when: Date; prepared: Pick<PreparedEvent, 'input' | 'customerEmail'>; resolution: Resolution };

/**
 * Step 4 for events just written, in order: their attributions and commissions (accrueCommissions,
 * all at once), each answered as its attribution result; their envelopes go into `envelopes`.
 */
async function accrueEvents(ctx: AppContext, sql: Tx, events: ResolvedEvent[], envelopes: EnvelopeBatch): Promise<AttributionResult[]> {
  const accrued = await accrueCommissions(
    sql,
    events.map(({ id, when, prepared: { input, customerEmail }, resolution }) => ({
      event: { id, userId: input.userId, type: input.type, amount: input.amount, currency: input.currency, occurredAt: when, metadata: input.metadata },
      model: resolution.model,
      // only an attributed event has attributions
      touches: resolution.status === 'attributed' ? resolution.touches : [],
      referralStartedAt: resolution.referralStartedAt ?? when,
      newReferral: resolution.newReferral,
      defaultHoldbackDays: ctx.config.holdbackDays,
      review: { source: input.source, customerEmail, customerId: input.customerId ?? null, reviewAbove: ctx.config.reviewAbove },
    })),
    envelopes,
  );
  return events.map(({ resolution }, k) => ({
    status: resolution.status,
    model: resolution.model,
    touches: accrued[k]!.map(({ campaignId: _c, ...t }) => t),
  }));
}

/** The attribution result of an event already recorded (for idempotent replays). */
async function loadAttributionResult(sql: Tx, event: EventRow): Promise<AttributionResult> {
  const rows = await sql<
    { id: string; click_id: string | null; coupon_code: string | null; partner_id: string; weight: number; commission_id: string | null; rule_source: RuleSource | null }[]
  >`
    select a.id, a.click_id, pc.code as coupon_code, a.partner_id, a.weight, c.id as commission_id, a.rule_source
    from attributions a
    left join commissions c on c.attribution_id = a.id and c.source_commission_id is null -- not the recruiter's override
    left join promotion_codes pc on pc.id = a.code_id
    where a.event_id = ${event.id}
    order by a.id`;
  return {
    status: event.attribution_status,
    model: event.attribution_model!, // every event is written with its model
    touches: rows.map((r) => ({ clickId: r.click_id, couponCode: r.coupon_code, partnerId: r.partner_id, weight: r.weight, attributionId: r.id, commissionId: r.commission_id ?? null, ruleSource: r.rule_source })),
  };
}
