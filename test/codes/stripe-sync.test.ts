// The optional sync of promotion codes to Stripe, against a local stand-in for Stripe's API that
// records each request: creating a code creates the Stripe promotion code on the campaign's coupon,
// archiving deactivates it, and a Stripe refusal is a 502 that leaves nothing behind.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { campaign, partner } from '../support/chain';
import { startService, type TestService } from '../support/service';

type Seen = { path: string; idempotencyKey: string | null; authorization: string | null; form: Record<string, string> };

let svc: TestService;
let fake: ReturnType<typeof Bun.serve>;
const seen: Seen[] = [];
let refuseNext = false;
let promos = 0;

let campaignId: string;
let plainCampaign: string; // no Stripe coupon: codes are not synced
let host: string;

beforeAll(async () => {
  fake = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(request) {
      const url = new URL(request.url);
      const form = Object.fromEntries(new URLSearchParams(await request.text()));
      seen.push({ path: `${request.method} ${url.pathname}`, idempotencyKey: request.headers.get('idempotency-key'), authorization: request.headers.get('authorization'), form });
      if (refuseNext) {
        refuseNext = false;
        return Response.json({ error: { type: 'invalid_request_error', code: 'resource_missing', message: 'No such coupon: co_gone' } }, { status: 400 });
      }
      if (request.method === 'POST' && url.pathname === '/v1/promotion_codes') {
        return Response.json({ id: `promo_test_${++promos}`, object: 'promotion_code', code: form.code, active: true });
      }
      const update = /^\/v1\/promotion_codes\/(promo_[a-z0-9_]+)$/.exec(url.pathname);
      if (request.method === 'POST' && update) {
        return Response.json({ id: update[1], object: 'promotion_code', active: form.active === 'true' });
      }
      return Response.json({ error: { type: 'invalid_request_error', message: 'unexpected' } }, { status: 404 });
    },
  });
  svc = await startService({ STRIPE_SECRET_KEY: 'sk_test_partnerd', STRIPE_API_URL: `http://127.0.0.1:${fake.port}` });
  campaignId = await campaign(svc, { stripeCouponId: 'co_show20' });
  plainCampaign = await campaign(svc, { name: 'No coupon' });
  host = await partner(svc, 'host@example.com', [campaignId, plainCampaign]);
}, 60_000);
afterAll(async () => {
  await svc.stop();
  fake.stop(true);
});

const stored = async (code: string) => [...(await svc.sql`select id, stripe_promotion_code_id, archived_at from promotion_codes where code = ${code}`)];

describe('stripeCouponId on campaigns', () => {
  test('set on create, changed and cleared with PATCH, checked', async () => {
    expect((await svc.api('GET', `/v1/campaigns/${campaignId}`)).body.stripeCouponId).toBe('co_show20');
    const other = await campaign(svc, { name: 'Other' });
    expect((await svc.api('GET', `/v1/campaigns/${other}`)).body.stripeCouponId).toBeNull();
    expect((await svc.api('PATCH', `/v1/campaigns/${other}`, { body: { stripeCouponId: 'co_x' } })).body.stripeCouponId).toBe('co_x');
    const bad = await svc.api('PATCH', `/v1/campaigns/${other}`, { body: { stripeCouponId: 'co x' } });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('invalid_body');
    expect((await svc.api('PATCH', `/v1/campaigns/${other}`, { body: { name: 'Renamed' } })).body.stripeCouponId).toBe('co_x');
    expect((await svc.api('PATCH', `/v1/campaigns/${other}`, { body: { stripeCouponId: null } })).body.stripeCouponId).toBeNull();
  });
});

