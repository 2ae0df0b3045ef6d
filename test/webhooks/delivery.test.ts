// Deliveries as a subscriber sees them: signed envelopes for the events it subscribed to, and a
// delivery log that shows every attempt.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { Webhook } from 'standardwebhooks';
import { outbox, startService, type TestService } from '../support/service';
import { startReceiver, type Receiver } from '../support/receiver';
import { createPartner, LOCAL_RECEIVERS, registerEndpoint, verifyServiceSignature } from '../support/webhooks';

let svc: TestService;
let rcv: Receiver;
beforeAll(async () => {
  svc = await startService(LOCAL_RECEIVERS);
  rcv = await startReceiver();
}, 60_000);
afterAll(async () => {
  await svc.stop();
  await rcv.stop();
});

const forEndpoint = (path: string) => rcv.received.filter((r) => r.path === path);

describe('signed envelopes', () => {
  test('a partner.created envelope arrives signed per SPEC and per Standard Webhooks', async () => {
    const { id: endpointId, secret } = await registerEndpoint(svc, `${rcv.url}/signed`, ['partner.created']);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);

    const partnerId = await createPartner(svc);
    const [hook] = await rcv.waitUntil(() => forEndpoint('/signed').length >= 1).then(() => forEndpoint('/signed'));
    const [envelope] = (await outbox(svc.sql, 'partner.created')).filter((e) => e.data.partnerId === partnerId);

    // envelope shape
    expect(Object.keys(hook!.json).sort()).toEqual(['created', 'data', 'event', 'id']);
    expect(hook!.json.id).toBe(envelope!.id);
    expect(hook!.json.id).toMatch(/^evt_[0-9a-z]{26}$/);
    expect(hook!.json.event).toBe('partner.created');
    expect(hook!.json.created).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(hook!.json.data).toEqual({
      partnerId,
      email: expect.stringContaining('@example.com'),
      name: 'Webhook Partner',
      activatedAt: expect.any(String),
      invited: false,
      campaignIds: [],
    });

    // SPEC headers, checked with an independent HMAC over `<timestamp>.<raw body>`
    expect(hook!.headers['content-type']).toBe('application/json');
    expect(hook!.headers['x-service-event']).toBe('partner.created');
    expect(hook!.headers['x-service-delivery']).toMatch(/^evt_[0-9a-z]{26}$/);
    expect(hook!.headers['x-service-signature']).toMatch(/^[0-9a-f]{64}$/);
    const timestamp = Number(hook!.headers['x-service-timestamp']);
    expect(Number.isInteger(timestamp)).toBe(true);
    expect(Math.abs(timestamp - Date.now() / 1000)).toBeLessThanOrEqual(300);
    expect(verifyServiceSignature(secret, hook!)).toBe(true);
    expect(verifyServiceSignature('whsec_wrong', hook!)).toBe(false);
    expect(verifyServiceSignature(secret, { ...hook!, body: hook!.body.replace('Webhook Partner', 'Webhook Partnes') })).toBe(false);
    // a replay more than 300 s later is refused by the receiver rule
    expect(verifyServiceSignature(secret, hook!, timestamp + 301)).toBe(false);

    // Standard Webhooks headers, checked by the stock package
    expect(hook!.headers['webhook-id']).toBe(envelope!.id);
    expect(hook!.headers['webhook-timestamp']).toBe(String(timestamp));
    expect(hook!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    const verified = new Webhook(secret).verify(hook!.body, hook!.headers) as { id: string };
    expect(verified.id).toBe(envelope!.id);
    expect(() => new Webhook(secret).verify(hook!.body + ' ', hook!.headers)).toThrow();

    // the delivery log has the attempt, under the id the receiver saw
    const log = await svc.api('GET', `/webhooks/${endpointId}/deliveries`);
    expect(log.status).toBe(200);
    const row = log.body.deliveries.find((d: any) => d.id === hook!.headers['x-service-delivery']) ??
      (await svc.api('GET', `/webhooks/${endpointId}/deliveries/${hook!.headers['x-service-delivery']}`)).body;
    expect(row).toMatchObject({ endpointId, eventId: envelope!.id, event: 'partner.created', attempt: 1, retryOf: null });

    // and the metrics count it
    const metrics = await (await fetch(`${svc.url}/metrics`)).text();
    expect(metrics).toMatch(/^partnerd_webhook_deliveries_total\{result="succeeded"\} [1-9]/m);
    expect(metrics).toMatch(/^partnerd_webhook_deliveries_due \d+$/m);
  });

  test('partner.activated arrives when an invited partner uses the magic link', async () => {
    const { secret } = await registerEndpoint(svc, `${rcv.url}/activated`, ['partner.activated']);
    const email = `activate-${Date.now()}@example.com`;
    const partnerId = await createPartner(svc, { sendInvite: true, email });
    const link = await svc.mail.magicLink(email);
    const res = await fetch(link, { redirect: 'manual' });
    expect(res.status).toBeLessThan(400);
    await rcv.waitUntil(() => forEndpoint('/activated').length >= 1);
    const [hook] = forEndpoint('/activated');
    expect(hook!.json.event).toBe('partner.activated');
    expect(hook!.json.data).toMatchObject({ partnerId, email, activatedAt: expect.any(String) });
    expect(verifyServiceSignature(secret, hook!)).toBe(true);
    // it subscribed to partner.activated only: the partner.created of the same partner did not come
    expect(forEndpoint('/activated').map((h) => h.json.event)).toEqual(['partner.activated']);
  });
});

