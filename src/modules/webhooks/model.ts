// Request and response schemas of the webhook management API.
import { Type, type TUnsafe } from '@sinclair/typebox';
import { t } from 'elysia';
import { invalidField } from '../../lib/errors';
import { errors, listOf, PageQuery, QueryEnum, Timestamp } from '../../lib/http';

/** Longest subscriber URL, counted in its stored (percent-encoded) form. */
export const MAX_URL_LENGTH = 2048;

const Url = t.String({ minLength: 1, maxLength: MAX_URL_LENGTH, description: 'HTTPS subscriber URL.' });
const Events = t.Array(t.String({ minLength: 1, maxLength: 64 }), {
  minItems: 1,
  maxItems: 50,
  description: 'Event types of SPEC section 6, or ["*"] for all of them.',
});
const Label = t.String({ maxLength: 200 });

export const CreateEndpointBody = t.Object({ url: Url, events: Events, label: t.Optional(t.Nullable(Label)) });

export const UpdateEndpointBody = t.Object({
  url: t.Optional(Url),
  events: t.Optional(Events),
  label: t.Optional(t.Nullable(Label)),
  active: t.Optional(t.Boolean()),
});

export const EndpointParams = t.Object({ id: t.String({ maxLength: 64 }) });
export const DeliveryParams = t.Object({ id: t.String({ maxLength: 64 }), deliveryId: t.String({ maxLength: 64 }) });

export const ListEndpointsQuery = t.Object({
  active: t.Optional(t.String({ maxLength: 5, description: 'true or false' })),
  ...PageQuery,
});

export const ListDeliveriesQuery = t.Object({
  status: QueryEnum(['pending', 'succeeded', 'failed']),
  event: t.Optional(t.String({ maxLength: 64 })),
  ...PageQuery,
});

export const DeleteQuery = t.Object({ hard: t.Optional(t.String({ maxLength: 5, description: '1 (or true) deletes for good' })) });

/** A yes/no query parameter: true or false, or 1 or 0 (what `?hard=1` users type). */
export function queryFlag(field: string, value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === '1' || value === 'true') return true;
  if (value === '0' || value === 'false') return false;
  throw invalidField(field, 'must be true or false (or 1 / 0)', 'invalid_query');
}

export const TestQuery = t.Object({ event: t.Optional(t.String({ maxLength: 64 })) });

// ---- answers

// TypeBox's integer, not Elysia's t.Integer (which also admits numeric strings, for requests)
const Int = Type.Integer;

/**
 * One of `values` or null. Not t.Nullable(t.UnionEnum(...)): the document generator turns that into
 * a `type: [string, null]` whose enum leaves null out. No `default` either (t.UnionEnum adds one).
 */
function NullableEnum<const T extends readonly [string, ...string[]]>(values: T, options: { description?: string } = {}) {
  // t.UnionEnum checks null members at run time; its type parameter only admits strings and numbers
  const { default: _first, ...schema } = t.UnionEnum([...values, null] as unknown as T, options);
  return schema as unknown as TUnsafe<T[number] | null>;
}

/** A registered endpoint (never its secret, which only the create call answers). */
export const EndpointRecord = t.Object({
  id: t.String({ examples: ['whe_01jd8x0000000000000000000a'] }),
  url: t.String(),
  events: t.Array(t.String(), { description: 'The event types it receives, or ["*"] for all of them.' }),
  active: t.Boolean({ description: 'false: deactivated (soft-deleted); it receives nothing.' }),
  label: t.Nullable(t.String()),
  createdAt: Timestamp,
});

export const CreatedEndpoint = t.Object({
  endpoint: EndpointRecord,
  secret: t.String({ description: 'The signing secret (`whsec_…`): shown here once, never again.', examples: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'] }),
});

/** The answer of a secret rotation: the endpoint and its new secret, shown only here. */
export const RotatedSecret = t.Object({
  endpoint: EndpointRecord,
  secret: t.String({
    description: 'The new signing secret (`whsec_…`): shown here once. It signs from the next delivery on; for 24 h the old secret signs too (a second `v1,` entry in webhook-signature), so receivers can switch without a gap.',
    examples: ['whsec_3m5R0tAtEdSeCrEtExAmPlE0000000000000000='],
  }),
});

export const EndpointList = listOf('endpoints', EndpointRecord);

/** One delivery attempt of one envelope to one endpoint (DESIGN "Webhooks"). */
export const DeliveryRecord = t.Object({
  id: t.String({ examples: ['evt_01jd8x0000000000000000000b'] }),
  endpointId: t.String(),
  eventId: t.String({ description: 'The envelope id (the same for every attempt of the event).' }),
  event: t.String({ examples: ['commission.accrued'] }),
  status: t.UnionEnum(['pending', 'succeeded', 'failed']),
  attempt: Int({ minimum: 1 }),
  responseStatus: t.Nullable(Int()),
  responseBody: t.Nullable(t.String({ description: 'The first 2 KiB of what the endpoint answered.' })),
  error: NullableEnum(['timeout', 'network', 'http_status', 'blocked']),
  durationMs: t.Nullable(Int({ minimum: 0 })),
  createdAt: Timestamp,
  completedAt: t.Nullable(Timestamp),
  retryOf: t.Nullable(t.String({ description: 'The delivery a manual or automatic retry repeats.' })),
  nextAttemptAt: t.Nullable(Timestamp, { description: 'When a pending delivery is due (automatic retries wait here); null once done.' }),
});

export const DeliveryList = listOf('deliveries', DeliveryRecord);

/** The answer of DELETE ?hard=1: the endpoint and its log are gone. */
const NoContent = t.Void({ description: 'Deleted for good (hard=1): no body.' });

/** The answer of each webhook management route: its success schema and the errors it can give. */
export const WebhookResponses = {
  create: { 201: CreatedEndpoint, ...errors(400, 401, 403, 413) },
  list: { 200: EndpointList, ...errors(400, 401, 403) },
  get: { 200: EndpointRecord, ...errors(400, 401, 403, 404) },
  update: { 200: EndpointRecord, ...errors(400, 401, 403, 404, 413) },
  delete: { 200: EndpointRecord, 204: NoContent, ...errors(400, 401, 403, 404, 413) },
  deliveries: { 200: DeliveryList, ...errors(400, 401, 403, 404) },
  delivery: { 200: DeliveryRecord, ...errors(400, 401, 403, 404) },
  test: { 200: DeliveryRecord, ...errors(400, 401, 403, 404, 413) },
  retry: { 200: DeliveryRecord, ...errors(400, 401, 403, 404, 409, 413) },
  rotate: { 200: RotatedSecret, ...errors(400, 401, 403, 404, 413) },
};