describe('codes synced to Stripe', () => {
  test('creating a code creates the Stripe promotion code on the coupon, idempotently keyed, and stores its id', async () => {
    const before = seen.length;
    const res = await svc.api('POST', '/v1/codes', { body: { code: 'Show20', partnerId: host, campaignId } });
    expect(res.status).toBe(201);
    expect(res.body.stripePromotionCodeId).toMatch(/^promo_test_/);
    const calls = seen.slice(before);
    expect(calls).toEqual([
      {
        path: 'POST /v1/promotion_codes',
        idempotencyKey: `partnerd-code-${res.body.id}`,
        authorization: 'Bearer sk_test_partnerd',
        form: { 'promotion[type]': 'coupon', 'promotion[coupon]': 'co_show20', code: 'Show20', 'metadata[partnerd_code_id]': res.body.id },
      },
    ]);
    expect(await stored('Show20')).toEqual([{ id: res.body.id, stripe_promotion_code_id: res.body.stripePromotionCodeId, archived_at: null }]);
  });

  test('archiving deactivates it in Stripe, unarchiving reactivates it; a repeat calls Stripe no more', async () => {
    const { id, stripePromotionCodeId: promo } = (await svc.api('POST', '/v1/codes', { body: { code: 'SEASON', partnerId: host, campaignId } })).body;
    const before = seen.length;
    expect((await svc.api('PATCH', `/v1/codes/${id}`, { body: { archived: true } })).status).toBe(200);
    expect((await svc.api('PATCH', `/v1/codes/${id}`, { body: { archived: true } })).status).toBe(200);
    expect((await svc.api('PATCH', `/v1/codes/${id}`, { body: { archived: false } })).status).toBe(200);
    expect(seen.slice(before).map((s) => [s.path, s.form])).toEqual([
      [`POST /v1/promotion_codes/${promo}`, { active: 'false' }],
      [`POST /v1/promotion_codes/${promo}`, { active: 'true' }],
    ]);
  });

  test('a campaign without a coupon: the code lives here only, Stripe is not called', async () => {
    const before = seen.length;
    const res = await svc.api('POST', '/v1/codes', { body: { code: 'LOCAL-ONLY', partnerId: host, campaignId: plainCampaign } });
    expect(res.status).toBe(201);
    expect(res.body.stripePromotionCodeId).toBeNull();
    expect((await svc.api('PATCH', `/v1/codes/${res.body.id}`, { body: { archived: true } })).status).toBe(200);
    expect(seen.length).toBe(before);
  });

  test('Stripe refusing the create is a 502 naming the reason, and no code is created', async () => {
    refuseNext = true;
    const res = await svc.api('POST', '/v1/codes', { body: { code: 'REFUSED', partnerId: host, campaignId } });
    expect(res.status).toBe(502);
    expect(res.body.code).toBe('bad_gateway');
    expect(res.body.message).toContain('No such coupon');
    expect(await stored('REFUSED')).toEqual([]);
    // the code is free again: a later try succeeds
    expect((await svc.api('POST', '/v1/codes', { body: { code: 'REFUSED', partnerId: host, campaignId } })).status).toBe(201);
  });

  test('Stripe refusing the deactivation is a 502 and the code stays active here too', async () => {
    const { id } = (await svc.api('POST', '/v1/codes', { body: { code: 'STAYS', partnerId: host, campaignId } })).body;
    refuseNext = true;
    const res = await svc.api('PATCH', `/v1/codes/${id}`, { body: { archived: true } });
    expect(res.status).toBe(502);
    expect(res.body.code).toBe('bad_gateway');
    expect((await stored('STAYS'))[0]!.archived_at).toBeNull();
  });

  test('a synced code credits when the invoice names it by its promotion code id', async () => {
    const { stripePromotionCodeId: promo } = (await svc.api('POST', '/v1/codes', { body: { code: 'BY-ID', partnerId: host, campaignId } })).body;
    const res = await svc.api('POST', '/v1/attribution/events', { body: { userId: 'synced-user', type: 'signup', couponCode: promo } });
    expect(res.body.attribution.touches).toEqual([expect.objectContaining({ partnerId: host, couponCode: 'BY-ID', clickId: null })]);
  });
});
