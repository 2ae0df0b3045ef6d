// Failures as the operator sees them: each reason logged, no automatic second attempt (SPEC), and
// a manual retry that succeeds once the receiver recovers. Plus test sends for every event type.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { Webhook } from 'standardwebhooks';
import { EVENT_TYPES } from '../../src/modules/webhooks/events';
import { startService, freePort, type TestService } from '../support/service';
import { startReceiver, type Receiver } from '../support/receiver';
import { createPartner, LOCAL_RECEIVERS, registerEndpoint, verifyServiceSignature } from '../support/webhooks';

let svc: TestService;
let rcv: Receiver;
// /slow answers only when the file is done: only the service's own timeout ends those requests. The
// timeout is short enough to keep the file quick, and long enough that every other receiver here
// (answering at once, in this process) is answered within it on a slow, loaded machine: at 500 ms a
// pause of the test process could turn an immediate 400 or 200 into a timeout
const TIMEOUT_MS = 2_000;
let answerSlow!: () => void;
const slowAnswered = new Promise<void>((ok) => (answerSlow = ok));
beforeAll(async () => {
  svc = await startService({ ...LOCAL_RECEIVERS, WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS) });
  rcv = await startReceiver();
  rcv.respond = async (req) => {
    const path = new URL(req.url).pathname;
    if (path === '/client-error') return new Response('{"error":"bad signature"}', { status: 400 });
    if (path === '/server-error') return new Response('overloaded', { status: 500 });
    if (path === '/slow') {
      await slowAnswered;
      return new Response('late');
    }
    if (path === '/redirect') return new Response(null, { status: 302, headers: { location: `${rcv.url}/redirect-target` } });
    if (path === '/flaky') return flakyDown ? new Response('down', { status: 503 }) : new Response('back');
    return new Response('ok');
  };
}, 60_000);
afterAll(async () => {
  answerSlow();
  await svc.stop();
  await rcv.stop();
});

let flakyDown = true;
const at = (path: string) => rcv.received.filter((r) => r.path === path);

/** Sends what is due, then answers the endpoint's delivery log. */
async function settled(endpointId: string): Promise<any[]> {
  await svc.deliverWebhooks();
  return (await svc.api('GET', `/webhooks/${endpointId}/deliveries`)).body.deliveries;
}

