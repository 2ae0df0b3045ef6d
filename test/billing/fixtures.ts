// Stripe objects in the shapes Stripe sends them (API version 2026-10-28), signed like Stripe does.
import Stripe from 'stripe';

export const WEBHOOK_SECRET = 'whsec_test_partnerd_0123456789abcdef';
const signer = new Stripe('sk_test_unused');
let seq = 0;
const now = () => Math.floor(Date.now() / 1000);

export function stripeEvent(type: string, object: Record<string, unknown>, id = `evt_${Date.now()}_${++seq}`) {
  return {
    id,
    object: 'event',
    api_version: '2026-10-28.endive',
    created: now(),
    data: { object },
    livemode: false,
    pending_webhooks: 1,
    request: { id: `req_${seq}`, idempotency_key: null },
    type,
  };
}

export function customer(id: string, userId: string | null, extra: Record<string, unknown> = {}) {
  return {
    id,
    object: 'customer',
    address: null,
    balance: 0,
    created: now(),
    currency: null,
    default_source: null,
    delinquent: false,
    description: null,
    email: `${id}@example.com`,
    invoice_prefix: id.slice(4, 12).toUpperCase(),
    invoice_settings: { custom_fields: null, default_payment_method: null, footer: null, rendering_options: null },
    livemode: false,
    metadata: userId ? { service_user_id: userId } : {},
    name: 'Customer',
    phone: null,
    preferred_locales: [],
    shipping: null,
    tax_exempt: 'none',
    test_clock: null,
    ...extra,
  };
}

export function subscription(id: string, customerId: string, status: 'trialing' | 'active' | 'incomplete') {
  return {
    id,
    object: 'subscription',
    billing_cycle_anchor: now(),
    cancel_at_period_end: false,
    collection_method: 'charge_automatically',
    created: now(),
    currency: 'usd',
    customer: customerId,
    items: {
      object: 'list',
      data: [{ id: `si_${id}`, object: 'subscription_item', price: { id: 'price_pro', object: 'price', currency: 'usd', unit_amount: 4900 }, quantity: 1 }],
      has_more: false,
    },
    livemode: false,
    metadata: {},
    start_date: now(),
    status,
    trial_end: status === 'trialing' ? now() + 14 * 86400 : null,
    trial_start: status === 'trialing' ? now() : null,
  };
}

export function invoice(id: string, customerId: string, amountPaid: number, opts: { currency?: string; paymentIntent?: string; paidAt?: number; subscription?: string } = {}) {
  return {
    id,
    object: 'invoice',
    account_country: 'US',
    amount_due: amountPaid,
    amount_paid: amountPaid,
    amount_remaining: 0,
    attempt_count: 1,
    attempted: true,
    billing_reason: 'subscription_cycle',
    collection_method: 'charge_automatically',
    created: opts.paidAt ?? now(),
    currency: opts.currency ?? 'usd',
    customer: customerId,
    customer_email: `${customerId}@example.com`,
    livemode: false,
    metadata: {},
    number: `${id.toUpperCase()}-0001`,
    parent: {
      quote_details: null,
      subscription_details: { metadata: {}, subscription: opts.subscription ?? 'sub_test' },
      type: 'subscription_details',
    },
    payments: {
      object: 'list',
      data: opts.paymentIntent
        ? [{ id: `inpay_${id}`, object: 'invoice_payment', amount_paid: amountPaid, currency: opts.currency ?? 'usd', invoice: id, is_default: true, payment: { type: 'payment_intent', payment_intent: opts.paymentIntent }, status: 'paid' }]
        : [],
      has_more: false,
    },
    status: 'paid',
    status_transitions: { finalized_at: opts.paidAt ?? now(), marked_uncollectible_at: null, paid_at: opts.paidAt ?? now(), voided_at: null },
    subtotal: amountPaid,
    total: amountPaid,
  };
}

export function charge(id: string, paymentIntent: string, amount: number, refunded: number) {
  return {
    id,
    object: 'charge',
    amount,
    amount_captured: amount,
    amount_refunded: refunded,
    balance_transaction: `txn_${id}`,
    captured: true,
    created: now(),
    currency: 'usd',
    customer: null,
    disputed: false,
    livemode: false,
    metadata: {},
    paid: true,
    payment_intent: paymentIntent,
    refunded: refunded >= amount,
    status: 'succeeded',
  };
}

export function dispute(id: string, chargeId: string, paymentIntent: string, amount: number) {
  return {
    id,
    object: 'dispute',
    amount,
    charge: chargeId,
    created: now(),
    currency: 'usd',
    is_charge_refundable: false,
    livemode: false,
    metadata: {},
    payment_intent: paymentIntent,
    reason: 'fraudulent',
    status: 'needs_response',
  };
}

/** Posts an event the way Stripe does: exact raw body, Stripe-Signature header (signed at `timestamp`, unix seconds). */
export async function deliver(baseUrl: string, event: object, secret = WEBHOOK_SECRET, timestamp?: number) {
  const payload = JSON.stringify(event);
  const header = await signer.webhooks.generateTestHeaderStringAsync({ payload, secret, timestamp });
  const res = await fetch(`${baseUrl}/webhooks/stripe`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'stripe-signature': header },
    body: payload,
  });
  return { status: res.status, body: (await res.json()) as any };
}
