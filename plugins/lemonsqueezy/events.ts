// One small mapping per Lemon Squeezy event the adapter handles. Each runs on a delivery whose
// attributes verify() has already checked (objects.ts), so none of them can fail.
import type { BillingAction } from '../billing';
import type { LemonSqueezyDelivery, LemonSqueezyOrder, LemonSqueezySubscription, LemonSqueezySubscriptionInvoice, ResourceType } from './objects';

/** A verified delivery, as verify() hands it to map(): the checked body and the user id it names. */
export type LemonSqueezyEvent = { delivery: LemonSqueezyDelivery; userId: string | null };

// Lemon Squeezy's timestamps count whole seconds (their microseconds are zeros): read as the end of
// that second, so that a click made earlier in the same second still comes before the conversion.
const at = (timestamp: string) => new Date(Math.floor(Date.parse(timestamp) / 1000) * 1000 + 999);

/** The object id: Lemon Squeezy's ids are unique per resource type only. */
const objectId = (delivery: LemonSqueezyDelivery) => `${delivery.data.type}:${delivery.data.id}`;

/** The buyer's email (`user_email`, on every resource the adapter maps), when it looks like one. */
function emailOf(attributes: object): string | null {
  const value = (attributes as { user_email?: unknown }).user_email;
  return typeof value === 'string' && value.includes('@') && value.length <= 320 ? value : null;
}

function link(customerId: string, userId: string | null): BillingAction[] {
  return userId ? [{ kind: 'link-customer', customerId, userId }] : [];
}

/** A payment as a conversion (an order or a renewal invoice): its total, currency and time. */
function paid(
  { delivery, userId }: LemonSqueezyEvent,
  customerId: string,
  payment: LemonSqueezyOrder | LemonSqueezySubscriptionInvoice,
  metadata: Record<string, unknown>,
): BillingAction {
  const id = objectId(delivery);
  return {
    kind: 'conversion',
    objectId: id,
    customerId,
    userId,
    type: 'invoice_paid',
    amount: BigInt(payment.total),
    currency: payment.currency.toUpperCase(),
    occurredAt: at(payment.created_at),
    references: [id],
    // the webhook names no discount code (only a link to the order's discount redemptions)
    couponCode: null,
    customerEmail: emailOf(payment),
    metadata,
  };
}

function orderCreated({ delivery, userId }: LemonSqueezyEvent): BillingAction[] {
  const order = delivery.data.attributes as LemonSqueezyOrder;
  const customerId = String(order.customer_id);
  const actions = link(customerId, userId);
  if (order.status !== 'paid' || order.total === 0) return actions;
  actions.push(
    paid({ delivery, userId }, customerId, order, { lemonSqueezyOrderId: delivery.data.id, lemonSqueezyCustomerId: customerId, ...testMode(delivery) }),
  );
  return actions;
}

function subscriptionCreated({ delivery, userId }: LemonSqueezyEvent): BillingAction[] {
  const sub = delivery.data.attributes as LemonSqueezySubscription;
  const customerId = String(sub.customer_id);
  const id = objectId(delivery);
  return [
    ...link(customerId, userId),
    {
      kind: 'conversion',
      objectId: id,
      customerId,
      userId,
      type: sub.status === 'on_trial' ? 'trial_started' : 'subscription_created',
      amount: null,
      currency: null,
      occurredAt: at(sub.created_at),
      references: [id],
      customerEmail: emailOf(sub),
      metadata: {
        lemonSqueezySubscriptionId: delivery.data.id,
        lemonSqueezyCustomerId: customerId,
        ...(sub.order_id ? { lemonSqueezyOrderId: String(sub.order_id) } : {}),
        lemonSqueezyStatus: sub.status,
        ...testMode(delivery),
      },
    },
  ];
}

/**
 * A subscription payment counts only when it renews: the first one (`initial`) is the order that
 * started the subscription, already counted by its order_created.
 */
function subscriptionPaymentSuccess({ delivery, userId }: LemonSqueezyEvent): BillingAction[] {
  const invoice = delivery.data.attributes as LemonSqueezySubscriptionInvoice;
  const customerId = String(invoice.customer_id);
  const actions = link(customerId, userId);
  if (invoice.billing_reason !== 'renewal' || invoice.total === 0) return actions;
  actions.push(
    paid({ delivery, userId }, customerId, invoice, {
      lemonSqueezyInvoiceId: delivery.data.id,
      lemonSqueezySubscriptionId: String(invoice.subscription_id),
      lemonSqueezyCustomerId: customerId,
      billingReason: invoice.billing_reason,
      ...testMode(delivery),
    }),
  );
  return actions;
}

/**
 * Money back on an order or a subscription invoice. `refunded_amount` is everything refunded so far,
 * keyed by the refunded object, so a second partial refund replaces the first amount rather than
 * adding to it; all of it reverses the commissions outright.
 */
function refunded(delivery: LemonSqueezyDelivery, paid: LemonSqueezyOrder | LemonSqueezySubscriptionInvoice): BillingAction[] {
  if (paid.total === 0) return [];
  const id = objectId(delivery);
  const whole = paid.status === 'refunded' || paid.refunded === true;
  const amount = paid.refunded_amount ?? (whole ? paid.total : 0);
  if (amount === 0) return [];
  if (amount >= paid.total) return [{ kind: 'reversal', references: [id], reason: 'refund' }];
  return [{ kind: 'reversal', references: [id], reason: 'refund', refunded: { key: id, amount: BigInt(amount), of: BigInt(paid.total) } }];
}

function orderRefunded({ delivery }: LemonSqueezyEvent): BillingAction[] {
  return refunded(delivery, delivery.data.attributes as LemonSqueezyOrder);
}

/**
 * Only renewals were counted as invoices: the first payment of a subscription was counted as its
 * order, so only a refund of that order (order_refunded) reaches it.
 */
function subscriptionPaymentRefunded({ delivery }: LemonSqueezyEvent): BillingAction[] {
  const invoice = delivery.data.attributes as LemonSqueezySubscriptionInvoice;
  if (invoice.billing_reason !== 'renewal') return [];
  return refunded(delivery, invoice);
}

const testMode = (delivery: LemonSqueezyDelivery) => (delivery.meta.test_mode ? { lemonSqueezyTestMode: true } : {});

type Handler = { resource: ResourceType; map: (event: LemonSqueezyEvent) => BillingAction[] };

/** The events the adapter maps, with the resource type each carries as `data`. */
export const HANDLERS: ReadonlyMap<string, Handler> = new Map([
  ['order_created', { resource: 'orders', map: orderCreated }],
  ['order_refunded', { resource: 'orders', map: orderRefunded }],
  ['subscription_created', { resource: 'subscriptions', map: subscriptionCreated }],
  ['subscription_payment_success', { resource: 'subscription-invoices', map: subscriptionPaymentSuccess }],
  ['subscription_payment_refunded', { resource: 'subscription-invoices', map: subscriptionPaymentRefunded }],
]);
