// One event's checks and idempotency hash, before record-events.ts writes it: what needs no database.
// A bad input throws its 400 here, before any transaction.
import { sha256 } from '../lib/crypto';
import { conflict } from '../lib/errors';
import type { EventInput } from '../modules/events/intake';
import { checkEventInput } from '../modules/events/service';

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
  return { input, occurredAt, hash: requestHash(input, occurredAt), customerEmail: input.customerEmail?.trim() || null };
}

/** Advisory lock names: one per idempotency key, one per user (record-events.ts takes them). */
export const EVENT_KEY_LOCK = 'partnerd:event-key:';
export const USER_LOCK = 'partnerd:user:';

export const keyConflict = () => conflict('Idempotency-Key was already used with a different request body');