describe('subscriptions', () => {
  test('filtering, the wildcard, inactive endpoints, later endpoints, hard delete', async () => {
    const onlyCreated = await registerEndpoint(svc, `${rcv.url}/only-created`, ['partner.created']);
    const onlyPayouts = await registerEndpoint(svc, `${rcv.url}/only-payouts`, ['payout.created', 'commission.paid']);
    const everything = await registerEndpoint(svc, `${rcv.url}/everything`, ['*']);
    const paused = await registerEndpoint(svc, `${rcv.url}/paused`, ['*']);
    const removed = await registerEndpoint(svc, `${rcv.url}/removed`, ['*']);
    expect((await svc.api('PATCH', `/webhooks/${paused.id}`, { body: { active: false } })).body.active).toBe(false);
    expect((await svc.api('DELETE', `/webhooks/${removed.id}?hard=1`)).status).toBe(204);

    const first = await createPartner(svc);
    await rcv.waitUntil(() => forEndpoint('/only-created').length >= 1 && forEndpoint('/everything').length >= 1);

    // registered after the first event: receives only what happens from now on
    const late = await registerEndpoint(svc, `${rcv.url}/late`, ['*']);
    const second = await createPartner(svc);
    await rcv.waitUntil(() => forEndpoint('/only-created').length >= 2 && forEndpoint('/everything').length >= 2 && forEndpoint('/late').length >= 1);
    // every delivery due is now sent and recorded: nothing else can still arrive
    await svc.deliverWebhooks();

    expect(forEndpoint('/only-created').map((h) => h.json.data.partnerId)).toEqual([first, second]);
    expect(forEndpoint('/everything').map((h) => h.json.data.partnerId)).toEqual([first, second]);
    expect(forEndpoint('/late').map((h) => h.json.data.partnerId)).toEqual([second]);
    expect(forEndpoint('/only-payouts')).toEqual([]);
    expect(forEndpoint('/paused')).toEqual([]);
    expect(forEndpoint('/removed')).toEqual([]);

    // the database agrees: no delivery rows for the paused, removed or non-subscribed endpoints
    const counts = await svc.sql`select endpoint_id, count(*)::int as n from webhook_deliveries group by endpoint_id`;
    const n = (id: string) => counts.find((c) => c.endpoint_id === id)?.n ?? 0;
    expect([n(onlyCreated.id), n(everything.id), n(late.id)]).toEqual([2, 2, 1]);
    expect([n(onlyPayouts.id), n(paused.id), n(removed.id)]).toEqual([0, 0, 0]);
    expect(await svc.sql`select id from webhook_endpoints where id = ${removed.id}`).toHaveLength(0);

    // re-activated: new events flow again
    await svc.api('PATCH', `/webhooks/${paused.id}`, { body: { active: true } });
    const third = await createPartner(svc);
    await rcv.waitUntil(() => forEndpoint('/paused').length >= 1);
    expect(forEndpoint('/paused').map((h) => h.json.data.partnerId)).toEqual([third]);
  });
});

