// What a billing plugin hands the conformance suite (cases.ts): how to sign and post a delivery the
// way its provider does, and its provider's events in their documented shapes. Every plugin runs the
// same cases with its own kit (test/billing/<provider>/conformance.test.ts).

/** An answer of POST /webhooks/<provider>. */
export type Answer = { status: number; body: any };

/** A provider event ready to post (`raw`: exact bytes, for bodies that are not what the provider sends). */
export type Delivery = { body: object } | { raw: string };

export interface ProviderKit {
  /** The URL segment and `events.source`: POST /webhooks/<name>. */
  readonly name: string;
  /** The service environment that mounts the route (its webhook secret). */
  readonly env: Record<string, string>;
  /** A secret that is not the configured one (signatures made with it must be refused). */
  readonly wrongSecret: string;
  /** Whether the signature carries a timestamp the service checks (the clock-skew cases). */
  readonly timestamped: boolean;

  /**
   * Posts `delivery` as the provider does: the exact raw JSON body and its signature header(s),
   * signed with `secrets` (default: the configured one; several = a delivery during secret rotation,
   * when the provider sends one signature per secret) at `at` (unix seconds, default now).
   * `tamper` changes the body after signing.
   */
  deliver(baseUrl: string, delivery: Delivery, options?: { secrets?: string[]; at?: number; tamper?: (raw: string) => string }): Promise<Answer>;
  /** Whether one delivery can carry several signatures (secret rotation); false skips that case. */
  readonly signsWithSeveralSecrets: boolean;
  /** The headers of a delivery with no signature at all. */
  unsignedHeaders(delivery: Delivery): Record<string, string>;

  /** A fresh provider customer id (the provider's own shape: `cus_…`, `ctm_…`, a number…). */
  newCustomerId(): string;
  /** A fresh provider id for a payment (invoice, transaction, order). */
  newPaymentId(): string;

  /** An event that links `customerId` to `userId` (and may record conversions of its own). */
  link(customerId: string, userId: string): Delivery;
  /**
   * A completed payment of `amount` minor units in `currency` (default USD) by `customerId`. With
   * `userId`, the provider's custom data carries it; without, only the customer does.
   */
  payment(input: { id: string; customerId: string; userId?: string; amount: number; currency?: string }): Delivery;
  /** The same provider object as `delivery` under another provider event id; null when the provider has no event ids. */
  redelivered(delivery: Delivery): Delivery | null;
  /**
   * Money back on payment `paymentId` (which was `paid`): `amount` is this refund alone, `total`
   * everything refunded so far including it; the kit reports whichever its provider sends.
   * `n` numbers the refunds of one payment (1, 2, …) for providers that give each its own id.
   */
  refund(input: { paymentId: string; customerId: string; userId?: string; paid: number; amount: number; total: number; n: number; currency?: string }): Delivery;
  /** A chargeback (dispute) of payment `paymentId`; null when the provider sends no dispute event. */
  chargeback(input: { paymentId: string; customerId: string; userId?: string; paid: number; currency?: string }): Delivery | null;
  /** An event type the plugin does not handle. */
  unknown(): Delivery;
  /**
   * Well-signed deliveries whose body is not what the provider documents (wrong types, missing
   * objects, not JSON at all): each must answer 400, or 200 and be ignored, and record nothing.
   */
  malformed(): Delivery[];
}
