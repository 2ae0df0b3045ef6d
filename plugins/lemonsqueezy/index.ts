// The Lemon Squeezy adapter: verifies the X-Signature of the raw body, checks the fields it reads
// (objects.ts) and maps Lemon Squeezy events to billing actions (one small function each in events.ts).
import { createHmac } from 'node:crypto';
import { safeEqual } from '../../src/lib/crypto';
import { SignatureError, type BillingPlugin, type ProviderEvent } from '../billing';
import { HANDLERS, type LemonSqueezyEvent } from './events';
import { malformed, readAttributes, readDelivery, userIdOf } from './objects';

export type LemonSqueezyOptions = {
  /** The signing secret of the store's webhook; mounts POST /webhooks/lemonsqueezy. */
  webhookSecret: string;
};

/** Lowercase hex HMAC-SHA256 of the raw body, keyed with the webhook's signing secret. */
export function lemonSqueezySignature(rawBody: string, secret: string): string {
  return createHmac('sha256', secret).update(rawBody, 'utf8').digest('hex');
}

export function createLemonSqueezyPlugin(options: LemonSqueezyOptions): BillingPlugin {
  return {
    name: 'lemonsqueezy',
    receivesWebhooks: true,
    async verify(rawBody, headers) {
      const signature = headers.get('x-signature')?.trim();
      if (!signature) throw new SignatureError('missing X-Signature header');
      if (!safeEqual(signature.toLowerCase(), lemonSqueezySignature(rawBody, options.webhookSecret))) {
        throw new SignatureError('X-Signature does not match the body');
      }
      // signed: from here on a bad body is a 400 naming its field (Lemon Squeezy retries three
      // times, then shows the failed delivery in its webhook log), and nothing is recorded
      const delivery = readDelivery(rawBody);
      const { event_name: name } = delivery.meta;
      const handler = HANDLERS.get(name);
      let userId: string | null = null;
      if (handler) {
        if (delivery.data.type !== handler.resource) throw malformed('data.type', `must be ${handler.resource} for ${name}`);
        readAttributes(handler.resource, delivery.data.attributes);
        userId = userIdOf(delivery);
      }
      const updatedAt = Date.parse(String(delivery.data.attributes.updated_at ?? ''));
      const object: LemonSqueezyEvent = { delivery, userId };
      return {
        // no event id: the same event of the same object is the same delivery (DESIGN: the core
        // prefixes the provider, making `lemonsqueezy:<event_name>:<data.type>:<data.id>`)
        id: `${name}:${delivery.data.type}:${delivery.data.id}`,
        type: name,
        createdAt: Number.isNaN(updatedAt) ? new Date() : new Date(updatedAt),
        object,
      };
    },
    map(event: ProviderEvent) {
      const handler = HANDLERS.get(event.type);
      return handler ? handler.map(event.object as LemonSqueezyEvent) : [];
    },
  };
}
