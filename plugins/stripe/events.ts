// One small mapping per Stripe event type the adapter handles.
import type { BillingAction, ProviderEvent } from '../billing';
import { idOf, type StripeCharge, type StripeCustomer, type StripeDiscount, type StripeDispute, type StripeInvoice, type StripeSubscription } from './objects';
import { storableText } from '../../src/lib/storable';

/** The customer metadata key that carries the service's user id (SPEC section 4). */
export const USER_ID_KEY = 'service_user_id';

// Stripe's timestamps are whole seconds: read as the end of that second, so that a click made
// earlier in the same second still comes before the conversion.
const at = (seconds: number | null | undefined, fallback: Date) => (seconds ? new Date(seconds * 1000 + 999) : fallback);
const emailOf = (value: unknown) => (typeof value === 'string' && value.includes('@') && value.length <= 320 ? value : null);
const compact = (ids: (string | null)[]) => [...new Set(ids.filter((id): id is string => Boolean(id)))];

function customerEvent(event: ProviderEvent, signup: boolean): BillingAction[] {
  const customer = event.object as StripeCustomer;
  const userId = customer.metadata?.[USER_ID_KEY]?.trim();
  if (!userId) return [];
  // a user id the service can store (as identify takes it); anything else is refused whole (400)
  if (typeof userId !== 'string' || userId.length > 255 || !storableText(userId)) {
    throw new TypeError(`metadata.${USER_ID_KEY} must be 1-255 characters of text`);
  }
  const actions: BillingAction[] = [{ kind: 'link-customer', customerId: customer.id, userId }];
  if (signup) {
    actions.push({
      kind: 'conversion',
      objectId: customer.id,
      customerId: customer.id,
      userId,
      type: 'signup',
      amount: null,
      currency: null,
      occurredAt: at(customer.created, event.createdAt),
      references: [customer.id],
      customerEmail: emailOf(customer.email),
      metadata: { stripeCustomerId: customer.id },
    });
  }
  return actions;
}

function subscriptionCreated(event: ProviderEvent): BillingAction[] {
  const sub = event.object as StripeSubscription;
  const customerId = idOf(sub.customer);
  if (!customerId) return [];
  return [
    {
      kind: 'conversion',
      objectId: sub.id,
      customerId,
      userId: null,
      type: sub.status === 'trialing' ? 'trial_started' : 'subscription_created',
      amount: null,
      currency: null,
      occurredAt: at(sub.start_date ?? sub.created, event.createdAt),
      references: [sub.id],
      metadata: { stripeCustomerId: customerId, stripeSubscriptionId: sub.id, stripeStatus: sub.status },
    },
  ];
}

/**
 * The promotion code the customer used on an invoice: its text when the payload carries the
 * promotion code expanded, else its id (`promo_…`), which the core matches against the ids of the
 * codes it synced to Stripe. Discounts listed only by id (`di_…`, as recent API versions send them)
 * say nothing about a code; the older single `discount` field does.
 */
export function promotionCodeOf(invoice: StripeInvoice): string | null {
  const discounts = [...(invoice.discounts ?? []), invoice.discount ?? null].filter(
    (d): d is StripeDiscount => typeof d === 'object' && d !== null && Boolean(d.promotion_code),
  );
  for (const d of discounts) {
    const promo = d.promotion_code!;
    if (typeof promo === 'string') return promo;
    if (typeof promo.code === 'string' && promo.code) return promo.code;
    if (promo.id) return promo.id;
  }
  return null;
}

function invoicePaid(event: ProviderEvent): BillingAction[] {
  const invoice = event.object as StripeInvoice;
  const customerId = idOf(invoice.customer);
  if (!customerId || !Number.isSafeInteger(invoice.amount_paid) || invoice.amount_paid <= 0) return [];
  const payments = invoice.payments?.data ?? [];
  const subscriptionId = idOf(invoice.parent?.subscription_details?.subscription) ?? idOf(invoice.subscription);
  return [
    {
      kind: 'conversion',
      objectId: invoice.id,
      customerId,
      userId: null,
      type: 'invoice_paid',
      customerEmail: emailOf(invoice.customer_email),
      amount: BigInt(invoice.amount_paid),
      currency: invoice.currency.toUpperCase(),
      occurredAt: at(invoice.status_transitions?.paid_at ?? invoice.created, event.createdAt),
      couponCode: promotionCodeOf(invoice),
      references: compact([
        invoice.id,
        idOf(invoice.charge),
        idOf(invoice.payment_intent),
        ...payments.flatMap((p) => [idOf(p.payment?.payment_intent), idOf(p.payment?.charge)]),
      ]),
      metadata: {
        stripeCustomerId: customerId,
        invoiceId: invoice.id,
        ...(subscriptionId ? { stripeSubscriptionId: subscriptionId } : {}),
        ...(invoice.billing_reason ? { billingReason: invoice.billing_reason } : {}),
      },
    },
  ];
}

/**
 * A charge refunded in full or in part: `amount_refunded` is the total so far, keyed by the charge,
 * so a second partial refund of the same charge replaces the first amount rather than adding to it.
 */
function chargeRefunded(event: ProviderEvent): BillingAction[] {
  const charge = event.object as StripeCharge;
  const references = compact([charge.id, idOf(charge.payment_intent), idOf(charge.invoice)]);
  if (!Number.isSafeInteger(charge.amount_refunded) || charge.amount_refunded <= 0) return [];
  if (charge.refunded || !Number.isSafeInteger(charge.amount) || charge.amount <= 0) return [{ kind: 'reversal', references, reason: 'refund' }];
  return [
    { kind: 'reversal', references, reason: 'refund', refunded: { key: charge.id, amount: BigInt(charge.amount_refunded), of: BigInt(charge.amount) } },
  ];
}

function disputeCreated(event: ProviderEvent): BillingAction[] {
  const dispute = event.object as StripeDispute;
  return [{ kind: 'reversal', references: compact([idOf(dispute.charge), idOf(dispute.payment_intent)]), reason: 'chargeback' }];
}

export const HANDLERS: Record<string, (event: ProviderEvent) => BillingAction[]> = {
  'customer.created': (e) => customerEvent(e, true),
  'customer.updated': (e) => customerEvent(e, false),
  'customer.subscription.created': subscriptionCreated,
  'invoice.paid': invoicePaid,
  'charge.refunded': chargeRefunded,
  'charge.dispute.created': disputeCreated,
};
