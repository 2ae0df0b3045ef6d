// Request schemas of the event intake: the /v1 form (minor units) and the attribution form (major units).
import { t } from 'elysia';
import { ErrorResponse, errors, listOf, PageQuery, Timestamp } from '../../lib/http';
import { strictSchema } from '../../lib/strict-body';
import { ATTRIBUTION_STATUSES, MODELS } from '../attribution/models';

const UserId = t.String({ minLength: 1, maxLength: 255, description: 'The id the browser client passed to identify.' });
const EventType = t.String({ minLength: 1, maxLength: 100, description: 'signup, trial_started, subscription_created, invoice_paid, or a custom name.' });
const Currency = t.String({ minLength: 1, maxLength: 10, description: 'ISO 4217 code, upper case; required together with the amount.' });
const OccurredAt = t.String({ maxLength: 40, description: 'ISO 8601 timestamp; defaults to server time.' });
// Compared ignoring case with the promotion codes; an unknown or archived one is no error.
const CouponCode = t.String({
  minLength: 1,
  maxLength: 255,
  description: 'The promotion code the customer used, if any. It wins over clicks for the user\'s first attributed event; unknown or archived codes fall back to clicks.',
  examples: ['PODCAST20'],
});
const CustomerEmail = t.Optional(
  t.Nullable(
    t.String({
      minLength: 3,
      maxLength: 320,
      pattern: '^[^\\s@]+@[^\\s@]+$',
      description: "The customer's email, compared with the partner's own (flag self_referral).",
      examples: ['ann@example.com'],
    }),
  ),
);
// Checked in the handler (lib/metadata.ts readMetadata): the app's body normalisation would turn a string into {"0": ...} for a t.Record.
const Metadata = t.Unknown({ description: 'Object, free-form, at most 16 KiB and 32 levels deep; commission rules can match on it.' });

export const CreateEventBody = t.Object(
  {
    userId: UserId,
    type: EventType,
    // t.Number, not t.Integer: the app coerces numeric strings into t.Integer fields
    amount: t.Optional(t.Number({ multipleOf: 1, minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'Integer, minor units (e.g. cents).' })),
    currency: t.Optional(Currency),
    occurredAt: t.Optional(OccurredAt),
    metadata: t.Optional(Metadata),
    couponCode: t.Optional(CouponCode),
    customerEmail: CustomerEmail,
  },
);

export const TrackEventBody = t.Object(
  {
    userId: UserId,
    type: EventType,
    value: t.Optional(t.Number({ minimum: 0, description: 'Decimal in MAJOR units (12.5 = 12.50).' })),
    currency: t.Optional(Currency),
    occurredAt: t.Optional(OccurredAt),
    metadata: t.Optional(Metadata),
    couponCode: t.Optional(CouponCode),
    customerEmail: CustomerEmail,
  },
);

/** The most events one POST /v1/events/batch takes. */
export const MAX_BATCH_EVENTS = 1000;

/** One item of POST /v1/events/batch: the body of POST /v1/events plus its Idempotency-Key; unknown fields refused. */
export const BatchEventItem = strictSchema(t.Object({
  ...CreateEventBody.properties,
  idempotencyKey: t.Optional(
    t.String({
      minLength: 1,
      maxLength: 255,
      description: 'As the Idempotency-Key header of POST /v1/events (1-255 visible ASCII characters): a repeat answers the original event.',
      examples: ['order-1042'],
    }),
  ),
}));

// Items are checked one by one in the handler (BatchEventItem), so that one bad item fails alone.
export const BatchEventsBody = t.Object({
  events: t.Array(t.Unknown({ description: 'An event: see BatchEventItem.' }), {
    minItems: 1,
    maxItems: MAX_BATCH_EVENTS,
    description: `1-${MAX_BATCH_EVENTS} events, each shaped like the body of POST /v1/events plus an optional idempotencyKey.`,
  }),
});

export const ListEventsQuery = t.Object({ ...PageQuery });

/**
 * The optional `Idempotency-Key` of both intake routes. The length is checked here; that every
 * character is visible ASCII, by service.ts checkIdempotencyKey (its message says so in words).
 */
export const IdempotencyHeaders = t.Object({
  'idempotency-key': t.Optional(
    t.String({
      minLength: 1,
      maxLength: 255,
      description:
        '1-255 visible ASCII characters (no spaces). A repeated key answers the original event (200) and records nothing; the same key with another body is a 409.',
      examples: ['order-1042'],
    }),
  ),
});

// ---- answers

const AttributionStatus = t.UnionEnum(ATTRIBUTION_STATUSES, {
  description: 'attributed; no_identity: nobody identified that user; no_click: identified, but not through a partner link; outside_window.',
});
const Model = t.UnionEnum(MODELS);

/** An event as recorded (the answer of POST /v1/events). */
export const EventRecord = t.Object({
  id: t.String({ examples: ['evt_01jd8x0000000000000000000a'] }),
  userId: t.String(),
  type: t.String(),
  amount: t.Nullable(t.Number({ multipleOf: 1, minimum: 0, description: 'Integer, minor units (e.g. cents).' })),
  currency: t.Nullable(t.String({ description: 'ISO 4217 code.' })),
  occurredAt: Timestamp,
  createdAt: Timestamp,
  metadata: t.Record(t.String(), t.Unknown()),
});

/** A listed event: the record and how it was attributed. */
export const ListedEvent = t.Composite([
  EventRecord,
  t.Object({
    attribution: t.Object({
      status: AttributionStatus,
      model: t.Nullable(Model, { description: 'The model applied when the event was recorded.' }),
    }),
  }),
]);

export const EventList = listOf('events', ListedEvent);

/** One touch of an attributed event (SPEC section 2, attribution result). */
export const AttributionTouch = t.Object({
  clickId: t.Nullable(t.String(), { description: 'The click credited; null when a promotion code credited the partner.' }),
  couponCode: t.Nullable(t.String(), { description: 'The promotion code credited (as stored); null for a click.' }),
  partnerId: t.String(),
  weight: t.Number({ minimum: 0, maximum: 1, description: '1 for a single touch, fractional for multi-touch.' }),
  attributionId: t.String(),
  commissionId: t.Nullable(t.String(), { description: 'Null when the rules yield no commission for this touch.' }),
  // literals and null, not t.Nullable(t.UnionEnum): the document generator would drop null from the enum
  ruleSource: t.Union([t.Literal('snapshot'), t.Literal('group'), t.Literal('campaign'), t.Null()], {
    description: "Whose rule applied: the partner's commission snapshot, its group's, or the campaign's; null when no rule matched the event.",
  }),
});

/** The attribution result of SPEC section 2: the answer of POST /attribution/events. */
export const AttributionResult = t.Object({
  ok: t.Literal(true),
  eventId: t.String(),
  attribution: t.Object({
    status: AttributionStatus,
    model: Model,
    touches: t.Array(AttributionTouch, { description: 'Empty unless attributed.' }),
  }),
});

/** One result of a batch: the event as POST /v1/events answers it, or that item's own error. */
export const BatchResult = t.Union([EventRecord, t.Object({ error: ErrorResponse })]);

export const BatchAnswer = t.Object({
  results: t.Array(BatchResult, { description: 'One per item, in the order sent.' }),
});

export const EventResponses = {
  batch: { 200: BatchAnswer, ...errors(400, 401, 403, 413) },
  create: { 201: EventRecord, 200: EventRecord, ...errors(400, 401, 403, 409, 413) },
  track: { 201: AttributionResult, 200: AttributionResult, ...errors(400, 401, 403, 409, 413) },
  list: { 200: EventList, ...errors(400, 401, 403) },
};
