// Request schemas of the event intake: the /v1 form (minor units) and the attribution form (major units).
import { t } from 'elysia';
import { PageQuery } from '../../lib/http';

const UserId = t.String({ minLength: 1, maxLength: 255, description: 'The id the browser client passed to identify.' });
const EventType = t.String({ minLength: 1, maxLength: 100, description: 'signup, trial_started, subscription_created, invoice_paid, or a custom name.' });
const Currency = t.String({ minLength: 1, maxLength: 10, description: 'ISO 4217 code, upper case; required together with the amount.' });
const OccurredAt = t.String({ maxLength: 40, description: 'ISO 8601 timestamp; defaults to server time.' });
const Metadata = t.Record(t.String({ maxLength: 100 }), t.Unknown(), { description: 'Free-form; commission rules can match on it.' });

export const CreateEventBody = t.Object(
  {
    userId: UserId,
    type: EventType,
    amount: t.Optional(t.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'Minor units (e.g. cents).' })),
    currency: t.Optional(Currency),
    occurredAt: t.Optional(OccurredAt),
    metadata: t.Optional(Metadata),
  },
  { additionalProperties: false },
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
  { additionalProperties: false },
);

export const ListEventsQuery = t.Object({ ...PageQuery });
