// Lemon Squeezy webhook bodies in the shapes Lemon Squeezy sends them ({meta, data} with a JSON:API
// resource), signed like Lemon Squeezy does. The attributes are typed by the official SDK's resource
// types, so a misspelt or mistyped field fails the typecheck.
import type { Order, Subscription, SubscriptionInvoice } from '@lemonsqueezy/lemonsqueezy.js';
import { createHmac } from 'node:crypto';

export const SIGNING_SECRET = 'lsq_signing_secret_partnerd_test';

/**
 * The SDK's attributes as they travel in JSON: any field may be left out, enumerations are plain
 * strings (so a fixture can send a value the SDK does not list), and dates are ISO strings.
 */
type Json<T> = { [K in keyof T]?: T[K] extends string ? string : T[K] extends Date | null ? string | null : T[K] };
type OrderAttributes = Json<Order['data']['attributes']>;
type SubscriptionAttributes = Json<Subscription['data']['attributes']>;
type InvoiceAttributes = Json<SubscriptionInvoice['data']['attributes']>;

let seq = 0;
/** A fresh Lemon Squeezy id (positive integers, sent as strings in `data.id`). */
export const nextId = () => 7_000_000 + ++seq * 17 + Math.floor(Math.random() * 17);
const stamp = (date = new Date()) => date.toISOString().replace(/\.\d{3}Z$/, '.000000Z');

export type Body = { meta: Record<string, unknown>; data: { type: string; id: string; attributes: Record<string, unknown> } & Record<string, unknown> };

/** A webhook body: the event name and custom data in `meta`, the resource in `data`. */
export function webhook(eventName: string, type: string, id: number | string, attributes: Record<string, unknown>, customData?: Record<string, unknown>): Body {
  return {
    meta: { test_mode: true, event_name: eventName, webhook_id: 'b1d6c0a5-4cbb-4a1e-9d6b-2f4a1e0c7f51', ...(customData ? { custom_data: customData } : {}) },
    data: {
      type,
      id: String(id),
      attributes,
      relationships: { store: { links: { related: `https://api.lemonsqueezy.com/v1/${type}/${id}/store`, self: `https://api.lemonsqueezy.com/v1/${type}/${id}/relationships/store` } } },
      links: { self: `https://api.lemonsqueezy.com/v1/${type}/${id}` },
    },
  };
}

export const custom = (userId?: string) => (userId === undefined ? undefined : { service_user_id: userId });

export function order(input: { customerId: number; total: number; currency?: string; status?: string; refunded?: number; createdAt?: Date }) {
  const total = input.total;
  const refunded = input.refunded ?? 0;
  return {
    store_id: 41_235,
    customer_id: input.customerId,
    identifier: crypto.randomUUID(),
    order_number: 1000 + seq,
    user_name: 'Dana Customer',
    user_email: `customer-${input.customerId}@example.com`,
    currency: input.currency ?? 'USD',
    currency_rate: '1.00000000',
    subtotal: total,
    discount_total: 0,
    tax: 0,
    total,
    refunded_amount: refunded,
    status: input.status ?? (refunded === 0 ? 'paid' : refunded >= total ? 'refunded' : 'partial_refund'),
    status_formatted: 'Paid',
    refunded: refunded > 0 && refunded >= total,
    refunded_at: refunded > 0 ? stamp() : null,
    total_formatted: `$${(total / 100).toFixed(2)}`,
    created_at: stamp(input.createdAt),
    updated_at: stamp(),
    test_mode: true,
  } satisfies OrderAttributes;
}

export function subscription(input: { customerId: number; orderId?: number; status: string }) {
  return {
    store_id: 41_235,
    customer_id: input.customerId,
    order_id: input.orderId ?? nextId(),
    order_item_id: nextId(),
    product_id: 88_001,
    variant_id: 88_002,
    product_name: 'Pro',
    variant_name: 'Monthly',
    user_name: 'Dana Customer',
    user_email: `customer-${input.customerId}@example.com`,
    status: input.status,
    status_formatted: input.status,
    card_brand: 'visa',
    card_last_four: '4242',
    pause: null,
    cancelled: false,
    trial_ends_at: input.status === 'on_trial' ? stamp(new Date(Date.now() + 14 * 86_400_000)) : null,
    billing_anchor: 24,
    renews_at: stamp(new Date(Date.now() + 30 * 86_400_000)),
    ends_at: null,
    created_at: stamp(),
    updated_at: stamp(),
    test_mode: true,
  } satisfies SubscriptionAttributes;
}

export function subscriptionInvoice(input: {
  customerId: number;
  subscriptionId: number;
  total: number;
  billingReason: string;
  currency?: string;
  refunded?: number;
  createdAt?: Date;
}) {
  const refunded = input.refunded ?? 0;
  return {
    store_id: 41_235,
    subscription_id: input.subscriptionId,
    customer_id: input.customerId,
    user_name: 'Dana Customer',
    user_email: `customer-${input.customerId}@example.com`,
    billing_reason: input.billingReason,
    card_brand: 'visa',
    card_last_four: '4242',
    currency: input.currency ?? 'USD',
    currency_rate: '1.00000000',
    status: refunded === 0 ? 'paid' : refunded >= input.total ? 'refunded' : 'partial_refund',
    status_formatted: 'Paid',
    refunded: refunded > 0 && refunded >= input.total,
    refunded_at: refunded > 0 ? stamp() : null,
    subtotal: input.total,
    discount_total: 0,
    tax: 0,
    tax_inclusive: false,
    total: input.total,
    refunded_amount: refunded,
    created_at: stamp(input.createdAt),
    updated_at: stamp(),
    test_mode: true,
  } satisfies InvoiceAttributes;
}

export const sign = (raw: string, secret = SIGNING_SECRET) => createHmac('sha256', secret).update(raw).digest('hex');

/** Posts a body the way Lemon Squeezy does: the exact raw JSON, X-Event-Name and X-Signature. */
export async function deliver(
  baseUrl: string,
  body: Body | { raw: string },
  options: { secret?: string; tamper?: (raw: string) => string; signature?: string | null } = {},
): Promise<{ status: number; body: any }> {
  const raw = 'raw' in body ? body.raw : JSON.stringify(body);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (!('raw' in body)) headers['x-event-name'] = String(body.meta.event_name);
  const signature = options.signature === undefined ? sign(raw, options.secret) : options.signature;
  if (signature !== null) headers['x-signature'] = signature;
  const res = await fetch(`${baseUrl}/webhooks/lemonsqueezy`, { method: 'POST', headers, body: options.tamper ? options.tamper(raw) : raw });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {}
  return { status: res.status, body: parsed };
}
