// Conversion-event intake: validation, idempotency, and the one-transaction pipeline
// event -> attribution -> commissions -> outbox (DESIGN.md "Attribution").
import type { AppContext } from '../../context';
import type { Sql, Transaction, Tx } from '../../db';
import { sha256 } from '../../lib/crypto';
import { AppError, conflict, invalidField } from '../../lib/errors';
import { idTime, newId } from '../../lib/ids';
import { exponentOf } from '../../lib/money';
import { iso } from '../../lib/time';
import type { AttributionModel } from '../attribution/models';
import { recordReferral, resolveAttribution, type AttributionStatus } from '../attribution/service';
import { accrueCommissions, type AccruedTouch } from '../commissions/accrual';

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
};

export type EventRecord = {
  id: string;
  userId: string;
  type: string;
  amount: number | null;
  currency: string | null;
  occurredAt: string;
  createdAt: string;
  metadata: Record<string, unknown>;
  attribution: { status: AttributionStatus; model: AttributionModel | null };
};

export type AttributionResult = {
  status: AttributionStatus;
  model: AttributionModel;
  touches: Omit<AccruedTouch, 'campaignId'>[];
};

export type RecordedEvent = { replayed: boolean; event: EventRecord; attribution: AttributionResult };

const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;

const UNSTORABLE = 'must not contain NUL characters or unpaired surrogates';

/** PostgreSQL text and jsonb hold neither NUL characters nor unpaired UTF-16 surrogates. */
function storableText(value: string): boolean {
  return !value.includes('\0') && value.isWellFormed();
}

function storableJson(value: unknown): boolean {
  if (typeof value === 'string') return storableText(value);
  if (Array.isArray(value)) return value.every(storableJson);
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).every(([key, inner]) => storableText(key) && storableJson(inner));
  }
  return true;
}

/** Field rules the schema cannot say: currency with amount, known currency, a real timestamp. */
export function checkEventInput(
  input: { userId: string; type: string; amount: bigint | null; currency: string | null; occurredAt?: string; metadata: Record<string, unknown> },
  amountField: string,
): Date | null {
  if (!storableText(input.userId)) throw invalidField('userId', UNSTORABLE);
  if (!storableText(input.type)) throw invalidField('type', UNSTORABLE);
  if (!storableJson(input.metadata)) throw invalidField('metadata', UNSTORABLE);
  if (input.amount !== null && input.currency === null) throw invalidField('currency', `required when ${amountField} is set`);
  if (input.amount === null && input.currency !== null) throw invalidField(amountField, 'required when currency is set');
  if (input.currency !== null) exponentOf(input.currency, 'currency');
  if (input.occurredAt === undefined) return null;
  const time = Date.parse(input.occurredAt);
  if (!ISO_TIMESTAMP.test(input.occurredAt) || Number.isNaN(time)) throw invalidField('occurredAt', 'must be an ISO 8601 timestamp with a time zone');
  const date = new Date(time);
  if (date.getUTCFullYear() < 1970 || date.getUTCFullYear() > 9999) throw invalidField('occurredAt', 'out of range');
  return date;
}

export function checkIdempotencyKey(value: string | null | undefined): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (value.length < 1 || value.length > 255 || !/^[\x21-\x7e]+$/.test(value)) {
    throw new AppError('invalid_body', 'Idempotency-Key: 1-255 visible ASCII characters', [
      { field: 'Idempotency-Key', message: '1-255 visible ASCII characters' },
    ]);
  }
  return value;
}

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
    }),
  );
}

/**
 * Records an event and runs attribution and accrual in ONE transaction (the caller's `tx` when
 * given: a billing conversion commits with its dedupe row). With an idempotency key, a
 * transaction-scoped advisory lock on the key serialises concurrent duplicates: the first records,
 * the others find its row once it commits and answer it (or 409 on another body).
 */