describe('each failure is logged with its reason and not retried by itself', () => {
  test('4xx, 5xx, timeout, connection refused and redirect', async () => {
    const closedPort = await freePort();
    const cases = [
      { path: '/client-error', url: `${rcv.url}/client-error`, expected: { error: 'http_status', responseStatus: 400, responseBody: '{"error":"bad signature"}' } },
      { path: '/server-error', url: `${rcv.url}/server-error`, expected: { error: 'http_status', responseStatus: 500, responseBody: 'overloaded' } },
      { path: '/slow', url: `${rcv.url}/slow`, expected: { error: 'timeout', responseStatus: null, responseBody: `no answer within ${TIMEOUT_MS} ms` } },
      { path: null, url: `http://127.0.0.1:${closedPort}/refused`, expected: { error: 'network', responseStatus: null } },
      { path: '/redirect', url: `${rcv.url}/redirect`, expected: { error: 'http_status', responseStatus: 302 } },
    ];
    const endpoints = [];
    for (const c of cases) endpoints.push({ ...c, id: (await registerEndpoint(svc, c.url, ['partner.created'])).id });
    await createPartner(svc);

    for (const e of endpoints) {
      const deliveries = await settled(e.id);
      expect(deliveries).toHaveLength(1);
      expect(deliveries[0]).toMatchObject({ status: 'failed', attempt: 1, ...e.expected });
      expect(deliveries[0].completedAt).toEqual(expect.any(String));
      // the time it waited: at least its timeout (a lower bound, which no slow machine can break)
      if (e.expected.error === 'timeout') expect(deliveries[0].durationMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    }
    // another round of the dispatcher (what its poll does): still one attempt each, redirect not followed
    await svc.deliverWebhooks();
    for (const e of endpoints) {
      expect(await svc.sql`select id from webhook_deliveries where endpoint_id = ${e.id}`).toHaveLength(1);
      if (e.path) expect(at(e.path)).toHaveLength(1);
    }
    expect(at('/redirect-target')).toHaveLength(0);
  });

  test('manual retry: a new attempt linked to the old one, answered inline, succeeds once the receiver recovers', async () => {
    const { id, secret } = await registerEndpoint(svc, `${rcv.url}/flaky`, ['partner.created']);
    await createPartner(svc);
    const [failed] = await settled(id);
    expect(failed).toMatchObject({ status: 'failed', error: 'http_status', responseStatus: 503 });

    // still down: the retry fails, inline
    const again = await svc.api('POST', `/webhooks/${id}/deliveries/${failed.id}/retry`);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ status: 'failed', attempt: 2, retryOf: failed.id, responseStatus: 503, eventId: failed.eventId });

    flakyDown = false;
    const retried = await svc.api('POST', `/webhooks/${id}/deliveries/${again.body.id}/retry`);
    expect(retried.status).toBe(200);
    expect(retried.body).toMatchObject({
      status: 'succeeded',
      attempt: 3,
      retryOf: again.body.id,
      responseStatus: 200,
      responseBody: 'back',
      error: null,
      eventId: failed.eventId,
      event: 'partner.created',
    });
    expect(retried.body.id).not.toBe(failed.id);

    // the receiver got the same envelope three times, each attempt with its own delivery id
    const hooks = at('/flaky');
    expect(hooks).toHaveLength(3);
    expect(new Set(hooks.map((h) => h.json.id))).toEqual(new Set([failed.eventId]));
    expect(hooks.map((h) => h.headers['x-service-delivery'])).toEqual([failed.id, again.body.id, retried.body.id]);
    for (const h of hooks) {
      expect(verifyServiceSignature(secret, h)).toBe(true);
      expect(h.headers['webhook-id']).toBe(failed.eventId);
    }
    // the log shows all three
    expect((await svc.api('GET', `/webhooks/${id}/deliveries`)).body.deliveries.map((d: any) => d.id)).toEqual([
      retried.body.id,
      again.body.id,
      failed.id,
    ]);
    // and the dispatcher does not send it a fourth time by itself
    await svc.deliverWebhooks();
    expect(at('/flaky')).toHaveLength(3);
  });

  test('retry: an unknown delivery or one of another endpoint is a 404, a queued one a 409', async () => {
    const a = await registerEndpoint(svc, `${rcv.url}/a`, ['partner.created']);
    const b = await registerEndpoint(svc, `${rcv.url}/b`, ['partner.created']);
    await createPartner(svc);
    const [delivery] = await settled(a.id);
    expect((await svc.api('POST', `/webhooks/${b.id}/deliveries/${delivery.id}/retry`)).status).toBe(404);
    expect((await svc.api('POST', `/webhooks/${a.id}/deliveries/evt_00000000000000000000000000/retry`)).status).toBe(404);
    expect((await svc.api('POST', `/webhooks/${a.id}/deliveries/nonsense/retry`)).status).toBe(404);
    // a delivery still waiting in the queue is not retried by hand: it is about to be sent anyway
    const queued = 'evt_0000000000000000000000que0';
    await svc.sql`
      insert into webhook_deliveries (id, endpoint_id, event_id, event, next_attempt_at)
      values (${queued}, ${a.id}, ${delivery.eventId}, 'partner.created', now() + interval '1 hour')`;
    const refused = await svc.api('POST', `/webhooks/${a.id}/deliveries/${queued}/retry`);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('conflict');
    expect(await svc.sql`select id from webhook_deliveries where retry_of = ${queued}`).toHaveLength(0);
  });
});

