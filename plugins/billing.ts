// The interface every billing-provider plugin implements. The core knows nothing provider-specific:
// a plugin verifies a raw webhook request, then maps the provider's event to billing actions, and
// may pay payouts. Every type a plugin sees is declared here; this file imports nothing from the core.

/** A provider event whose signature has been verified. */
export type ProviderEvent = { id: string; type: string; createdAt: Date; object: unknown };

/** What a provider event means for the partner program. */
export type BillingAction =
  /** Remember that this provider customer is this service user (the identify join key). */
  | { kind: 'link-customer'; customerId: string; userId: string }
  /**
   * A conversion event. `userId` is known when the provider object carries it; otherwise the core
   * looks it up from an earlier link-customer.
   */
  | {
      kind: 'conversion';
      /**
       * The provider object this conversion is (invoice, transaction, order, subscription,
       * customer), unique among the provider's objects: prefix the kind when ids are only unique
       * per kind (`orders:123`). The core records one conversion per object, whatever event ids
       * carry it.
       */
      objectId: string;
      customerId: string;
      userId: string | null;
      type: string;
      amount: bigint | null; // minor units of `currency`
      currency: string | null; // ISO 4217, upper case
      occurredAt: Date;
      /** Ids the provider may later refer to when money comes back (invoice, charge, payment intent). */
      references: string[];
      /** The promotion code the customer typed, as the provider reports it (null or absent: none). */
      couponCode?: string | null;
      /** The customer's email, as the provider reports it (null or absent: unknown); for self_referral. */
      customerEmail?: string | null;
      metadata: Record<string, unknown>;
    }
  /**
   * Money came back on the conversion that carries one of `references`. Without `refunded`, all of
   * it: the conversion's commissions are reversed. With it, the core compares what came back with
   * what was paid and reduces each commission in proportion, reversing it once all of it came back.
   */
  | { kind: 'reversal'; references: string[]; reason: 'refund' | 'chargeback'; refunded?: Refunded }
  /** A connected payout account (Stripe Connect) can receive payouts now, or no longer. */
  | { kind: 'payout-account'; accountId: string; payoutsEnabled: boolean };

/** How much of a payment came back (minor units of the payment's currency). */
export type Refunded = {
  /**
   * The provider object the amount belongs to (a charge, a refund, an adjustment, an order). Amounts
   * under one key are totals so far and replace each other (the larger wins, so a late redelivery
   * never shrinks it); amounts under different keys add up.
   */
  key: string;
  amount: bigint;
  /** What was paid, when the provider says it next to the refund; otherwise the conversion's amount. */
  of?: bigint;
};

export class SignatureError extends Error {}

/**
 * Promotion codes made here, mirrored at the provider so customers can use them at checkout (Stripe:
 * a promotion code on the campaign's coupon). A refusal throws AppError 'bad_gateway' (src/lib/errors)
 * saying what the provider answered; the core then changes nothing.
 */
export interface PromotionCodeSync {
  /** Creates the provider's promotion code for the code `id` (use it as the idempotency key); answers the provider's id. */
  create(input: { id: string; code: string; coupon: string }): Promise<string>;
  /** Sets it active (unarchived) or not (archived). */
  setActive(promotionCodeId: string, active: boolean): Promise<void>;
}

export interface BillingPlugin {
  /** The URL segment: the plugin is mounted at POST /webhooks/<name>. */
  readonly name: string;
  /** Whether its webhook route is mounted (POST /webhooks/<name>); otherwise that path is a 404. */
  readonly receivesWebhooks: boolean;
  /** Checks the signature over the exact raw body; throws SignatureError when it does not match. */
  verify(rawBody: string, headers: Headers): Promise<ProviderEvent>;
  /** The actions an event calls for; an empty list means the event is not relevant. */
  map(event: ProviderEvent): BillingAction[];
  /** Mirrors promotion codes at the provider, when it can (optional). */
  promotionCodes?: PromotionCodeSync;
}
