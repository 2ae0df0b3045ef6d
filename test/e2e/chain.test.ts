// The whole chain over HTTP, as an operator wires it: share link -> redirect -> identify -> event
// -> attribution -> commission -> approval -> payout, with the signed webhooks a subscriber receives.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { newId } from '../../src/lib/ids';
import { campaign, click, identify, partner } from '../support/chain';
import { startReceiver, type Receiver } from '../support/receiver';
import { outbox, startService, type TestService } from '../support/service';
import { LOCAL_RECEIVERS, registerEndpoint, verifyServiceSignature } from '../support/webhooks';

let svc: TestService;
let receiver: Receiver;
let secret: string;
let campaignId: string;

beforeAll(async () => {
  svc = await startService({ ...LOCAL_RECEIVERS });
  receiver = await startReceiver();
  secret = (await registerEndpoint(svc, receiver.url, ['*'])).secret;
  campaignId = await campaign(svc, { rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 20 }] });
}, 60_000);
afterAll(async () => {
  await svc.stop();
  await receiver.stop();
});
beforeEach(async () => {
  await svc.api('PATCH', '/v1/settings', { body: { attributionModel: 'last_click', attributionWindowDays: 30 } });
});

const track = (userId: string, value: number) =>
  svc.api('POST', '/attribution/events', { body: { userId, type: 'invoice_paid', value, currency: 'USD' } });

const hooksFor = (event: string, match: (data: any) => boolean) =>
  receiver.received.filter((r) => r.headers['x-service-event'] === event && match(r.json.data));

describe('last click, end to end', () => {
  test('a referred customer pays: attribution, commission row, outbox and signed webhooks', async () => {
    const partnerId = await partner(svc, 'ann@example.com', [campaignId]);
    const { clickId } = await click(svc, campaignId, partnerId);
    await identify(svc, 'cust_1', [clickId]);

    const res = await track('cust_1', 49.99);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ ok: true, attribution: { status: 'attributed', model: 'last_click' } });
    const [touch] = res.body.attribution.touches;
    expect(touch).toMatchObject({ clickId, partnerId, weight: 1 });
    expect(touch.attributionId).toMatch(/^att_/);
    expect(touch.commissionId).toMatch(/^com_/);

    // 20% of 49.99 = 9.998 -> 10.00 (half-even to the cent)
    const [row] = await svc.sql`select amount, currency, status, partner_id, campaign_id from commissions where id = ${touch.commissionId}`;
    expect(row).toEqual({ amount: 1000n, currency: 'USD', status: 'accrued', partner_id: partnerId, campaign_id: campaignId });

    const envelopes = (await outbox(svc.sql)).filter((e) => e.data.commissionId === touch.commissionId);
    expect(envelopes.map((e) => e.type)).toEqual(['attribution.created', 'commission.accrued']);
    expect(envelopes[0]!.data).toEqual({
      attributionId: touch.attributionId,
      eventId: res.body.eventId,
      partnerId,
      campaignId,
      clickId,
      couponCode: null,
      model: 'last_click',
      weight: 1,
      eventType: 'invoice_paid',
      eventValue: 49.99,
      commissionId: touch.commissionId,
      commissionAmount: '10.00',
      commissionCurrency: 'USD',
    });

    await receiver.waitUntil(() => hooksFor('commission.accrued', (d) => d.commissionId === touch.commissionId).length === 1);
    const hook = hooksFor('commission.accrued', (d) => d.commissionId === touch.commissionId)[0]!;
    expect(verifyServiceSignature(secret, hook)).toBe(true);
    expect(hook.json).toMatchObject({
      event: 'commission.accrued',
      data: { commissionId: touch.commissionId, partnerId, campaignId, amount: '10.00', currency: 'USD', eventType: 'invoice_paid', eventValue: 49.99 },
    });
    expect(hook.json.id).toMatch(/^evt_/);
    expect(hook.json.created).toMatch(/\.\d{3}Z$/);

    // approval and payout, each with its webhook
    expect((await svc.api('POST', `/v1/commissions/${touch.commissionId}/approve`)).status).toBe(200);
    const run = await svc.api('POST', '/v1/payouts/run');
    const payout = run.body.payouts.find((p: { partnerId: string }) => p.partnerId === partnerId);
    expect(payout).toMatchObject({ amount: '10.00', currency: 'USD', commissionCount: 1 });
    await receiver.waitUntil(
      () =>
        hooksFor('commission.approved', (d) => d.commissionId === touch.commissionId).length === 1 &&
        hooksFor('commission.paid', (d) => d.commissionId === touch.commissionId).length === 1 &&
        hooksFor('payout.created', (d) => d.payoutId === payout.id).length === 1,
    );
    expect(hooksFor('payout.created', (d) => d.payoutId === payout.id)[0]!.json.data).toEqual({
      payoutId: payout.id,
      partnerId,
      amount: '10.00',
      currency: 'USD',
      commissionCount: 1,
    });
  });
});