describe('test sends', () => {
  test('webhook.test by default: signed, synchronous, logged', async () => {
    const { id, secret } = await registerEndpoint(svc, `${rcv.url}/test-default`, ['payout.created']);
    const res = await svc.api('POST', `/webhooks/${id}/test`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ endpointId: id, event: 'webhook.test', status: 'succeeded', attempt: 1, responseStatus: 200, error: null });
    // synchronous: the receiver already has it when the call answers
    const [hook] = at('/test-default');
    expect(hook!.json).toMatchObject({ id: res.body.eventId, event: 'webhook.test', data: { message: expect.any(String) } });
    expect(hook!.headers['x-service-delivery']).toBe(res.body.id);
    expect(verifyServiceSignature(secret, hook!)).toBe(true);
    expect(new Webhook(secret).verify(hook!.body, hook!.headers)).toBeTruthy();
    expect((await svc.api('GET', `/webhooks/${id}/deliveries/${res.body.id}`)).body).toEqual(res.body);
    // stored as a synthetic envelope
    const [row] = await svc.sql`select synthetic from webhook_events where id = ${res.body.eventId}`;
    expect(row!.synthetic).toBe(true);
  });

  test('?event=<type> sends a realistic sample of every type, whatever the subscription', async () => {
    const { id } = await registerEndpoint(svc, `${rcv.url}/samples`, ['partner.activated']);
    for (const type of EVENT_TYPES) {
      const res = await svc.api('POST', `/webhooks/${id}/test?event=${type}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ event: type, status: 'succeeded' });
    }
    const byType = Object.fromEntries(at('/samples').map((h) => [h.json.event, h.json.data]));
    const amount = expect.stringMatching(/^\d+\.\d{2}$/);
    const id_ = (prefix: string) => expect.stringMatching(new RegExp(`^${prefix}_[0-9a-z]{26}$`));
    expect(byType['attribution.created']).toEqual({
      attributionId: id_('att'),
      eventId: id_('evt'),
      partnerId: id_('ptn'),
      campaignId: id_('cmp'),
      clickId: id_('clk'),
      couponCode: null,
      model: 'last_click',
      weight: 1,
      eventType: expect.any(String),
      eventValue: expect.any(Number),
      commissionId: id_('com'),
      commissionAmount: amount,
      commissionCurrency: 'USD',
    });
    expect(byType['commission.accrued']).toEqual({
      commissionId: id_('com'),
      partnerId: id_('ptn'),
      attributionId: id_('att'),
      campaignId: id_('cmp'),
      amount,
      currency: 'USD',
      eventType: expect.any(String),
      eventValue: expect.any(Number),
      flags: [],
      ruleSource: 'campaign',
    });
    expect(byType['commission.approved']).toEqual({ commissionId: id_('com'), partnerId: id_('ptn'), amount, currency: 'USD', approvedAt: expect.any(String) });
    expect(byType['commission.paid']).toEqual({ commissionId: id_('com'), payoutId: id_('pay'), partnerId: id_('ptn'), amount, currency: 'USD' });
    expect(byType['commission.reversed']).toEqual({ commissionId: id_('com'), partnerId: id_('ptn'), amount, currency: 'USD', reason: 'refund' });
    expect(byType['partner.created']).toEqual({
      partnerId: id_('ptn'),
      email: expect.stringContaining('@'),
      name: expect.any(String),
      activatedAt: null,
      invited: true,
      campaignIds: [id_('cmp')],
    });
    expect(byType['partner.activated']).toEqual({ partnerId: id_('ptn'), email: expect.stringContaining('@'), name: expect.any(String), activatedAt: expect.any(String) });
    expect(byType['partnership.approved']).toEqual({
      partnerId: id_('ptn'),
      email: expect.stringContaining('@'),
      name: expect.any(String),
      networkCreatorId: expect.any(String),
      campaignIds: [id_('cmp')],
    });
    expect(byType['payout.created']).toEqual({ payoutId: id_('pay'), partnerId: id_('ptn'), amount, currency: 'USD', commissionCount: expect.any(Number) });

    expect((await svc.api('POST', `/webhooks/${id}/test?event=partner.exploded`)).body.code).toBe('invalid_query');
    expect((await svc.api('POST', `/webhooks/${id}/test?event=*`)).body.code).toBe('invalid_query');
  });

  test('a failing test send reports the failure inside the record', async () => {
    const { id } = await registerEndpoint(svc, `${rcv.url}/server-error`, ['*']);
    const res = await svc.api('POST', `/webhooks/${id}/test`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'failed', error: 'http_status', responseStatus: 500, responseBody: 'overloaded' });
    const slow = await registerEndpoint(svc, `${rcv.url}/slow`, ['*']);
    expect((await svc.api('POST', `/webhooks/${slow.id}/test`)).body).toMatchObject({ status: 'failed', error: 'timeout' });
  });
});
