// One small mapping per Paddle Billing event type the adapter handles. A payload that is not what
// Paddle documents maps to nothing (acknowledged and ignored: Paddle would only resend the same bytes).
import type { BillingAction, ProviderEvent } from '../billing';
import { readAdjustment, readCustomer, readSubscription, readTransaction } from './objects';

const compact = (ids: (string | null)[]) => [...new Set(ids.filter((id): id is string => Boolean(id)))];

/**
 * The user a payment or subscription names in its custom data (set at checkout) is also its
 * customer's user: checkout creates Paddle customers without custom data, so this is how most
 * customers get linked, and how their earlier events are replayed.
 */
const linkFrom = (customerId: string, userId: string | null): BillingAction[] => (userId ? [{ kind: 'link-customer', customerId, userId }] : []);

function customerEvent(event: ProviderEvent, signup: boolean): BillingAction[] {
  const customer = readCustomer(event.object);
  if (!customer?.userId) return [];
  const actions: BillingAction[] = [{ kind: 'link-customer', customerId: customer.id, userId: customer.userId }];
  if (signup) {
    actions.push({
      kind: 'conversion',
      objectId: customer.id,
      customerId: customer.id,
      userId: customer.userId,
      type: 'signup',
      amount: null,
      currency: null,
      occurredAt: customer.createdAt ?? event.createdAt,
      references: [customer.id],
      metadata: { paddleCustomerId: customer.id },
    });
  }
  return actions;
}

function subscriptionCreated(event: ProviderEvent): BillingAction[] {
  const sub = readSubscription(event.object);
  if (!sub) return [];
  return [
    ...linkFrom(sub.customerId, sub.userId),
    {
      kind: 'conversion',
      objectId: sub.id,
      customerId: sub.customerId,
      userId: sub.userId,
      type: sub.status === 'trialing' ? 'trial_started' : 'subscription_created',
      amount: null,
      currency: null,
      occurredAt: sub.startedAt ?? event.createdAt,
      references: [sub.id],
      metadata: { paddleCustomerId: sub.customerId, paddleSubscriptionId: sub.id, paddleStatus: sub.status },
    },
  ];
}

/** A completed transaction is a payment; zero totals (free trials, payment method changes) are not. */
function transactionCompleted(event: ProviderEvent): BillingAction[] {
  const txn = readTransaction(event.object);
  if (!txn || txn.total === 0n) return [];
  return [
    ...linkFrom(txn.customerId, txn.userId),
    {
      kind: 'conversion',
      objectId: txn.id,
      customerId: txn.customerId,
      userId: txn.userId,
      type: 'invoice_paid',
      amount: txn.total,
      currency: txn.currency,
      occurredAt: event.createdAt,
      references: compact([txn.id, txn.subscriptionId]),
      // Paddle names the discount (dsc_…) on the transaction, never the code the customer typed
      couponCode: null,
      metadata: {
        paddleCustomerId: txn.customerId,
        paddleTransactionId: txn.id,
        ...(txn.subscriptionId ? { paddleSubscriptionId: txn.subscriptionId } : {}),
        ...(txn.discountId ? { paddleDiscountId: txn.discountId } : {}),
        ...(txn.origin ? { paddleOrigin: txn.origin } : {}),
      },
    },
  ];
}

/**
 * Money back on a transaction. Refunds count once approved (a pending one may still be rejected);
 * chargebacks at once, unless Paddle rejected them. A full refund gives everything back; a partial
 * one gives back `totals.total` of this adjustment, keyed by the adjustment, so several add up and
 * the created and updated events of one adjustment count once.
 */
function adjustment(event: ProviderEvent): BillingAction[] {
  const adj = readAdjustment(event.object);
  if (!adj) return [];
  const references = [adj.transactionId];
  if (adj.action === 'chargeback' && adj.status !== 'rejected') return [{ kind: 'reversal', references, reason: 'chargeback' }];
  if (adj.action !== 'refund' || adj.status !== 'approved') return [];
  if (adj.type === 'full') return [{ kind: 'reversal', references, reason: 'refund' }];
  if (adj.total === 0n) return [];
  return [{ kind: 'reversal', references, reason: 'refund', refunded: { key: adj.id, amount: adj.total } }];
}

export const HANDLERS: Record<string, (event: ProviderEvent) => BillingAction[]> = {
  'customer.created': (e) => customerEvent(e, true),
  'customer.updated': (e) => customerEvent(e, false),
  'subscription.created': subscriptionCreated,
  'transaction.completed': transactionCompleted,
  'adjustment.created': adjustment,
  'adjustment.updated': adjustment,
};
