// The parts of Stripe's objects the adapter reads. Stripe sends more; these are checked, not trusted.

export type StripeCustomer = { id: string; object: 'customer'; metadata?: Record<string, string> | null; created?: number; email?: string | null };

export type StripeSubscription = {
  id: string;
  object: 'subscription';
  customer: string | { id: string };
  status: string;
  currency?: string;
  created?: number;
  start_date?: number;
  metadata?: Record<string, string> | null;
};

export type StripeInvoice = {
  id: string;
  object: 'invoice';
  customer: string | { id: string } | null;
  amount_paid: number;
  currency: string;
  customer_email?: string | null;
  created?: number;
  status_transitions?: { paid_at?: number | null } | null;
  metadata?: Record<string, string> | null;
  billing_reason?: string | null;
  parent?: { subscription_details?: { subscription?: string | { id: string } | null; metadata?: Record<string, string> | null } | null } | null;
  payments?: { data?: { payment?: { payment_intent?: string | { id: string } | null; charge?: string | { id: string } | null } | null }[] } | null;
  /** Discount ids (`di_…`), or the discounts themselves where the payload carries them expanded. */
  discounts?: (string | StripeDiscount)[] | null;
  // fields of older API versions, still sent by accounts pinned to them
  discount?: StripeDiscount | null;
  charge?: string | { id: string } | null;
  payment_intent?: string | { id: string } | null;
  subscription?: string | { id: string } | null;
};

/** The application of a coupon; `promotion_code` is set when the customer typed a code. */
export type StripeDiscount = {
  id: string;
  object: 'discount';
  promotion_code?: string | { id: string; code?: string } | null;
};

export type StripeCharge = {
  id: string;
  object: 'charge';
  amount: number;
  amount_refunded: number;
  refunded: boolean;
  payment_intent?: string | { id: string } | null;
  invoice?: string | { id: string } | null;
};

export type StripeDispute = {
  id: string;
  object: 'dispute';
  charge: string | { id: string };
  payment_intent?: string | { id: string } | null;
};

/** An expandable field: either the id or the expanded object. */
export function idOf(value: string | { id: string } | null | undefined): string | null {
  if (!value) return null;
  return typeof value === 'string' ? value : value.id ?? null;
}
