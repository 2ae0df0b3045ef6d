// A promotion code on an event, over HTTP: the code wins over clicks for the user's first attributed
// event, the referral is sticky afterwards, and codes that credit nobody fall back to clicks. Each
// case follows the chain to the rows (referral, attribution, commission) and the outbox.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { campaign, click, identify, partner } from '../support/chain';
import { outbox, startService, type TestService } from '../support/service';

let svc: TestService;
let campaignId: string;
let podcaster: string; // credited through its code
let blogger: string; // credited through clicks
let codeId: string;
beforeAll(async () => {
  svc = await startService({ HOLDBACK_DAYS: '14' });
  campaignId = await campaign(svc, { rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 20 }] });
  podcaster = await partner(svc, 'podcaster@example.com', [campaignId]);
  blogger = await partner(svc, 'blogger@example.com', [campaignId]);
  codeId = await newCode('Podcast20', podcaster);
}, 60_000);
afterAll(() => svc.stop());

let users = 0;
const newUser = () => `code-user-${++users}-${Math.random().toString(36).slice(2, 8)}`;

async function newCode(code: string, partnerId: string): Promise<string> {
  const res = await svc.api('POST', '/v1/codes', { body: { code, partnerId, campaignId } });
  expect(res.status).toBe(201);
  return res.body.id;
}

const track = (body: Record<string, unknown>, headers?: Record<string, string>) => svc.api('POST', '/v1/attribution/events', { body, headers });
const paid = (userId: string, couponCode?: string, value = 50) => track({ userId, type: 'invoice_paid', value, currency: 'USD', ...(couponCode ? { couponCode } : {}) });

/** A user who clicked the blogger's link and was identified. */
async function clickedUser(): Promise<{ userId: string; clickId: string }> {
  const userId = newUser();
  const { clickId } = await click(svc, campaignId, blogger);
  await identify(svc, userId, [clickId]);
  return { userId, clickId };
}

const referralOf = async (userId: string) => [
  ...(await svc.sql`select position, click_id, code_id, partner_id, campaign_id, weight_num, weight_den from referral_touches where user_id = ${userId} order by position`),
];
const commissionsOf = async (eventId: string) => [...(await svc.sql`select partner_id, amount, currency, status from commissions where event_id = ${eventId}`)];

describe('a code credits its partner', () => {
  test('with no click and no identify: referral, attribution, commission and webhooks carry the code', async () => {
    const userId = newUser();
    const res = await svc.api('POST', '/v1/events', { body: { userId, type: 'invoice_paid', amount: 5000, currency: 'USD', couponCode: 'Podcast20' } });
    expect(res.status).toBe(201);
    const eventId = res.body.id;
    expect([...(await svc.sql`select attribution_status, coupon_code from events where id = ${eventId}`)]).toEqual([
      { attribution_status: 'attributed', coupon_code: 'Podcast20' },
    ]);
    expect(await referralOf(userId)).toEqual([{ position: 0, click_id: null, code_id: codeId, partner_id: podcaster, campaign_id: campaignId, weight_num: 1, weight_den: 1 }]);
    const attributions = [...(await svc.sql`select id, click_id, code_id, partner_id, weight from attributions where event_id = ${eventId}`)];
    expect(attributions).toEqual([{ id: expect.stringMatching(/^att_/), click_id: null, code_id: codeId, partner_id: podcaster, weight: 1 }]);
    expect(await commissionsOf(eventId)).toEqual([{ partner_id: podcaster, amount: 1000n, currency: 'USD', status: 'accrued' }]);

    const envelopes = (await outbox(svc.sql)).filter((e) => e.data.eventId === eventId || e.data.attributionId === attributions[0]!.id);
    expect(envelopes.map((e) => e.type)).toEqual(['attribution.created', 'commission.accrued']);
    expect(envelopes[0]!.data).toMatchObject({ partnerId: podcaster, campaignId, clickId: null, couponCode: 'Podcast20', weight: 1, commissionAmount: '10.00' });
    expect(envelopes[1]!.data).toMatchObject({ partnerId: podcaster, amount: '10.00', currency: 'USD' });
  });

  test('the attribution result names the code as stored, whatever case the customer typed', async () => {
    const res = await paid(newUser(), 'pODCAST20');
    expect(res.status).toBe(201);
    expect(res.body.attribution).toEqual({
      status: 'attributed',
      model: 'last_click',
      touches: [{ clickId: null, couponCode: 'Podcast20', partnerId: podcaster, weight: 1, attributionId: expect.stringMatching(/^att_/), commissionId: expect.stringMatching(/^com_/), ruleSource: 'campaign' }],
    });
  });

  test("the code wins over the user's clicks on their first attributed event", async () => {
    const { userId } = await clickedUser();
    const res = await paid(userId, 'podcast20');
    expect(res.body.attribution.touches).toEqual([expect.objectContaining({ partnerId: podcaster, clickId: null, couponCode: 'Podcast20' })]);
    expect((await referralOf(userId)).map((t) => t.partner_id)).toEqual([podcaster]);
  });
});