describe('delivery log', () => {
  test('filters by status and event, pages with a cursor, keeps 2 KiB of the answer', async () => {
    const { id } = await registerEndpoint(svc, `${rcv.url}/log`, ['partner.created']);
    // 3 successes with a long answer, then 2 failures
    rcv.respond = (req) =>
      new URL(req.url).pathname === '/log' ? new Response('é'.repeat(3000), { status: 200 }) : new Response('ok');
    for (let i = 0; i < 3; i++) await createPartner(svc);
    await rcv.waitUntil(() => forEndpoint('/log').length >= 3);
    rcv.respond = (req) => (new URL(req.url).pathname === '/log' ? new Response('nope', { status: 503 }) : new Response('ok'));
    for (let i = 0; i < 2; i++) await createPartner(svc);
    await rcv.waitUntil(() => forEndpoint('/log').length >= 5);
    rcv.respond = () => new Response('ok');
    // an extra event type through a test send
    const sent = await svc.api('POST', `/webhooks/${id}/test?event=commission.paid`);
    expect(sent.body.status).toBe('succeeded');

    await svc.deliverWebhooks();
    expect(await svc.sql`select 1 from webhook_deliveries where endpoint_id = ${id} and status = 'pending'`).toHaveLength(0);

    const all = await svc.api('GET', `/webhooks/${id}/deliveries`);
    expect(all.body.deliveries).toHaveLength(6);
    const ids = all.body.deliveries.map((d: any) => d.id);
    expect([...ids].sort().reverse()).toEqual(ids); // newest first

    const failed = await svc.api('GET', `/webhooks/${id}/deliveries?status=failed`);
    expect(failed.body.deliveries).toHaveLength(2);
    for (const d of failed.body.deliveries) {
      expect(d).toMatchObject({ status: 'failed', error: 'http_status', responseStatus: 503, responseBody: 'nope' });
      expect(typeof d.durationMs).toBe('number');
      expect(d.completedAt).toEqual(expect.any(String));
    }
    const succeeded = await svc.api('GET', `/webhooks/${id}/deliveries?status=succeeded&event=partner.created`);
    expect(succeeded.body.deliveries).toHaveLength(3);
    for (const d of succeeded.body.deliveries) {
      expect(Buffer.byteLength(d.responseBody)).toBeLessThanOrEqual(2048);
      expect(d.responseBody).toBe('é'.repeat(1024));
    }
    const paid = await svc.api('GET', `/webhooks/${id}/deliveries?event=commission.paid`);
    expect(paid.body.deliveries.map((d: any) => d.id)).toEqual([sent.body.id]);

    // pages of 4 then 2, no overlap, same order as the full list
    const page1 = await svc.api('GET', `/webhooks/${id}/deliveries?limit=4`);
    expect(page1.body.deliveries).toHaveLength(4);
    expect(page1.body.nextCursor).toBe(page1.body.deliveries[3].id);
    const page2 = await svc.api('GET', `/webhooks/${id}/deliveries?limit=4&cursor=${page1.body.nextCursor}`);
    expect(page2.body.nextCursor).toBeNull();
    expect([...page1.body.deliveries, ...page2.body.deliveries].map((d: any) => d.id)).toEqual(ids);

    // bad filters are 400s, not empty pages
    expect((await svc.api('GET', `/webhooks/${id}/deliveries?status=done`)).body.code).toBe('invalid_query');
    expect((await svc.api('GET', `/webhooks/${id}/deliveries?event=nope.never`)).body.code).toBe('invalid_query');
    expect((await svc.api('GET', `/webhooks/${id}/deliveries?cursor=garbage`)).body.code).toBe('invalid_query');
    expect((await svc.api('GET', `/webhooks/whe_00000000000000000000000000/deliveries`)).status).toBe(404);
  });
});
