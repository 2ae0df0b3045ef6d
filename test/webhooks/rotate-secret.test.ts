// POST /webhooks/:id/rotate-secret: a new signing secret shown once; the old one stops verifying at
// once (a real receiver on 127.0.0.1 checks both), and who may call it.
import { afterAll, beforeAll, expect, test } from 'bun:test';
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
