// The parts of Paddle Billing's notification payloads the adapter reads, checked rather than trusted:
// a reader answers null for anything that is not what Paddle documents. Field names are checked at
// compile time against the notification types of Paddle's SDK (types only; nothing of it runs).
import type {
  IAdjustmentNotificationResponse,
  ICustomerNotificationResponse,
  ISubscriptionCreatedNotificationResponse,
  ITotalAdjustmentsNotificationResponse,
  ITransactionDetailsNotificationResponse,
  ITransactionNotificationResponse,
  ITransactionTotalsNotificationResponse,
} from '@paddle/paddle-node-sdk';
import { isKnownCurrency } from '../../src/lib/money';
import { storableText } from '../../src/lib/storable';

/** The custom data key that carries the service's user id (set at checkout or on the customer). */
export const USER_ID_KEY = 'service_user_id';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Reads the fields of a JSON object by names that Paddle's type `T` declares. */
function fieldsOf<T>(value: unknown): (<K extends keyof T & string>(key: K) => unknown) | null {
  if (!isObject(value)) return null;
  return (key) => value[key];
}

/** A Paddle id with its kind's prefix (`ctm_01h…`); anything else is null. */
export function paddleId(value: unknown, prefix: 'ctm' | 'sub' | 'txn' | 'adj' | 'dsc' | 'evt'): string | null {
  return typeof value === 'string' && new RegExp(`^${prefix}_[a-z0-9]{1,64}$`).test(value) ? value : null;
}

/** An amount in minor units as Paddle writes it (a string of digits); negatives, decimals and exponents are refused. */
export function minorUnits(value: unknown): bigint | null {
  return typeof value === 'string' && /^[0-9]{1,18}$/.test(value) ? BigInt(value) : null;
}

/** An ISO 4217 code the service knows, upper case. */
export function currencyCode(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const code = value.toUpperCase();
  return /^[A-Z]{3}$/.test(code) && isKnownCurrency(code) ? code : null;
}

/** An RFC 3339 timestamp with a zone (Paddle writes microseconds; the date keeps milliseconds). */
export function timestamp(value: unknown): Date | null {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/.test(value)) return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

/**
 * `custom_data.service_user_id`, when it is text the service can store as a user id (as identify
 * takes it: 1-255 characters, no NUL, well-formed UTF-16); otherwise null.
 */
export function userIdIn(customData: unknown): string | null {
  if (!isObject(customData)) return null;
  const value = customData[USER_ID_KEY];
  if (typeof value !== 'string') return null;
  const userId = value.trim();
  if (userId.length < 1 || userId.length > 255 || !storableText(userId)) return null;
  return userId;
}

export type PaddleCustomer = { id: string; userId: string | null; createdAt: Date | null };

export function readCustomer(data: unknown): PaddleCustomer | null {
  const field = fieldsOf<ICustomerNotificationResponse>(data);
  const id = paddleId(field?.('id'), 'ctm');
  if (!field || !id) return null;
  return { id, userId: userIdIn(field('custom_data')), createdAt: timestamp(field('created_at')) };
}

export type PaddleSubscription = { id: string; customerId: string; status: string; userId: string | null; startedAt: Date | null };

export function readSubscription(data: unknown): PaddleSubscription | null {
  const field = fieldsOf<ISubscriptionCreatedNotificationResponse>(data);
  const id = paddleId(field?.('id'), 'sub');
  const customerId = paddleId(field?.('customer_id'), 'ctm');
  const status = field?.('status');
  if (!field || !id || !customerId || typeof status !== 'string') return null;
  return {
    id,
    customerId,
    status,
    userId: userIdIn(field('custom_data')),
    startedAt: timestamp(field('started_at')) ?? timestamp(field('created_at')),
  };
}

export type PaddleTransaction = {
  id: string;
  customerId: string;
  subscriptionId: string | null;
  userId: string | null;
  /** `details.totals.total`: what the customer paid, tax included, discounts taken off. */
  total: bigint;
  currency: string;
  discountId: string | null;
  origin: string | null;
};

export function readTransaction(data: unknown): PaddleTransaction | null {
  const field = fieldsOf<ITransactionNotificationResponse>(data);
  const details = fieldsOf<ITransactionDetailsNotificationResponse>(field?.('details'));
  const totals = fieldsOf<ITransactionTotalsNotificationResponse>(details?.('totals'));
  const id = paddleId(field?.('id'), 'txn');
  const customerId = paddleId(field?.('customer_id'), 'ctm');
  const total = minorUnits(totals?.('total'));
  const currency = currencyCode(field?.('currency_code'));
  if (!field || !id || !customerId || total === null || !currency) return null;
  const origin = field('origin');
  return {
    id,
    customerId,
    subscriptionId: paddleId(field('subscription_id'), 'sub'),
    userId: userIdIn(field('custom_data')),
    total,
    currency,
    discountId: paddleId(field('discount_id'), 'dsc'),
    origin: typeof origin === 'string' ? origin : null,
  };
}

export type PaddleAdjustment = {
  id: string;
  transactionId: string;
  /** refund, chargeback, credit, and their reversals and warnings. */
  action: string;
  /** pending_approval, approved, rejected, reversed. */
  status: string;
  /** full or partial. */
  type: string;
  /** `totals.total`: what this adjustment alone gives back. */
  total: bigint;
};

export function readAdjustment(data: unknown): PaddleAdjustment | null {
  const field = fieldsOf<IAdjustmentNotificationResponse>(data);
  const totals = fieldsOf<ITotalAdjustmentsNotificationResponse>(field?.('totals'));
  const id = paddleId(field?.('id'), 'adj');
  const transactionId = paddleId(field?.('transaction_id'), 'txn');
  const [action, status, type] = [field?.('action'), field?.('status'), field?.('type')];
  const total = minorUnits(totals?.('total'));
  if (!field || !id || !transactionId || typeof action !== 'string' || typeof status !== 'string' || typeof type !== 'string' || total === null) {
    return null;
  }
  return { id, transactionId, action, status, type, total };
}