describe('every attribution status', () => {
  test('no_identity: nobody identified the user', async () => {
    const res = await track('stranger', 10);
    expect(res.body.attribution).toEqual({ status: 'no_identity', model: 'last_click', touches: [] });
    expect(await svc.sql`select 1 from commissions where user_id = 'stranger'`).toHaveLength(0);
  });

  test('no_click: identified, but not through a partner link', async () => {
    await identify(svc, 'organic', []);
    const res = await track('organic', 10);
    expect(res.body.attribution.status).toBe('no_click');
  });

  test('outside_window: the only click is older than the window', async () => {
    const partnerId = await partner(svc, 'old@example.com', [campaignId]);
    const { clickId } = await click(svc, campaignId, partnerId);
    // the visit was three days ago: a click's time is the one in its id
    const threeDaysAgo = newId('click', Date.now() - 3 * 86_400_000);
    await svc.sql`update clicks set id = ${threeDaysAgo} where id = ${clickId}`;
    await identify(svc, 'late_buyer', [threeDaysAgo]);
    await svc.api('PATCH', '/v1/settings', { body: { attributionWindowDays: 2 } });
    const res = await track('late_buyer', 10);
    expect(res.body.attribution.status).toBe('outside_window');
  });
});

describe('multi-touch models split exactly', () => {
  async function journey(userId: string, partners: number): Promise<string[]> {
    const ids: string[] = [];
    const clicks: string[] = [];
    for (let i = 0; i < partners; i++) {
      const partnerId = await partner(svc, `${userId}-${i}@example.com`, [campaignId]);
      ids.push(partnerId);
      clicks.push((await click(svc, campaignId, partnerId)).clickId);
    }
    await identify(svc, userId, clicks);
    return ids;
  }

  test('linear: two partners share 20% of 33.33 and the parts add up', async () => {
    const [first, second] = await journey('linear_user', 2);
    await svc.api('PATCH', '/v1/settings', { body: { attributionModel: 'linear' } });
    const res = await track('linear_user', 33.33);
    expect(res.body.attribution.model).toBe('linear');
    expect(res.body.attribution.touches.map((t: { partnerId: string; weight: number }) => [t.partnerId, t.weight])).toEqual([
      [first, 0.5],
      [second, 0.5],
    ]);
    const rows = await svc.sql`select amount from commissions where user_id = 'linear_user' order by amount desc`;
    // 20% of 33.33 = 6.666 -> 6.67, split 3.34 + 3.33
    expect(rows.map((r) => r.amount)).toEqual([334n, 333n]);
  });

  test('position: first and last 40%, the middle 20%', async () => {
    const [a, b, c] = await journey('position_user', 3);
    await svc.api('PATCH', '/v1/settings', { body: { attributionModel: 'position' } });
    const res = await track('position_user', 100);
    const weights = Object.fromEntries(res.body.attribution.touches.map((t: { partnerId: string; weight: number }) => [t.partnerId, t.weight]));
    expect(weights).toEqual({ [a!]: 0.4, [b!]: 0.2, [c!]: 0.4 });
    const rows = await svc.sql`select partner_id, amount from commissions where user_id = 'position_user'`;
    const byPartner = Object.fromEntries(rows.map((r) => [r.partner_id, r.amount]));
    expect(byPartner).toEqual({ [a!]: 800n, [b!]: 400n, [c!]: 800n });
  });
});
