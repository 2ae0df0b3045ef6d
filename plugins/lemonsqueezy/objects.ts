// The parts of Lemon Squeezy's webhook bodies the adapter reads. Lemon Squeezy sends more; these are
// checked against the schemas below before anything is mapped, not trusted.
import { Type as T, type Static, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { AppError } from '../../src/lib/errors';
import { isKnownCurrency } from '../../src/lib/money';

/** Lemon Squeezy's ids are positive integers: numbers inside attributes, strings as `data.id`. */
const NumericId = T.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
/** Integer minor units ("cents" in Lemon Squeezy's words) of the object's currency. */
const Minor = T.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER });
const Currency = T.String({ pattern: '^[A-Za-z]{3}$' });
/** ISO 8601 as Lemon Squeezy writes it: `2026-11-24T02:38:00.000000Z`. */
const Timestamp = T.String({ maxLength: 40, pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+(Z|[+-][0-9]{2}:?[0-9]{2})$' });

/** `{meta, data}`: one JSON:API resource plus what the webhook adds. */
const Delivery = T.Object({
  meta: T.Object({
    event_name: T.String({ pattern: '^[a-z0-9_.-]{1,100}$' }),
    /** Whatever the checkout passed as `checkout_data.custom`; absent without it. */
    custom_data: T.Optional(T.Union([T.Record(T.String(), T.Unknown()), T.Null()])),
    test_mode: T.Optional(T.Boolean()),
  }),
  data: T.Object({
    type: T.String({ pattern: '^[a-z-]{1,64}$' }),
    id: T.String({ pattern: '^[0-9A-Za-z_-]{1,64}$' }),
    attributes: T.Record(T.String(), T.Unknown()),
  }),
});
export type LemonSqueezyDelivery = Static<typeof Delivery>;

/** What an order and a subscription invoice both say of the money: paid, refunded, when. */
const Payment = {
  total: Minor,
  currency: Currency,
  /** Everything refunded so far (absent from payloads of older API versions). */
  refunded_amount: T.Optional(Minor),
  refunded: T.Optional(T.Boolean()),
  created_at: Timestamp,
};

const Order = T.Object({
  customer_id: NumericId,
  /** `pending`, `failed`, `paid`, `refunded`, `partial_refund`. */
  status: T.String({ maxLength: 40 }),
  ...Payment,
});
export type LemonSqueezyOrder = Static<typeof Order>;

const Subscription = T.Object({
  customer_id: NumericId,
  order_id: T.Optional(NumericId),
  /** `on_trial`, `active`, `paused`, `past_due`, `unpaid`, `cancelled`, `expired`. */
  status: T.String({ maxLength: 40 }),
  created_at: Timestamp,
});
export type LemonSqueezySubscription = Static<typeof Subscription>;

const SubscriptionInvoice = T.Object({
  customer_id: NumericId,
  subscription_id: NumericId,
  /** `initial` (the subscription's first payment, also an order) or `renewal`; `updated` for plan changes. */
  billing_reason: T.String({ maxLength: 40 }),
  status: T.String({ maxLength: 40 }),
  ...Payment,
});
export type LemonSqueezySubscriptionInvoice = Static<typeof SubscriptionInvoice>;

/** The attributes of each resource type the adapter maps, by `data.type`. */
export const RESOURCES = { orders: Order, subscriptions: Subscription, 'subscription-invoices': SubscriptionInvoice } as const;
export type ResourceType = keyof typeof RESOURCES;

/** A well-signed body that is not what Lemon Squeezy documents: a 400 naming the field. */
export const malformed = (field: string, message: string) =>
  new AppError('invalid_body', `malformed Lemon Squeezy event: ${field}: ${message}`, [{ field, message }]);

const problem = (message: string) => message.charAt(0).toLowerCase() + message.slice(1);

function check<S extends TSchema>(schema: S, value: unknown, at: string): Static<S> {
  const first = Value.Errors(schema, value).First();
  if (first) throw malformed([at, ...first.path.split('/').filter(Boolean)].filter(Boolean).join('.') || '(body)', problem(first.message));
  return value as Static<S>;
}

/** The envelope of a verified body; a body that is not one is a 400 naming the field. */
export function readDelivery(raw: string): LemonSqueezyDelivery {
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    throw malformed('(body)', 'must be JSON');
  }
  return check(Delivery, body, '');
}

/** The attributes of a resource the adapter maps, checked field by field (400 naming the field). */
export function readAttributes<K extends ResourceType>(type: K, attributes: unknown): Static<(typeof RESOURCES)[K]> {
  const checked = check(RESOURCES[type] as TSchema, attributes, 'data.attributes') as Static<(typeof RESOURCES)[K]>;
  if ('currency' in checked && !isKnownCurrency(checked.currency.toUpperCase())) {
    throw malformed('data.attributes.currency', 'must be an ISO 4217 code');
  }
  if (Number.isNaN(Date.parse(checked.created_at))) throw malformed('data.attributes.created_at', 'must be a timestamp');
  return checked;
}

/** The key under which the checkout passes the service's user id (`checkout_data.custom`). */
export const USER_ID_KEY = 'service_user_id';

/**
 * The user id in the delivery's custom data: a string (or an integer, which checkouts often pass)
 * of at most 255 characters without control characters; null when absent or blank.
 */
export function userIdOf(delivery: LemonSqueezyDelivery): string | null {
  const value = delivery.meta.custom_data?.[USER_ID_KEY];
  if (value === undefined || value === null) return null;
  const text = typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : typeof value === 'string' ? value.trim() : null;
  if (text === '') return null;
  if (text === null || text.length > 255 || /[\u0000-\u001f\u007f]/.test(text)) {
    throw malformed(`meta.custom_data.${USER_ID_KEY}`, 'must be 1-255 characters without control characters');
  }
  return text;
}
