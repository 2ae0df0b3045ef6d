// Helpers for webhook tests: register endpoints, cause events through the public API, and check
// signatures the way a subscriber would (an independent HMAC, not the service's own code).
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { TestService } from './service';
import type { ReceivedWebhook } from './receiver';

export const LOCAL_RECEIVERS = { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' } as const;

export async function registerEndpoint(
  svc: TestService,
  url: string,
  events: string[] = ['*'],
  label?: string,
): Promise<{ id: string; secret: string }> {
  const res = await svc.api('POST', '/webhooks', { body: { url, events, ...(label ? { label } : {}) } });
  if (res.status !== 201) throw new Error(`registering ${url}: ${res.status} ${JSON.stringify(res.body)}`);
  return { id: res.body.endpoint.id, secret: res.body.secret };
}

let partnerCounter = 0;

/** Creates a partner through POST /partners (which emits partner.created); answers its id. */
export async function createPartner(svc: TestService, options: { sendInvite?: boolean; email?: string } = {}): Promise<string> {
  const email = options.email ?? `webhook-partner-${process.pid}-${++partnerCounter}-${Date.now()}@example.com`;
  const res = await svc.api('POST', '/partners', { body: { email, name: 'Webhook Partner', sendInvite: options.sendInvite ?? false } });
  if (res.status !== 201) throw new Error(`creating partner: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id;
}

/** What a receiver following SPEC section 6 does: constant-time HMAC check and the 300 s window. */
export function verifyServiceSignature(secret: string, hook: ReceivedWebhook, nowSeconds = Math.floor(Date.now() / 1000)): boolean {
  const timestamp = hook.headers['x-service-timestamp'] ?? '';
  const given = hook.headers['x-service-signature'] ?? '';
  const expected = createHmac('sha256', secret).update(`${timestamp}.${hook.body}`).digest('hex');
  if (given.length !== expected.length || !timingSafeEqual(Buffer.from(given), Buffer.from(expected))) return false;
  return Math.abs(nowSeconds - Number(timestamp)) <= 300;
}
