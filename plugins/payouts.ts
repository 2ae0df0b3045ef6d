// The interface every payout rail implements: how a payout's money reaches the partner. The core
// makes payouts (status pending), picks each one's rail from the partner's payout method, hands the
// rail its payouts after their transaction commits, and settles each by the rail's answer. Every
// type a rail sees is declared here; this file imports nothing from the core.

/** The rails, by the payout method's `type`. */
export const RAIL_NAMES = ['stripe', 'paypal', 'wise', 'manual'] as const;
export type RailName = (typeof RAIL_NAMES)[number];

/** A committed payout, as handed to its rail. */
export type RailPayout = {
  /** `pay_…`: the idempotency key at the rail, so a repeated call never pays twice. */
  id: string;
  partnerId: string;
  /** ISO 4217, upper case. */
  currency: string;
  /** Minor units. */
  amountMinor: bigint;
  /** Major units as a decimal string, e.g. "12.50". */
  amount: string;
  /** Where it goes, fixed when the payout was made: the receiver's email (paypal, wise) or the Stripe account (stripe). */
  destination: string | null;
  /** PayPal: the sender_batch_id this payout goes out in (the core writes it before the call). */
  batch: string | null;
  /** A line the receiver sees beside the money. */
  note: string;
};

/** What a rail answers for one payout. `answer`: the rail's own words, kept on the payout. */
export type RailOutcome =
  /** Nothing happened yet: an operator pays it (by hand, or by uploading a file). */
  | { status: 'pending' }
  /** The rail took it; its outcome comes later (a webhook, the reconciliation job). */
  | { status: 'processing'; reference: string; answer?: string }
  | { status: 'paid'; reference: string; answer?: string }
  | { status: 'failed'; reason: string; answer?: string };

export interface PayoutRail {
  readonly name: RailName;
  /** Payouts the rail takes in one `send` at most (PayPal: 15,000 items per batch). */
  readonly batchLimit: number;
  /**
   * Starts paying these payouts; answers an outcome for every one of them (by payout id). Safe to
   * call again for the same payouts: the payout id (Stripe) or the batch id (PayPal) is the
   * idempotency key at the rail. Throws only when the rail could not be asked at all (network):
   * the payouts then stay pending and are handed over again.
   */
  send(payouts: RailPayout[]): Promise<Map<string, RailOutcome>>;
}

/** Stripe Connect's onboarding: Express accounts and their links. */
export interface StripeConnect {
  /** Creates an Express account for the partner (`metadata.partnerId`); answers its id. */
  createAccount(input: { partnerId: string; email: string }): Promise<string>;
  /** Answers the URL of Stripe's onboarding for the account. */
  onboardingLink(input: { accountId: string; returnUrl: string; refreshUrl: string }): Promise<string>;
  /** Whether the account can receive payouts (`payouts_enabled`). */
  payoutsEnabled(accountId: string): Promise<boolean>;
}

/** A PayPal payout item's state, as PayPal reports it. */
export type PayPalItem = {
  /** The payout id (our `sender_item_id`). */
  payoutId: string;
  /** PayPal's item id. */
  itemId: string | null;
  /** PayPal's word for it: SUCCESS / SUCCEEDED, FAILED, PENDING, UNCLAIMED, RETURNED, ONHOLD, BLOCKED, REFUNDED, REVERSED, DENIED. */
  status: string;
  /** What it means here: the money arrived, it did not (the payout fails), or not yet. */
  outcome: 'paid' | 'failed' | 'open';
  /** PayPal's words on it (errors.message), when it gave some. */
  message: string | null;
};

/** A verified PayPal webhook: its id, event type and, for payout item events, the item. */
export type PayPalWebhook = { id: string; type: string; item: PayPalItem | null };

export class RailSignatureError extends Error {}

/** PayPal's calls outside a run: webhook verification and reading a batch. */
export interface PayPalApi {
  /** Verifies the webhook through PayPal; throws RailSignatureError when PayPal does not vouch for it. */
  verifyWebhook(rawBody: string, headers: Headers): Promise<PayPalWebhook>;
  /** The items of a batch (`GET /v1/payments/payouts/{batch_id}`). */
  batchItems(batchId: string): Promise<PayPalItem[]>;
}

/** The rails of this installation; a rail whose variables are not set is null. */
export type PayoutRails = {
  manual: PayoutRail;
  wise: PayoutRail;
  /** On with STRIPE_SECRET_KEY. */
  stripe: PayoutRail | null;
  connect: StripeConnect | null;
  /** PayPal's API with PAYPAL_CLIENT_ID and PAYPAL_CLIENT_SECRET; without them a rail that leaves PayPal payouts pending for the upload file. */
  paypal: PayoutRail;
  /** On with PAYPAL_CLIENT_ID and PAYPAL_CLIENT_SECRET. */
  paypalApi: PayPalApi | null;
};
