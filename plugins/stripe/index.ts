// The Stripe adapter: verifies Stripe's signature on the raw body, maps Stripe events to billing
// actions (one small function per event type in events.ts), pays partners through Connect, and
// mirrors promotion codes as Stripe promotion codes. One API client for all of it.
import Stripe from 'stripe';
import type { Sql } from '../../src/db';
import { SignatureError, type BillingPlugin, type ProviderEvent } from '../billing';
import { promotionCodeSync } from './codes';
import { HANDLERS } from './events';

export type StripeOptions = {
  /** Mounts POST /webhooks/stripe when set. */
  webhookSecret?: string;
  /** Enables Connect transfers and the promotion code sync when set. */
  secretKey?: string;
  /** Another API address (a local fake in tests, or stripe-mock); Stripe's own when unset. */
  apiUrl?: string;
  sql: Sql;
};

export function stripeClient(secretKey: string, apiUrl?: string): Stripe {
  if (!apiUrl) return new Stripe(secretKey, { maxNetworkRetries: 2 });
  const url = new URL(apiUrl);
  return new Stripe(secretKey, {
    host: url.hostname,
    port: Number(url.port || (url.protocol === 'https:' ? 443 : 80)),
    protocol: url.protocol === 'http:' ? 'http' : 'https',
    maxNetworkRetries: 0,
  });
}

/** How far a signature's timestamp may be from the server clock, either way (Stripe's default). */
export const SIGNATURE_TOLERANCE_S = 300;

/**
 * The `t=` of a Stripe-Signature header, read as the stripe package reads it (the last one wins).
 * The package refuses a timestamp older than the tolerance but accepts any in the future, which
 * would let a delivery signed ahead of time be replayed for as long as that lasts.
 */
function signedAt(header: string): number {
  let seconds = Number.NaN;
  for (const item of header.split(',')) {
    const [key, value] = item.split('=');
    if (key === 't') seconds = Number.parseInt(value ?? '', 10);
  }
  return seconds;
}

export function createStripePlugin(options: StripeOptions): BillingPlugin {
  // signature checks need no API key; a placeholder keeps the client happy when none is set
  const client = stripeClient(options.secretKey ?? 'sk_unset', options.apiUrl);
  return {
    name: 'stripe',
    receivesWebhooks: Boolean(options.webhookSecret),
    async verify(rawBody, headers) {
      if (!options.webhookSecret) throw new SignatureError('STRIPE_WEBHOOK_SECRET is not set');
      const signature = headers.get('stripe-signature');
      if (!signature) throw new SignatureError('missing Stripe-Signature header');
      let event: Stripe.Event;
      try {
        // only the async helper works under Bun (it uses Web Crypto)
        event = await client.webhooks.constructEventAsync(rawBody, signature, options.webhookSecret, SIGNATURE_TOLERANCE_S);
      } catch (error) {
        throw new SignatureError(error instanceof Error ? error.message : 'signature mismatch');
      }
      const timestamp = signedAt(signature);
      if (!Number.isFinite(timestamp)) throw new SignatureError('timestamp is not a number');
      if (timestamp * 1000 - Date.now() > SIGNATURE_TOLERANCE_S * 1000) {
        throw new SignatureError(`timestamp more than ${SIGNATURE_TOLERANCE_S} s in the future`);
      }
      const created = Number.isSafeInteger(event.created) ? new Date(event.created * 1000 + 999) : new Date();
      return { id: event.id, type: event.type, createdAt: created, object: event.data?.object ?? null };
    },
    map(event: ProviderEvent) {
      // own keys only: an event type such as `constructor` is not a handler
      return Object.hasOwn(HANDLERS, event.type) ? HANDLERS[event.type]!(event) : [];
    },
    promotionCodes: options.secretKey ? promotionCodeSync(client) : undefined,
  };
}
