// Request schemas of the webhook management API.
import { t } from 'elysia';
import { invalidField } from '../../lib/errors';
import { PageQuery, QueryEnum } from '../../lib/http';

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