export async function recordEvent(ctx: AppContext, input: EventInput, tx?: Transaction): Promise<RecordedEvent> {
  const occurredAt = checkEventInput(input, input.source === 'api' ? 'amount' : 'value');
  const hash = requestHash(input, occurredAt);
  const inTransaction = (body: (sql: Transaction) => Promise<RecordedEvent>) => (tx ? body(tx) : ctx.sql.begin(body));
  return inTransaction(async (sql) => {
    if (input.idempotencyKey !== undefined) {
      await sql`select pg_advisory_xact_lock(hashtextextended(${'partnerd:event-key:' + input.idempotencyKey}, 0))`;
      const [existing] = await sql`select * from events where idempotency_key = ${input.idempotencyKey}`;
      if (existing) {
        if (existing.request_hash !== hash) throw conflict('Idempotency-Key was already used with a different request body');
        return { replayed: true, event: toEventRecord(existing), attribution: await loadAttributionResult(sql, existing) };
      }
    }
    // one user at a time: their first attributed event creates the referral, and maxOccurrences counts
    await sql`select pg_advisory_xact_lock(hashtextextended(${'partnerd:user:' + input.userId}, 0))`;
    const id = newId('event');
    // the default occurredAt is the event's createdAt: the time in its id
    const when = occurredAt ?? idTime(id);
    const resolution = await resolveAttribution(sql, { userId: input.userId, occurredAt: when });

    const [row] = await sql`
      insert into events (id, user_id, type, amount, currency, occurred_at, metadata, idempotency_key, request_hash, source,
                          attribution_status, attribution_model)
      values (${id}, ${input.userId}, ${input.type}, ${input.amount}, ${input.currency}, ${when}, ${sql.json(input.metadata as never)},
              ${input.idempotencyKey ?? null}, ${hash}, ${input.source}, ${resolution.status}, ${resolution.model})
      returning *`;
    if (resolution.newReferral) {
      await recordReferral(sql, { userId: input.userId, model: resolution.model, startedAt: when, touches: resolution.touches });
    }
    const touches =
      resolution.status === 'attributed'
        ? await accrueCommissions(sql, {
            event: { id, userId: input.userId, type: input.type, amount: input.amount, currency: input.currency, occurredAt: when, metadata: input.metadata },
            model: resolution.model,
            touches: resolution.touches,
            referralStartedAt: resolution.referralStartedAt!,
            defaultHoldbackDays: ctx.config.holdbackDays,
          })
        : [];
    return {
      replayed: false,
      event: toEventRecord(row!),
      attribution: { status: resolution.status, model: resolution.model, touches: touches.map(({ campaignId: _c, ...t }) => t) },
    };
  });
}

function toEventRecord(row: Record<string, any>): EventRecord {
  return {
    id: row.id,
    userId: row.user_id,
    type: row.type,
    amount: row.amount === null ? null : Number(row.amount),
    currency: row.currency,
    occurredAt: iso(row.occurred_at)!,
    createdAt: iso(row.created_at)!,
    metadata: row.metadata ?? {},
    attribution: { status: row.attribution_status, model: row.attribution_model ?? null },
  };
}

/** The attribution result of an event already recorded (for idempotent replays). */
async function loadAttributionResult(sql: Tx, event: Record<string, any>): Promise<AttributionResult> {
  const rows = await sql`
    select a.id, a.click_id, a.partner_id, a.weight, c.id as commission_id
    from attributions a left join commissions c on c.attribution_id = a.id
    where a.event_id = ${event.id}
    order by a.id`;
  return {
    status: event.attribution_status,
    model: event.attribution_model,
    touches: rows.map((r) => ({ clickId: r.click_id, partnerId: r.partner_id, weight: r.weight, attributionId: r.id, commissionId: r.commission_id ?? null })),
  };
}

/** Events newest first; a partner sees only the events attributed to it. */
export async function listEvents(sql: Sql, page: { limit: number; cursor?: string; partnerId?: string }): Promise<EventRecord[]> {
  const rows = await sql`
    select * from events e
    where true
      ${page.partnerId ? sql`and e.id in (select a.event_id from attributions a where a.partner_id = ${page.partnerId})` : sql``}
      ${page.cursor ? sql`and e.id < ${page.cursor}` : sql``}
    order by e.id desc
    limit ${page.limit + 1}`;
  return rows.map(toEventRecord);
}