describe('sticky afterwards', () => {
  test('later events, with no code or with another code, keep crediting the code partner', async () => {
    const userId = newUser();
    await paid(userId, 'Podcast20');
    await newCode('BLOG10', blogger);
    const plain = await paid(userId);
    expect(plain.body.attribution.touches).toEqual([expect.objectContaining({ partnerId: podcaster, couponCode: 'Podcast20', clickId: null })]);
    const other = await paid(userId, 'BLOG10');
    expect(other.body.attribution.touches).toEqual([expect.objectContaining({ partnerId: podcaster, couponCode: 'Podcast20' })]);
    expect(await commissionsOf(other.body.eventId)).toEqual([expect.objectContaining({ partner_id: podcaster, amount: 1000n })]);
    // the event still remembers what the customer typed
    expect((await svc.sql`select coupon_code from events where id = ${other.body.eventId}`)[0]!.coupon_code).toBe('BLOG10');
  });

  test('a user referred by a click keeps that partner when a later event carries a code', async () => {
    const { userId, clickId } = await clickedUser();
    const first = await paid(userId);
    expect(first.body.attribution.touches).toEqual([expect.objectContaining({ partnerId: blogger, clickId, couponCode: null })]);
    const later = await paid(userId, 'Podcast20');
    expect(later.body.attribution.touches).toEqual([expect.objectContaining({ partnerId: blogger, clickId, couponCode: null })]);
    expect((await referralOf(userId)).map((t) => t.partner_id)).toEqual([blogger]);
  });

  test('a code that credited nothing yet (no revenue rule) still starts the referral on the first event', async () => {
    const userId = newUser();
    const signup = await track({ userId, type: 'signup', couponCode: 'PODCAST20' });
    expect(signup.body.attribution).toMatchObject({ status: 'attributed', touches: [{ partnerId: podcaster, couponCode: 'Podcast20', commissionId: null }] });
    const invoice = await paid(userId);
    expect(await commissionsOf(invoice.body.eventId)).toEqual([expect.objectContaining({ partner_id: podcaster, amount: 1000n })]);
  });
});

