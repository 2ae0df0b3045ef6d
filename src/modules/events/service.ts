// Conversion events: the field rules the schema cannot say, the Idempotency-Key, the event record and
// the list. Recording one (event -> attribution -> commissions -> outbox in one transaction) is
// src/workflows/record-event.ts.
import type { Sql } from '../../db';
import { AppError, invalidField } from '../../lib/errors';
import { checkMetadata } from '../../lib/metadata';
import { exponentOf } from '../../lib/money';
import { checkStorable } from '../../lib/storable';
import { iso } from '../../lib/time';
import type { AttributionModel, AttributionStatus } from '../attribution/models';
import type { ListedEvent } from './model';

/** An event as the API answers it (POST /v1/events answers it without `attribution`). */
export type EventRecord = typeof ListedEvent.static;

/** The columns an EventRow holds, for `select ${sql(EVENT_COLUMNS)}`. */
export const EVENT_COLUMNS = [
  'id', 'user_id', 'type', 'amount', 'currency', 'occurred_at', 'created_at', 'metadata', 'attribution_status', 'attribution_model',
] as const;

export type EventRow = {
  id: string;
  user_id: string;
  type: string;
  amount: bigint | null;
  currency: string | null;
  occurred_at: Date;
  created_at: Date;
  metadata: Record<string, unknown> | null;
  attribution_status: AttributionStatus;
  attribution_model: AttributionModel | null;
};

const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;

/** Field rules the schema cannot say: currency with amount, known currency, a real timestamp. */
export function checkEventInput(
  input: {
    userId: string;
    type: string;
    amount: bigint | null;
    currency: string | null;
    occurredAt?: string;
    metadata: Record<string, unknown>;
    customerEmail?: string | null;
    couponCode?: string;
  },
  amountField: string,
): Date | null {
  checkStorable('userId', input.userId);
  checkStorable('type', input.type);
  if (input.customerEmail) checkStorable('customerEmail', input.customerEmail);
  if (input.couponCode !== undefined) checkStorable('couponCode', input.couponCode);
  checkMetadata(input.metadata);
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
    throw new AppError('invalid_body', 'idempotency-key: 1-255 visible ASCII characters', [
      { field: 'idempotency-key', message: '1-255 visible ASCII characters' },
    ]);
  }
  return value;
}

export function toEventRecord(row: EventRow): EventRecord {
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

/** Events newest first; a partner sees only the events attributed to it. */
export async function listEvents(sql: Sql, page: { limit: number; cursor?: string; partnerId?: string }): Promise<EventRecord[]> {
  const rows = await sql<EventRow[]>`
    select ${sql([...EVENT_COLUMNS])} from events e
    where true
      ${page.partnerId ? sql`and e.id in (select a.event_id from attributions a where a.partner_id = ${page.partnerId})` : sql``}
      ${page.cursor ? sql`and e.id < ${page.cursor}` : sql``}
    order by e.id desc
    limit ${page.limit + 1}`;
  return rows.map(toEventRecord);
}
