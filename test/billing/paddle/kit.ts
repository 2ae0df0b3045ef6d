// Paddle Billing notifications in the shapes Paddle documents (checked against the notification
// types of Paddle's SDK), signed as Paddle signs them, and the conformance kit built on them.
import { createHmac, randomBytes } from 'node:crypto';
import type {
  CurrencyCode,
  IAdjustmentNotificationResponse,
  ICustomerNotificationResponse,
  IEventsResponse,
  ISubscriptionCreatedNotificationResponse,
  ITransactionNotificationResponse,
} from '@paddle/paddle-node-sdk';
import type { Answer, Delivery, ProviderKit } from '../conformance/kit';

export const WEBHOOK_SECRET = 'pdl_ntfset_01jtestpartnerd0000000000000_Ab3dE5gH7jK9mN1pQ3sT5vX7zB9dF1hJ';
export const OTHER_SECRET = 'pdl_ntfset_01jtestpartnerdother0000000000_zY8xW6vU4tS2rQ0pO8nM6lK4jI2hG0fE';

/** A Paddle id: its kind's prefix and 26 lower-case letters and digits. */
export function paddleId(prefix: string): string {
  const alphabet = 'abcdefghjkmnpqrstvwxyz0123456789';
  return `${prefix}_${[...randomBytes(26)].map((b) => alphabet[b % alphabet.length]).join('')}`;
}

const iso = (date = new Date()) => date.toISOString().replace('Z', '123Z'); // Paddle writes microseconds

export function notification<T>(eventType: string, data: T, eventId = paddleId('evt')): IEventsResponse<T> {
  return { event_id: eventId, event_type: eventType, occurred_at: iso(), notification_id: paddleId('ntf'), data };
}

export function customer(id: string, userId: string | null): ICustomerNotificationResponse {
  return {
    id,
    name: 'Ada Lovelace',
    email: `${id}@example.com`,
    marketing_consent: false,
    status: 'active',
    custom_data: userId === null ? null : { service_user_id: userId, plan_hint: 'pro' },
    locale: 'en',
    created_at: iso(),
    updated_at: iso(),
    import_meta: null,
  };
}

export function subscription(
  id: string,
  customerId: string,
  status: 'trialing' | 'active',
  opts: { userId?: string; transactionId?: string } = {},
): ISubscriptionCreatedNotificationResponse {
  const now = new Date();
  const renews = new Date(now.getTime() + (status === 'trialing' ? 14 : 30) * 86400_000);
  return {
    id,
    status,
    transaction_id: opts.transactionId ?? paddleId('txn'),
    customer_id: customerId,
    address_id: paddleId('add'),
    business_id: null,
    currency_code: 'USD',
    created_at: iso(now),
    updated_at: iso(now),
    started_at: iso(now),
    first_billed_at: status === 'trialing' ? null : iso(now),
    next_billed_at: iso(renews),
    paused_at: null,
    canceled_at: null,
    discount: null,
    collection_mode: 'automatic',
    billing_details: null,
    current_billing_period: { starts_at: iso(now), ends_at: iso(renews) },
    billing_cycle: { interval: 'month', frequency: 1 },
    scheduled_change: null,
    items: [],
    custom_data: opts.userId ? { service_user_id: opts.userId } : null,
    import_meta: null,
  };
}

export function transaction(input: {
  id: string;
  customerId: string;
  total: string;
  currency?: string;
  userId?: string;
  subscriptionId?: string | null;
  discountId?: string | null;
}): ITransactionNotificationResponse {
  const currency = (input.currency ?? 'USD') as CurrencyCode;
  const now = iso();
  return {
    id: input.id,
    status: 'completed',
    customer_id: input.customerId,
    address_id: paddleId('add'),
    business_id: null,
    custom_data: input.userId ? { service_user_id: input.userId } : null,
    currency_code: currency,
    origin: 'web',
    subscription_id: input.subscriptionId === undefined ? paddleId('sub') : input.subscriptionId,
    invoice_id: paddleId('inv'),
    invoice_number: '325-10566',
    collection_mode: 'automatic',
    discount_id: input.discountId ?? null,
    billing_details: null,
    billing_period: null,
    items: [{ price_id: 'pri_01gsz8x8sawmvhz1pv30nge1ke', quantity: 1 }],
    details: {
      tax_rates_used: [],
      totals: {
        subtotal: input.total,
        discount: '0',
        tax: '0',
        total: input.total,
        credit: '0',
        credit_to_balance: '0',
        balance: '0',
        grand_total: input.total,
        grand_total_tax: '0',
        fee: null,
        earnings: null,
        currency_code: currency,
      },
      line_items: [],
    },
    payments: [
      {
        payment_attempt_id: crypto.randomUUID(),
        stored_payment_method_id: crypto.randomUUID(),
        amount: input.total,
        status: 'captured',
        error_code: null,
        method_details: {
          type: 'card',
          card: { type: 'visa', last4: '4242', expiry_month: 1, expiry_year: 2030, cardholder_name: 'Ada Lovelace' },
          paypal: null,
          south_korea_local_card: null,
          underlying_details: null,
        },
        created_at: now,
        captured_at: now,
      },
    ],
    checkout: { url: 'https://app.example.com/pay?_ptxn=' + input.id },
    created_at: now,
    updated_at: now,
    billed_at: now,
    revised_at: null,
  };
}

