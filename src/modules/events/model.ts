// Request schemas of the event intake: the /v1 form (minor units) and the attribution form (major units).
import { t } from 'elysia';
import { PageQuery } from '../../lib/http';

const UserId = t.String({ minLength: 1, maxLength: 255, description: 'The id the browser client passed to identify.' });
const EventType = t.String({ minLength: 1, maxLength: 100, description: 'signup, trial_started, subscription_created, invoice_paid, or a custom name.' });
const Currency = t.String({ minLength: 1, maxLength: 10, description: 'ISO 4217 code, upper case; required together with the amount.' });
const OccurredAt = t.String({ maxLength: 40, description: 'ISO 8601 timestamp; defaults to server time.' });
// Checked in the handler (isMetadata): the app's body normalisation would turn a string into {"0": ...} for a t.Record.
const Metadata = t.Unknown({ description: 'Object, free-form; commission rules can match on it.' });

export const CreateEventBody = t.Object(
  {
    userId: UserId,
    type: EventType,
    // t.Number, not t.Integer: the app coerces numeric strings into t.Integer fields
    amount: t.Optional(t.Number({ multipleOf: 1, minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'Integer, minor units (e.g. cents).' })),
    currency: t.Optional(Currency),
    occurredAt: t.Optional(OccurredAt),
    metadata: t.Optional(Metadata),
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
  },
);

export const ListEventsQuery = t.Object({ ...PageQuery });

/** Metadata must be a plain JSON object (not an array, not null). */
export function isMetadata(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
