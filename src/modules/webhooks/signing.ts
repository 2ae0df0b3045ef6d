// How every delivery is signed: the SPEC headers (x-service-*, lowercase hex HMAC-SHA256 of
// `<timestamp>.<raw body>` keyed with the secret's UTF-8 bytes) and the Standard Webhooks headers
// (webhook-id / webhook-timestamp / webhook-signature `v1,<base64>`, keyed with the base64-decoded
// part of the secret after `whsec_`), so that stock verifiers work unchanged.
import { createHmac, randomBytes } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';

/** A new endpoint secret: `whsec_` and the base64 of 32 random bytes. */
export function newSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** SPEC section 6: lowercase hex HMAC-SHA256 of `<timestamp>.<body>`, keyed with the whole secret string. */
export function serviceSignature(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${timestamp}.${body}`).digest('hex');
}

/** Standard Webhooks: `v1,` and the base64 HMAC-SHA256 of `<id>.<timestamp>.<body>`. */
export function standardSignature(secret: string, messageId: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
  return 'v1,' + createHmac('sha256', key).update(`${messageId}.${timestamp}.${body}`).digest('base64');
}

/**
 * Every header of one delivery attempt. `envelopeId` stays the same on every attempt of an event
 * (webhook-id: receivers dedupe on it); `deliveryId` names this attempt (x-service-delivery).
 * Within 24 h of a secret rotation `previousSecret` is set: webhook-signature then lists a
 * signature with each secret, the new one first, space-separated (Standard Webhooks: a receiver
 * accepts any one that verifies), so receivers still holding the old secret keep verifying.
 * x-service-signature is one hex digest (SPEC), with the current secret.
 */
export function deliveryHeaders(input: {
  secret: string;
  previousSecret?: string | null;
  event: string;
  envelopeId: string;
  deliveryId: string;
  body: string;
  now?: number;
}): Record<string, string> {
  const timestamp = Math.floor((input.now ?? Date.now()) / 1000);
  return {
    'content-type': 'application/json',
    'user-agent': 'Partnerd-Webhooks/1',
    'x-service-event': input.event,
    'x-service-delivery': input.deliveryId,
    'x-service-timestamp': String(timestamp),
    'x-service-signature': serviceSignature(input.secret, timestamp, input.body),
    'webhook-id': input.envelopeId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': [input.secret, ...(input.previousSecret ? [input.previousSecret] : [])]
      .map((secret) => standardSignature(secret, input.envelopeId, timestamp, input.body))
      .join(' '),
  };
}