export function adjustment(input: {
  id?: string;
  transactionId: string;
  customerId: string;
  action: 'refund' | 'chargeback' | 'credit';
  status: 'pending_approval' | 'approved' | 'rejected' | 'reversed';
  type: 'full' | 'partial';
  total: string;
  currency?: string;
}): IAdjustmentNotificationResponse {
  const currency = (input.currency ?? 'USD') as CurrencyCode;
  return {
    id: input.id ?? paddleId('adj'),
    action: input.action,
    type: input.type,
    transaction_id: input.transactionId,
    subscription_id: null,
    customer_id: input.customerId,
    reason: input.action === 'chargeback' ? 'chargeback' : 'requested by customer',
    credit_applied_to_balance: false,
    currency_code: currency,
    status: input.status,
    items: [],
    totals: { subtotal: input.total, tax: '0', total: input.total, fee: '0', earnings: '0', currency_code: currency, retained_fee: '0' },
    payout_totals: null,
    created_at: iso(),
    updated_at: iso(),
  };
}

/** The Paddle-Signature header of `raw` signed at `ts` with each secret (one h1 each, as during rotation). */
export function signature(raw: string, secrets: string[], ts = Math.floor(Date.now() / 1000)): string {
  const h1 = secrets.map((secret) => `h1=${createHmac('sha256', secret).update(`${ts}:${raw}`).digest('hex')}`);
  return [`ts=${ts}`, ...h1].join(';');
}

const rawOf = (delivery: Delivery) => ('raw' in delivery ? delivery.raw : JSON.stringify(delivery.body));

export async function post(baseUrl: string, raw: string, headers: Record<string, string>): Promise<Answer> {
  const res = await fetch(`${baseUrl}/webhooks/paddle`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: raw });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** Posts a notification the way Paddle does: the exact raw body and its Paddle-Signature. */
export function deliver(baseUrl: string, delivery: Delivery, options: { secrets?: string[]; at?: number; tamper?: (raw: string) => string } = {}) {
  const raw = rawOf(delivery);
  const header = signature(raw, options.secrets ?? [WEBHOOK_SECRET], options.at);
  return post(baseUrl, options.tamper ? options.tamper(raw) : raw, { 'paddle-signature': header });
}

export const paddleKit: ProviderKit = {
  name: 'paddle',
  env: { PADDLE_WEBHOOK_SECRET: WEBHOOK_SECRET },
  wrongSecret: OTHER_SECRET,
  timestamped: true,
  signsWithSeveralSecrets: true,
  deliver,
  unsignedHeaders: () => ({ 'content-type': 'application/json' }),
  newCustomerId: () => paddleId('ctm'),
  newPaymentId: () => paddleId('txn'),
  link: (customerId, userId) => ({ body: notification('customer.updated', customer(customerId, userId)) }),
  payment: ({ id, customerId, userId, amount, currency }) => ({
    body: notification('transaction.completed', transaction({ id, customerId, userId, total: String(amount), currency })),
  }),
  redelivered(delivery) {
    if (!('body' in delivery)) return null;
    const body = delivery.body as IEventsResponse<unknown>;
    return { body: { ...body, event_id: paddleId('evt'), notification_id: paddleId('ntf') } };
  },
  // a refund is an adjustment of its own; `total` is not reported (Paddle gives each refund alone)
  refund: ({ paymentId, customerId, paid, amount, n, currency }) => ({
    body: notification(
      'adjustment.updated',
      adjustment({
        id: `adj_${paymentId.slice(4, 28)}r${n}`,
        transactionId: paymentId,
        customerId,
        action: 'refund',
        status: 'approved',
        type: n === 1 && amount === paid ? 'full' : 'partial',
        total: String(amount),
        currency,
      }),
    ),
  }),
  chargeback: ({ paymentId, customerId, paid, currency }) => ({
    body: notification(
      'adjustment.created',
      adjustment({ transactionId: paymentId, customerId, action: 'chargeback', status: 'approved', type: 'full', total: String(paid), currency }),
    ),
  }),
  unknown: () => ({ body: notification('address.created', { id: paddleId('add'), customer_id: paddleId('ctm'), country_code: 'US', status: 'active' }) }),
  malformed() {
    const customerId = paddleId('ctm');
    const paid = (total: unknown, extra: Record<string, unknown> = {}) =>
      notification('transaction.completed', {
        ...transaction({ id: paddleId('txn'), customerId, total: '1000', userId: 'u_malformed' }),
        details: { totals: { total, currency_code: 'USD' } },
        ...extra,
      });
    return [
      { raw: 'not json at all' },
      { raw: '[1, 2, 3]' },
      { body: { event_type: 'transaction.completed', occurred_at: iso(), data: {} } },
      { body: { ...notification('transaction.completed', {}), occurred_at: 'yesterday' } },
      { body: { ...notification('transaction.completed', {}), data: [] } },
      { body: paid('12.50') },
      { body: paid('-1000') },
      { body: paid(1000) },
      { body: paid('1e3') },
      { body: paid('1000', { currency_code: 'XXQ' }) },
      { body: paid('1000', { id: 42 }) },
      { body: paid('1000', { customer_id: null }) },
      { body: notification('adjustment.updated', { ...adjustment({ transactionId: paddleId('txn'), customerId, action: 'refund', status: 'approved', type: 'partial', total: '100' }), totals: null }) },
      { body: notification('customer.created', { id: 'cus_not_paddle', custom_data: { service_user_id: 'u_malformed' } }) },
      { body: notification('subscription.created', 'a string') },
    ];
  },
};
