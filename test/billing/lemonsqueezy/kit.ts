// The Lemon Squeezy kit of the conformance suite: one HMAC over the raw body (no timestamp, one
// secret per webhook), no event ids, and orders as the payments.
import type { Delivery, ProviderKit } from '../conformance/kit';
import { custom, deliver, nextId, order, SIGNING_SECRET, subscription, webhook, type Body } from './fixtures';

const bodyOf = (delivery: Delivery): Body | { raw: string } => ('raw' in delivery ? delivery : (delivery.body as Body));

export const lemonSqueezyKit: ProviderKit = {
  name: 'lemonsqueezy',
  env: { LEMONSQUEEZY_WEBHOOK_SECRET: SIGNING_SECRET },
  wrongSecret: 'lsq_not_the_signing_secret',
  timestamped: false,
  signsWithSeveralSecrets: false,

  // one secret per webhook: during a rotation Lemon Squeezy signs with the one the webhook has
  deliver: (baseUrl, delivery, options = {}) => deliver(baseUrl, bodyOf(delivery), { secret: options.secrets?.[0], tamper: options.tamper }),
  unsignedHeaders: (delivery) => ({
    'content-type': 'application/json',
    ...('body' in delivery ? { 'x-event-name': String((delivery.body as Body).meta.event_name) } : {}),
  }),

  newCustomerId: () => String(nextId()),
  newPaymentId: () => String(nextId()),

  // the checkout's custom data rides on the subscription the order started
  link: (customerId, userId) => ({
    body: webhook('subscription_created', 'subscriptions', nextId(), subscription({ customerId: Number(customerId), status: 'active' }), custom(userId)),
  }),
  payment: ({ id, customerId, userId, amount, currency }) => ({
    body: webhook('order_created', 'orders', id, order({ customerId: Number(customerId), total: amount, currency }), custom(userId)),
  }),
  // no event ids: a redelivery is the same body, which the core already answers from its key
  redelivered: () => null,
  // order_refunded carries the order with everything refunded so far
  refund: ({ paymentId, customerId, userId, paid, total, currency }) => ({
    body: webhook('order_refunded', 'orders', paymentId, order({ customerId: Number(customerId), total: paid, currency, refunded: total }), custom(userId)),
  }),
  // Lemon Squeezy sends no dispute event (a lost dispute reaches us, if at all, as a refund)
  chargeback: () => null,
  unknown: () => ({
    body: webhook('license_key_created', 'license-keys', nextId(), { store_id: 41_235, customer_id: nextId(), order_id: nextId(), key: '80e15db5-c796-436b-850c-8f9c98a48abe', status: 'inactive' }),
  }),
  malformed: () => {
    const customerId = nextId();
    const paid = (attributes: Record<string, unknown>) => webhook('order_created', 'orders', nextId(), { ...order({ customerId, total: 4900 }), ...attributes }, custom('u_malformed'));
    return [
      { raw: 'not json at all' },
      { raw: '[]' },
      { body: { meta: { event_name: 'order_created' } } },
      { body: paid({ total: '49.00' }) },
      { body: paid({ total: -4900 }) },
      { body: paid({ total: 49.5 }) },
      { body: paid({ currency: 'DOLLARS' }) },
      { body: paid({ currency: 'XYZ' }) },
      { body: paid({ customer_id: null }) },
      { body: paid({ created_at: 'yesterday' }) },
      { body: { ...paid({}), data: { ...paid({}).data, type: 'subscriptions' } } },
      { body: webhook('order_created', 'orders', nextId(), order({ customerId, total: 4900 }), { service_user_id: { nested: true } }) },
      { body: webhook('order_created', 'orders', nextId(), order({ customerId, total: 4900 }), { service_user_id: 'u\u0000nul' }) },
      { body: { ...paid({}), meta: { event_name: 'order_created', custom_data: ['service_user_id'] } } },
      { body: webhook('subscription_payment_success', 'subscription-invoices', nextId(), { ...order({ customerId, total: 4900 }), billing_reason: 'renewal' }) },
    ];
  },
};
