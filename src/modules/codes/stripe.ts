// The optional sync of promotion codes to Stripe (STRIPE_SECRET_KEY set): a code made here becomes a
// Stripe promotion code on its campaign's coupon, so customers can use it at checkout at once, and
// archiving it here deactivates it there.
import Stripe from 'stripe';
import type { Config } from '../../config';
import { AppError } from '../../lib/errors';

export type CodeSync = {
  /** Creates the Stripe promotion code; answers its id (`promo_…`). */
  create(input: { id: string; code: string; coupon: string }): Promise<string>;
  /** Sets it active (unarchived) or not (archived). */
  setActive(promotionCodeId: string, active: boolean): Promise<void>;
};

/** The sync, or null without STRIPE_SECRET_KEY (codes then live here only). */
export function codeSync(config: Pick<Config, 'stripeSecretKey' | 'stripeApiUrl'>): CodeSync | null {
  if (!config.stripeSecretKey) return null;
  const client = stripeApi(config.stripeSecretKey, config.stripeApiUrl);
  return {
    async create({ id, code, coupon }) {
      try {
        // the code's id as idempotency key: a retried call never makes two Stripe codes
        const promo = await client.promotionCodes.create(
          { promotion: { type: 'coupon', coupon }, code, metadata: { partnerd_code_id: id } },
          { idempotencyKey: `partnerd-code-${id}` },
        );
        return promo.id;
      } catch (error) {
        throw stripeRefused(error, 'create the promotion code');
      }
    },
    async setActive(promotionCodeId, active) {
      try {
        await client.promotionCodes.update(promotionCodeId, { active });
      } catch (error) {
        throw stripeRefused(error, active ? 'reactivate the promotion code' : 'deactivate the promotion code');
      }
    },
  };
}

function stripeApi(secretKey: string, apiUrl?: string): Stripe {
  if (!apiUrl) return new Stripe(secretKey, { maxNetworkRetries: 2, timeout: 15_000 });
  const url = new URL(apiUrl);
  return new Stripe(secretKey, {
    host: url.hostname,
    port: Number(url.port || (url.protocol === 'https:' ? 443 : 80)),
    protocol: url.protocol === 'http:' ? 'http' : 'https',
    maxNetworkRetries: 0,
    timeout: 15_000,
  });
}

/** A Stripe failure as a 502 naming what Stripe said: nothing was changed here. */
function stripeRefused(error: unknown, what: string): AppError {
  const message = error instanceof Error && error.message ? error.message.slice(0, 300).replace(/[.\s]+$/, '') : 'no answer';
  return new AppError('bad_gateway', `Stripe could not ${what}: ${message}. Nothing was changed.`);
}
