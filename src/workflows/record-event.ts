// Records a conversion event: the event row, attribution and commission accrual (with their webhook
// envelopes) in ONE transaction (DESIGN.md "Attribution"). POST /v1/events, POST /attribution/events
// and the billing plugins' conversions all come through here.
import type { JSONValue } from 'postgres';
import type { AppContext } from '../context';
import type { Transaction, Tx } from '../db';
import { sha256 } from '../lib/crypto';
import { conflict, invalidField } from '../lib/errors';
import { idTime, newId } from '../lib/ids';
import { recordReferral, resolveAttribution, type Resolution } from '../modules/attribution/service';
import { accrueCommissions } from '../modules/commissions/accrual';
import type { RuleSource } from '../modules/commissions/terms';
import { normalizeEmail } from '../modules/fraud/signals';
import type { AttributionResult as AttributionAnswer } from '../modules/events/model';
import { checkEventInput, EVENT_COLUMNS, toEventRecord, type EventRecord, type EventRow } from '../modules/events/service';

/** Where an event came from: the two HTTP forms, or the name of a billing plugin (e.g. 'stripe'). */
export type EventSource = 'api' | 'attribution' | (string & {});

export type EventInput = {
  source: EventSource;
  userId: string;
  type: string;
  amount: bigint | null; // minor units
  currency: string | null;
  occurredAt: string | undefined; // as sent
  metadata: Record<string, unknown>;
  idempotencyKey: string | undefined;
  /** The promotion code the customer used (as sent); see resolveAttribution for what it does. */
  couponCode?: string;
  /**
   * Store the code on the event but let it credit nobody: a billing conversion of a stand-in user
   * (customer not linked yet), so one payment never credits the stand-in's code partner and, once
   * replayed for the linked user, that user's partner too.
   */
  holdCode?: boolean;
  /** The customer's email as the operator or the billing provider reports it (self_referral). */
  customerEmail?: string | null;
  /** The billing provider's customer (source names the provider; duplicate_customer). */
  customerId?: string | null;
};

/** `attribution` of the attribution result (SPEC section 2). */
export type AttributionResult = (typeof AttributionAnswer.static)['attribution'];

export type RecordedEvent = { replayed: boolean; event: EventRecord; attribution: AttributionResult };

/** JSON with object keys sorted, so two equal bodies hash alike whatever their key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function requestHash(input: EventInput, occurredAt: Date | null): string {
  return sha256(
    canonical({
      source: input.source,
      userId: input.userId,
      type: input.type,
      amount: input.amount?.toString() ?? null,
      currency: input.currency,
      occurredAt: occurredAt?.toISOString() ?? null,
      metadata: input.metadata,
      // only when sent, so events recorded before codes existed keep their hash
      ...(input.couponCode !== undefined ? { couponCode: input.couponCode } : {}),
      // only when sent: keys used before the field existed keep their hash
      ...(input.customerEmail ? { customerEmail: input.customerEmail } : {}),
    }),
  );
}

/** An input that passed the checks no database is needed for, with what its rows are written from. */
export type PreparedEvent = { input: EventInput; occurredAt: Date | null; hash: string; customerEmail: string | null };

/** The checks of one event that need no database (a bad input throws its 400 here). */
export function prepareEvent(input: EventInput): PreparedEvent {
  const occurredAt = checkEventInput(input, input.source === 'api' ? 'amount' : 'value');
  if (input.couponCode !== undefined && (input.couponCode.includes('\0') || !input.couponCode.isWellFormed())) {
    throw invalidField('couponCode', 'must not contain NUL characters or unpaired surrogates');
  }
  return { input, occurredAt, hash: requestHash(input, occurredAt), customerEmail: input.customerEmail?.trim() || null };
}

/**
 * Records an event and runs attribution and accrual in ONE transaction (the caller's `tx` when
 * given: a billing conversion commits with its dedupe row). With an idempotency key, a
 * transaction-scoped advisory lock on the key serialises concurrent duplicates: the first records,
 * the others find its row once it commits and answer it (or 409 on another body).
 *
 * The HTTP intake goes through recordEvents (record-events.ts), which commits many events at once;
 * this one-event path is the billing plugins'.
 */
