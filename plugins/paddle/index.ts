// The Paddle Billing adapter: verifies the Paddle-Signature of a notification on the raw body and
// maps Paddle events to billing actions (one small function per event type in events.ts).
import { createHmac, timingSafeEqual } from 'node:crypto';
import { invalidBody } from '../../src/lib/errors';
import { SignatureError, type BillingPlugin, type ProviderEvent } from '../billing';
import { HANDLERS } from './events';
import { paddleId, timestamp } from './objects';

export type PaddleOptions = {
  /** The notification destination's secret key (`pdl_ntfset_…`); mounts POST /webhooks/paddle when set. */
  webhookSecret?: string;
};

/** How far a signature's `ts` may be from the server clock, either way. */
export const SIGNATURE_TOLERANCE_S = 300;

/**
 * `Paddle-Signature: ts=<unix seconds>;h1=<hex>`, with one `h1` per secret while a rotated secret
 * is still valid. Exactly one `ts`; unknown keys are skipped, as Paddle may add schemes.
 */
function parseSignature(header: string): { ts: string; h1: string[] } {
  const ts: string[] = [];
  const h1: string[] = [];
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at < 0) continue;
    const [key, value] = [part.slice(0, at).trim(), part.slice(at + 1).trim()];
    if (key === 'ts') ts.push(value);
    if (key === 'h1') h1.push(value);
  }
  if (ts.length !== 1 || !/^[0-9]{1,12}$/.test(ts[0]!)) throw new SignatureError('Paddle-Signature needs one ts of unix seconds');
  if (h1.length === 0) throw new SignatureError('Paddle-Signature has no h1');
  return { ts: ts[0]!, h1 };
}

/** Whether any `h1` is the HMAC-SHA256 of `<ts>:<raw body>` under the secret, compared in constant time. */
function signedWith(secret: string, ts: string, rawBody: string, candidates: string[]): boolean {
  const expected = createHmac('sha256', secret).update(`${ts}:${rawBody}`, 'utf8').digest();
  let matched = false;
  for (const candidate of candidates) {
    if (!/^[0-9a-fA-F]{64}$/.test(candidate)) continue;
    // every candidate is compared, so the time taken does not tell which one matched
    if (timingSafeEqual(expected, Buffer.from(candidate, 'hex'))) matched = true;
  }
  return matched;
}

/** The notification envelope `{event_id, event_type, occurred_at, notification_id, data}`, or a 400. */
function readEnvelope(rawBody: string): ProviderEvent {
  let body: unknown;
  try {
    body = JSON.parse(rawBody);
  } catch {
    throw invalidBody('malformed Paddle notification: the body is not JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalidBody('malformed Paddle notification: the body is not an object');
  const { event_id, event_type, occurred_at, data } = body as Record<string, unknown>;
  const id = paddleId(event_id, 'evt');
  const occurredAt = timestamp(occurred_at);
  if (!id) throw invalidBody('malformed Paddle notification: event_id is not a Paddle event id');
  if (typeof event_type !== 'string' || !/^[a-z_]{1,64}\.[a-z_]{1,64}$/.test(event_type)) throw invalidBody('malformed Paddle notification: event_type');
  if (!occurredAt) throw invalidBody('malformed Paddle notification: occurred_at is not an RFC 3339 time');
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw invalidBody('malformed Paddle notification: data is not an object');
  return { id, type: event_type, createdAt: occurredAt, object: data };
}

export function createPaddlePlugin(options: PaddleOptions): BillingPlugin {
  return {
    name: 'paddle',
    receivesWebhooks: Boolean(options.webhookSecret),
    async verify(rawBody, headers) {
      if (!options.webhookSecret) throw new SignatureError('PADDLE_WEBHOOK_SECRET is not set');
      const header = headers.get('paddle-signature');
      if (!header) throw new SignatureError('missing Paddle-Signature header');
      const { ts, h1 } = parseSignature(header);
      if (Math.abs(Number(ts) * 1000 - Date.now()) > SIGNATURE_TOLERANCE_S * 1000) {
        throw new SignatureError(`ts more than ${SIGNATURE_TOLERANCE_S} s from the server clock`);
      }
      if (!signedWith(options.webhookSecret, ts, rawBody, h1)) throw new SignatureError('no h1 matches the body');
      return readEnvelope(rawBody);
    },
    map(event: ProviderEvent) {
      return Object.hasOwn(HANDLERS, event.type) ? HANDLERS[event.type]!(event) : [];
    },
  };
}
