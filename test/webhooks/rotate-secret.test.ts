// POST /webhooks/:id/rotate-secret: a new signing secret shown once; x-service-signature uses it at
// once, while webhook-signature carries a signature with the old secret too for 24 h (a real
// receiver on 127.0.0.1 checks both, with the Standard Webhooks library), and who may call it.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { Webhook } from 'standardwebhooks';
import { startReceiver, type Receiver } from '../support/receiver';
import { startService, type TestService } from '../support/service';
import { LOCAL_RECEIVERS, registerEndpoint, verifyServiceSignature } from '../support/webhooks';

let svc: TestService;
let receiver: Receiver;
beforeAll(async () => {
  [svc, receiver] = await Promise.all([startService(LOCAL_RECEIVERS), startReceiver()]);
}, 60_000);
afterAll(async () => {
  await svc?.stop();
  await receiver?.stop();
});

test('answers the endpoint and a new secret; deliveries are signed with it, not with the old one', async () => {
  const { id, secret: old } = await registerEndpoint(svc, `${receiver.url}/hook`, ['*'], 'CRM');
  const res = await svc.api('POST', `/v1/webhooks/${id}/rotate-secret`);
  expect(res.status).toBe(200);
  expect(Object.keys(res.body).sort()).toEqual(['endpoint', 'secret']);
  expect(res.body.endpoint).toEqual((await svc.api('GET', `/webhooks/${id}`)).body);
  const secret = res.body.secret as string;
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  expect(secret).not.toBe(old);
  expect((await svc.sql`select secret from webhook_endpoints where id = ${id}`)[0]!.secret).toBe(secret);
  // shown once: no other answer carries it
  expect(JSON.stringify((await svc.api('GET', `/webhooks/${id}`)).body)).not.toContain(secret);

  expect((await svc.api('POST', `/webhooks/${id}/test`)).status).toBe(200);
  const [hook] = await receiver.waitFor(1);
  expect(verifyServiceSignature(secret, hook!)).toBe(true);
  expect(verifyServiceSignature(old, hook!)).toBe(false);

  // unprefixed too; each rotation gives another secret
  const again = await svc.api('POST', `/webhooks/${id}/rotate-secret`);
  expect(again.status).toBe(200);
  expect(again.body.secret).not.toBe(secret);
});

test('for 24 h the old secret still verifies: webhook-signature lists both, new first; after that only the new one', async () => {
  const { id, secret: old } = await registerEndpoint(svc, `${receiver.url}/overlap`, ['*'], 'Overlap');
  const secret = (await svc.api('POST', `/v1/webhooks/${id}/rotate-secret`)).body.secret as string;
  const [row] = await svc.sql`select previous_secret, extract(epoch from previous_secret_expires_at - now()) / 3600 as hours from webhook_endpoints where id = ${id}`;
  expect(row!.previous_secret).toBe(old);
  expect(Number(row!.hours)).toBeCloseTo(24, 1);

  const before = receiver.received.length;
  expect((await svc.api('POST', `/webhooks/${id}/test`)).status).toBe(200);
  const hook = (await receiver.waitFor(before + 1)).at(-1)!;
  const signatures = hook.headers['webhook-signature']!.split(' ');
  expect(signatures).toHaveLength(2);
  for (const s of signatures) expect(s).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
  // a receiver on either secret accepts the delivery; SPEC's one hex signature is the new secret's
  expect(new Webhook(secret).verify(hook.body, hook.headers)).toBeTruthy();
  expect(new Webhook(old).verify(hook.body, hook.headers)).toBeTruthy();
  expect(verifyServiceSignature(secret, hook)).toBe(true);

  // 24 hours later the old secret signs no more
  await svc.sql`update webhook_endpoints set previous_secret_expires_at = now() - interval '1 second' where id = ${id}`;
  expect((await svc.api('POST', `/webhooks/${id}/test`)).status).toBe(200);
  const later = (await receiver.waitFor(before + 2)).at(-1)!;
  expect(later.headers['webhook-signature']!.split(' ')).toHaveLength(1);
  expect(new Webhook(secret).verify(later.body, later.headers)).toBeTruthy();
  expect(() => new Webhook(old).verify(later.body, later.headers)).toThrow();
});

test('webhooks:write may rotate; webhooks:read may not; an unknown endpoint is a 404', async () => {
  const { id, secret } = await registerEndpoint(svc, `${receiver.url}/hook`);
  const reader = await svc.scopedKey(['webhooks:read']);
  const refused = await svc.api('POST', `/v1/webhooks/${id}/rotate-secret`, { key: reader });
  expect(refused.status).toBe(403);
  expect((await svc.sql`select secret from webhook_endpoints where id = ${id}`)[0]!.secret).toBe(secret);

  const writer = await svc.scopedKey(['webhooks:write']);
  expect((await svc.api('POST', `/v1/webhooks/${id}/rotate-secret`, { key: writer })).status).toBe(200);
  expect((await svc.api('POST', `/v1/webhooks/${id}/rotate-secret`, { key: null })).status).toBe(401);

  const missing = await svc.api('POST', '/v1/webhooks/whe_01jd8x0000000000000000000a/rotate-secret');
  expect(missing.status).toBe(404);
  expect(missing.body.code).toBe('not_found');
});