export async function recordEvent(ctx: AppContext, input: EventInput, tx?: Transaction): Promise<RecordedEvent> {
  const { occurredAt, hash, customerEmail } = prepareEvent(input);
  const inTransaction = (body: (sql: Transaction) => Promise<RecordedEvent>) => (tx ? body(tx) : ctx.sql.begin(body));
  return inTransaction(async (sql) => {
    if (input.idempotencyKey !== undefined) {
      await sql`select pg_advisory_xact_lock(hashtextextended(${EVENT_KEY_LOCK + input.idempotencyKey}, 0))`;
      const [existing] = await sql<(EventRow & { request_hash: string })[]>`
        select ${sql([...EVENT_COLUMNS, 'request_hash'])} from events where idempotency_key = ${input.idempotencyKey}`;
      if (existing) {
        if (existing.request_hash !== hash) throw keyConflict();
        return { replayed: true, event: toEventRecord(existing), attribution: await loadAttributionResult(sql, existing) };
      }
    }
    // one user at a time: their first attributed event creates the referral, and maxOccurrences counts
    await sql`select pg_advisory_xact_lock(hashtextextended(${USER_LOCK + input.userId}, 0))`;
    const id = newId('event');
    // the default occurredAt is the event's createdAt: the time in its id
    const when = occurredAt ?? idTime(id);
    const resolution = await resolveAttribution(sql, { userId: input.userId, occurredAt: when, couponCode: input.holdCode ? undefined : input.couponCode });

    const [row] = await sql<EventRow[]>`
      insert into events (id, user_id, type, amount, currency, occurred_at, metadata, idempotency_key, request_hash, source,
                          attribution_status, attribution_model, coupon_code, customer_email, customer_email_normalized, customer_id)
      values (${id}, ${input.userId}, ${input.type}, ${input.amount}, ${input.currency}, ${when}, ${sql.json(input.metadata as JSONValue)},
              ${input.idempotencyKey ?? null}, ${hash}, ${input.source}, ${resolution.status}, ${resolution.model}, ${input.couponCode ?? null},
              ${customerEmail}, ${customerEmail === null ? null : normalizeEmail(customerEmail)}, ${input.customerId ?? null})
      returning ${sql([...EVENT_COLUMNS])}`;
    if (resolution.newReferral) {
      await recordReferral(sql, { userId: input.userId, model: resolution.model, startedAt: when, touches: resolution.touches });
    }
    const [attribution] = await accrueEvents(ctx, sql, [{ id, when, prepared: { input, customerEmail }, resolution }]);
    return { replayed: false, event: toEventRecord(row!), attribution: attribution! };
  });
}

/** Advisory lock names: one per idempotency key, one per user (the batch path takes the same). */
export const EVENT_KEY_LOCK = 'partnerd:event-key:';
export const USER_LOCK = 'partnerd:user:';

export const keyConflict = () => conflict('Idempotency-Key was already used with a different request body');

/** An event just written, with its attribution, ready for step 4. */
export type ResolvedEvent = { id: string; when: Date; prepared: Pick<PreparedEvent, 'input' | 'customerEmail'>; resolution: Resolution };

/**
 * Step 4 for recorded events, in order: their attributions and commissions (accrueCommissions, all
 * at once), each answered as its attribution result. Shared by the one-event and the batch paths.
 */
export async function accrueEvents(ctx: AppContext, sql: Tx, events: ResolvedEvent[]): Promise<AttributionResult[]> {
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
  );
  return events.map(({ resolution }, k) => ({
    status: resolution.status,
    model: resolution.model,
    touches: accrued[k]!.map(({ campaignId: _c, ...t }) => t),
  }));
}

/** The attribution result of an event already recorded (for idempotent replays). */
export async function loadAttributionResult(sql: Tx, event: EventRow): Promise<AttributionResult> {
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
    model: event.attribution_model!, // recordEvent always writes it
    touches: rows.map((r) => ({ clickId: r.click_id, couponCode: r.coupon_code, partnerId: r.partner_id, weight: r.weight, attributionId: r.id, commissionId: r.commission_id ?? null, ruleSource: r.rule_source })),
  };
}
