// Promotion codes made here, mirrored as Stripe promotion codes (the plugin's promotionCodes, with
// the plugin's one API client): a code becomes a Stripe promotion code on its campaign's coupon, so
// customers can use it at checkout at once, and archiving it here deactivates it there.
import type Stripe from 'stripe';
import { AppError } from '../../src/lib/errors';
import type { PromotionCodeSync } from '../billing';

/** A promotion code call waits at most this long (the admin or partner form is waiting for it). */
const CODE_TIMEOUT_MS = 15_000;

export function promotionCodeSync(client: Stripe): PromotionCodeSync {
  return {
    async create({ id, code, coupon }) {
      try {
        // the code's id as idempotency key: a retried call never makes two Stripe codes
        const promo = await client.promotionCodes.create(
          { promotion: { type: 'coupon', coupon }, code, metadata: { partnerd_code_id: id } },
          { idempotencyKey: `partnerd-code-${id}`, timeout: CODE_TIMEOUT_MS },
        );
        return promo.id;
      } catch (error) {
        throw stripeRefused(error, 'create the promotion code');
      }
    },
    async setActive(promotionCodeId, active) {
      try {
        await client.promotionCodes.update(promotionCodeId, { active }, { timeout: CODE_TIMEOUT_MS });
      } catch (error) {
        throw stripeRefused(error, active ? 'reactivate the promotion code' : 'deactivate the promotion code');
      }
    },
  };
}

/** A Stripe failure as a 502 naming what Stripe said: nothing was changed here. */
function stripeRefused(error: unknown, what: string): AppError {
  const message = error instanceof Error && error.message ? error.message.slice(0, 300).replace(/[.\s]+$/, '') : 'no answer';
  return new AppError('bad_gateway', `Stripe could not ${what}: ${message}. Nothing was changed.`);
}
