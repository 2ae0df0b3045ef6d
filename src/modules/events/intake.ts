// What the event intake takes and answers (src/workflows/record-events.ts records; the HTTP routes,
// the batch endpoint and the billing plugins' conversions feed it).
import type { AppError } from '../../lib/errors';
import type { AttributionResult as AttributionAnswer } from './model';
import type { EventRecord } from './service';

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
  /** The promotion code the customer used (as sent); see resolveAttributions for what it does. */
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

/** What became of one event: recorded (or replayed), or its own error. */
export type EventOutcome = { ok: true; recorded: RecordedEvent } | { ok: false; error: AppError };