describe('codes that credit nobody fall back to clicks', () => {
  test('an unknown code: the clicks decide; without identify, no_identity', async () => {
    const { userId, clickId } = await clickedUser();
    const res = await paid(userId, 'NO-SUCH-CODE');
    expect(res.status).toBe(201);
    expect(res.body.attribution.touches).toEqual([expect.objectContaining({ partnerId: blogger, clickId, couponCode: null })]);
    const stranger = await paid(newUser(), 'NO-SUCH-CODE');
    expect(stranger.body.attribution).toEqual({ status: 'no_identity', model: 'last_click', touches: [] });
  });

  test('an archived code: the clicks decide; unarchived, it credits again', async () => {
    const id = await newCode('RETIRED', podcaster);
    expect((await svc.api('PATCH', `/v1/codes/${id}`, { body: { archived: true } })).status).toBe(200);
    const { userId } = await clickedUser();
    expect((await paid(userId, 'retired')).body.attribution.touches).toEqual([expect.objectContaining({ partnerId: blogger, couponCode: null })]);
    const identified = newUser();
    await identify(svc, identified, []);
    expect((await paid(identified, 'RETIRED')).body.attribution).toMatchObject({ status: 'no_click', touches: [] });
    expect((await svc.api('PATCH', `/v1/codes/${id}`, { body: { archived: false } })).status).toBe(200);
    expect((await paid(newUser(), 'RETIRED')).body.attribution.touches).toEqual([expect.objectContaining({ partnerId: podcaster, couponCode: 'RETIRED' })]);
  });

  test("a revoked partner's code: the clicks decide, and nothing accrues to that partner", async () => {
    const revoked = await partner(svc, 'revoked-host@example.com', [campaignId]);
    await newCode('GONE-HOST', revoked);
    expect((await svc.api('POST', `/v1/partners/${revoked}/revoke`, { body: { reason: 'fraud' } })).status).toBe(200);
    const { userId } = await clickedUser();
    const res = await paid(userId, 'GONE-HOST');
    expect(res.body.attribution.touches).toEqual([expect.objectContaining({ partnerId: blogger, couponCode: null })]);
    expect(await svc.sql`select 1 from commissions where partner_id = ${revoked}`).toHaveLength(0);
  });

  test('a code partner revoked after the referral: later events credit nobody, like a revoked click partner', async () => {
    const host = await partner(svc, 'later-revoked@example.com', [campaignId]);
    await newCode('SOON-GONE', host);
    const userId = newUser();
    expect((await paid(userId, 'SOON-GONE')).body.attribution.touches).toEqual([expect.objectContaining({ partnerId: host })]);
    expect((await svc.api('POST', `/v1/partners/${host}/revoke`, { body: { reason: 'left' } })).status).toBe(200);
    const later = await paid(userId, 'SOON-GONE');
    expect(later.body.attribution).toMatchObject({ status: 'attributed', touches: [] });
    expect(await commissionsOf(later.body.eventId)).toEqual([]);
  });
});

describe('idempotency and bad input', () => {
  test('a replay answers the same touches with the code; the same key with another code is 409', async () => {
    const userId = newUser();
    const key = { 'idempotency-key': `code-replay-${userId}` };
    const body = { userId, type: 'invoice_paid', value: 30, currency: 'USD', couponCode: 'Podcast20' };
    const first = await track(body, key);
    expect(first.status).toBe(201);
    const again = await track(body, key);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.body.attribution.touches[0]).toMatchObject({ couponCode: 'Podcast20', clickId: null });
    const other = await track({ ...body, couponCode: 'BLOG10' }, key);
    expect(other.status).toBe(409);
    expect(await svc.sql`select 1 from events where user_id = ${userId}`).toHaveLength(1);
  });

  const bad: [string, unknown][] = [
    ['empty', ''],
    ['too long', 'X'.repeat(256)],
    ['a number', 20],
    ['null', null],
    ['an unpaired surrogate', 'CODE\ud800'],
  ];
  for (const [label, couponCode] of bad) {
    test(`couponCode ${label}: 400, nothing recorded`, async () => {
      const userId = newUser();
      for (const path of ['/v1/events', '/v1/attribution/events']) {
        const res = await svc.api('POST', path, { body: { userId, type: 'signup', couponCode } });
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('invalid_body');
        expect(JSON.stringify(res.body)).toContain('couponCode');
      }
      expect(await svc.sql`select 1 from events where user_id = ${userId}`).toHaveLength(0);
      expect(await svc.sql`select 1 from referrals where user_id = ${userId}`).toHaveLength(0);
    });
  }
});
