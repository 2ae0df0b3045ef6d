// Event -> attribution result -> attribution and commission rows -> outbox, for every status and model.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import * as fx from '../support/fixtures';
import { outbox, startService, type TestService } from '../support/service';

let svc: TestService;
let campaignId: string;
beforeAll(async () => {
  svc = await startService({ HOLDBACK_DAYS: '14' });
  campaignId = await fx.campaign(svc.sql, { rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 30 }] });
}, 60_000);
afterAll(() => svc.stop());
beforeEach(() => fx.settings(svc.sql, { model: 'last_click', windowDays: 30 }));

const track = (body: Record<string, unknown>) => svc.api('POST', '/attribution/events', { body });

/** The outbox envelopes an event caused, in order. */
async function envelopesOf(eventId: string) {
  const all = await outbox(svc.sql);
  const attributionIds = new Set(all.filter((e) => e.data.eventId === eventId).map((e) => e.data.attributionId));
  return all.filter((e) => e.data.eventId === eventId || (e.type === 'commission.accrued' && attributionIds.has(e.data.attributionId)));
}

async function rowsOf(eventId: string) {
  const [event] = await svc.sql`select attribution_status, attribution_model, amount, currency from events where id = ${eventId}`;
  const attributions = await svc.sql`select id, click_id, partner_id, campaign_id, model, weight from attributions where event_id = ${eventId} order by id`;
  const commissions = await svc.sql`
    select c.id, c.attribution_id, c.partner_id, c.amount, c.currency, c.status, c.holdback_days, c.event_type, c.event_value,
           (select array_agg(coalesce(from_status, '') || '>' || to_status || ':' || actor) from commission_transitions t where t.commission_id = c.id) as transitions
    from commissions c where c.event_id = ${eventId} order by c.id`;
  return { event: event!, attributions: [...attributions], commissions: [...commissions] };
}

describe('statuses', () => {
  test('no_identity: nobody identified the user; the event is kept, nothing accrues', async () => {
    const res = await track({ userId: fx.userId('stranger'), type: 'invoice_paid', value: 20, currency: 'USD' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ ok: true, eventId: expect.stringMatching(/^evt_/), attribution: { status: 'no_identity', model: 'last_click', touches: [] } });
    const rows = await rowsOf(res.body.eventId);
    expect(rows.event).toEqual({ attribution_status: 'no_identity', attribution_model: 'last_click', amount: 2000n, currency: 'USD' });
    expect(rows.attributions).toHaveLength(0);
    expect(rows.commissions).toHaveLength(0);
    expect(await envelopesOf(res.body.eventId)).toHaveLength(0);
  });

  test('no_click: identified without clicks', async () => {
    const user = fx.userId();
    await fx.identify(svc.sql, user);
    const res = await track({ userId: user, type: 'invoice_paid', value: 20, currency: 'USD' });
    expect(res.body.attribution).toEqual({ status: 'no_click', model: 'last_click', touches: [] });
    expect((await rowsOf(res.body.eventId)).event.attribution_status).toBe('no_click');
  });

  test('no_click: the only click came after the event occurred', async () => {
    const p = await fx.partner(svc.sql);
    const { userId } = await fx.referredUser(svc.sql, [{ partnerId: p, campaignId, at: new Date('2026-03-02T00:00:00Z') }]);
    const res = await track({ userId, type: 'invoice_paid', value: 20, currency: 'USD', occurredAt: '2026-03-01T00:00:00Z' });
    expect(res.body.attribution.status).toBe('no_click');
  });

  test('no_click: the only click belongs to a revoked partner; no attribution for it', async () => {
    const p = await fx.partner(svc.sql);
    const { userId } = await fx.referredUser(svc.sql, [{ partnerId: p, campaignId }]);
    await fx.revoke(svc.sql, p);
    const res = await track({ userId, type: 'invoice_paid', value: 20, currency: 'USD' });
    expect(res.body.attribution).toEqual({ status: 'no_click', model: 'last_click', touches: [] });
    expect(await svc.sql`select 1 from attributions where partner_id = ${p}`).toHaveLength(0);
  });

  test('outside_window: the click is older than the window; attribution is computed as of occurredAt', async () => {
    const p = await fx.partner(svc.sql);
    const { userId } = await fx.referredUser(svc.sql, [{ partnerId: p, campaignId, at: new Date('2026-01-01T00:00:00Z') }]);
    const late = await track({ userId, type: 'invoice_paid', value: 20, currency: 'USD', occurredAt: '2026-02-01T00:00:00Z' });
    expect(late.body.attribution).toEqual({ status: 'outside_window', model: 'last_click', touches: [] });
    // a backfilled event from inside the window is attributed
    const backfill = await track({ userId, type: 'invoice_paid', value: 20, currency: 'USD', occurredAt: '2026-01-30T00:00:00Z' });
    expect(backfill.body.attribution.status).toBe('attributed');
  });

  test('outside_window follows the window setting', async () => {
    await fx.settings(svc.sql, { windowDays: 90 });
    const p = await fx.partner(svc.sql);
    const { userId } = await fx.referredUser(svc.sql, [{ partnerId: p, campaignId, at: fx.daysAgo(60) }]);
    const res = await track({ userId, type: 'invoice_paid', value: 20, currency: 'USD' });
    expect(res.body.attribution.status).toBe('attributed');
  });

  test('attributed, last_click: the newest click in the window takes it all; the clicks of a revoked partner are skipped', async () => {
    const [a, b, revoked] = [await fx.partner(svc.sql), await fx.partner(svc.sql), await fx.partner(svc.sql)];
    const { userId, clickIds } = await fx.referredUser(svc.sql, [
      { partnerId: a, campaignId },
      { partnerId: b, campaignId },
      { partnerId: revoked, campaignId },
    ]);
    await fx.revoke(svc.sql, revoked);
    const res = await track({ userId, type: 'invoice_paid', value: 19.99, currency: 'USD', metadata: { plan: 'pro' } });
    expect(res.status).toBe(201);
    const touches = res.body.attribution.touches;
    expect(res.body.attribution).toEqual({
      status: 'attributed',
      model: 'last_click',
      touches: [{ clickId: clickIds[1], couponCode: null, partnerId: b, weight: 1, attributionId: expect.stringMatching(/^att_/), commissionId: expect.stringMatching(/^com_/), ruleSource: 'campaign' }],
    });

    const rows = await rowsOf(res.body.eventId);
    expect(rows.attributions).toEqual([
      { id: touches[0].attributionId, click_id: clickIds[1], partner_id: b, campaign_id: campaignId, model: 'last_click', weight: 1 },
    ]);
    // 30% of 19.99 = 5.997 -> 6.00
    expect(rows.commissions).toEqual([
      {
        id: touches[0].commissionId,
        attribution_id: touches[0].attributionId,
        partner_id: b,
        amount: 600n,
        currency: 'USD',
        status: 'accrued',
        holdback_days: 14,
        event_type: 'invoice_paid',
        event_value: 1999n,
        transitions: ['>accrued:pipeline'],
      },
    ]);

    const envelopes = await envelopesOf(res.body.eventId);
    expect(envelopes.map((e) => e.type)).toEqual(['attribution.created', 'commission.accrued']);
    expect(envelopes[0]!.data).toEqual({
      attributionId: touches[0].attributionId,
      eventId: res.body.eventId,
      partnerId: b,
      campaignId,
      clickId: clickIds[1],
      couponCode: null,
      model: 'last_click',
      weight: 1,
      eventType: 'invoice_paid',
      eventValue: 19.99,
      commissionId: touches[0].commissionId,
      commissionAmount: '6.00',
      commissionCurrency: 'USD',
    });
    expect(envelopes[1]!.data).toEqual({
      commissionId: touches[0].commissionId,
      partnerId: b,
      attributionId: touches[0].attributionId,
      campaignId,
      amount: '6.00',
      currency: 'USD',
      eventType: 'invoice_paid',
      eventValue: 19.99,
      flags: [],
      ruleSource: 'campaign',
    });
  });
});

describe('models', () => {
  async function threeOrFourPartners(n: number) {
    const partners: string[] = [];
    for (let i = 0; i < n; i++) partners.push(await fx.partner(svc.sql));
    const { userId, clickIds } = await fx.referredUser(svc.sql, partners.map((partnerId) => ({ partnerId, campaignId })));
    return { partners, userId, clickIds };
  }

  test('linear: three touches of 1/3; 30% of 10.00 = 3.00 splits 1.00 each; the parts add up', async () => {
    await fx.settings(svc.sql, { model: 'linear' });
    const { partners, userId, clickIds } = await threeOrFourPartners(3);
    const res = await track({ userId, type: 'invoice_paid', value: 10, currency: 'USD' });
    expect(res.body.attribution.model).toBe('linear');
    expect(res.body.attribution.touches.map((t: any) => [t.clickId, t.partnerId, t.weight])).toEqual(
      clickIds.map((c, i) => [c, partners[i], 1 / 3]),
    );
    const rows = await rowsOf(res.body.eventId);
    expect(rows.commissions.map((c) => c.amount)).toEqual([100n, 100n, 100n]);
    const envelopes = await envelopesOf(res.body.eventId);
    expect(envelopes.map((e) => e.type)).toEqual([
      'attribution.created', 'commission.accrued',
      'attribution.created', 'commission.accrued',
      'attribution.created', 'commission.accrued',
    ]);
    expect(envelopes.filter((e) => e.type === 'commission.accrued').map((e) => e.data.amount)).toEqual(['1.00', '1.00', '1.00']);
  });

  test('linear: 30% of 0.10 = 0.03 over three touches gives 0.01 each; of 0.11 (0.033 -> 0.03) too', async () => {
    await fx.settings(svc.sql, { model: 'linear' });
    const { userId } = await threeOrFourPartners(3);
    const res = await track({ userId, type: 'invoice_paid', value: 0.11, currency: 'USD' });
    const rows = await rowsOf(res.body.eventId);
    expect(rows.commissions.map((c) => c.amount)).toEqual([1n, 1n, 1n]);
  });

  test('linear: an odd cent goes to the largest remainder (earliest on a tie); the sum is the rounded whole', async () => {
    await fx.settings(svc.sql, { model: 'linear' });
    const { userId } = await threeOrFourPartners(3);
    // 30% of 33.34 = 10.002 -> 10.00; thirds 3.334 each -> 3.34 + 3.33 + 3.33
    const res = await track({ userId, type: 'invoice_paid', value: 33.34, currency: 'USD' });
    const rows = await rowsOf(res.body.eventId);
    expect(rows.commissions.map((c) => c.amount)).toEqual([334n, 333n, 333n]);
  });

  test('position with four touches: 2/5, 1/10, 1/10, 2/5; 30% of 99.99 -> 12.00 + 3.00 + 3.00 + 12.00 = 30.00', async () => {
    await fx.settings(svc.sql, { model: 'position' });
    const { partners, userId } = await threeOrFourPartners(4);
    const res = await track({ userId, type: 'invoice_paid', value: 99.99, currency: 'USD' });
    expect(res.body.attribution.touches.map((t: any) => [t.partnerId, t.weight])).toEqual([
      [partners[0], 0.4],
      [partners[1], 0.1],
      [partners[2], 0.1],
      [partners[3], 0.4],
    ]);
    const rows = await rowsOf(res.body.eventId);
    expect(rows.commissions.map((c) => [c.partner_id, c.amount])).toEqual([
      [partners[0], 1200n],
      [partners[1], 300n],
      [partners[2], 300n],
      [partners[3], 1200n],
    ]);
    const [touch] = await svc.sql`select weight_num, weight_den from referral_touches where user_id = ${userId} and position = 1`;
    expect(touch).toEqual({ weight_num: 1, weight_den: 10 });
  });

  test('position with two touches: halves; with one: the whole', async () => {
    await fx.settings(svc.sql, { model: 'position' });
    const two = await threeOrFourPartners(2);
    const res = await track({ userId: two.userId, type: 'invoice_paid', value: 1, currency: 'USD' });
    expect(res.body.attribution.touches.map((t: any) => t.weight)).toEqual([0.5, 0.5]);
    // 30% of 1.00 = 0.30 -> 0.15 + 0.15
    expect((await rowsOf(res.body.eventId)).commissions.map((c) => c.amount)).toEqual([15n, 15n]);
    const one = await threeOrFourPartners(1);
    const single = await track({ userId: one.userId, type: 'invoice_paid', value: 1, currency: 'USD' });
    expect(single.body.attribution.touches.map((t: any) => t.weight)).toEqual([1]);
  });

  test('only the newest ten clicks in the window take part', async () => {
    await fx.settings(svc.sql, { model: 'linear' });
    const { clickIds, userId } = await threeOrFourPartners(12);
    const res = await track({ userId, type: 'invoice_paid', value: 100, currency: 'USD' });
    expect(res.body.attribution.touches.map((t: any) => t.clickId)).toEqual(clickIds.slice(2));
    const rows = await rowsOf(res.body.eventId);
    expect(rows.commissions.reduce((sum, c) => sum + c.amount, 0n)).toBe(3000n);
  });

  test('a touch whose rules yield nothing still gets an attribution, with commissionId null', async () => {
    const p = await fx.partner(svc.sql);
    const { userId } = await fx.referredUser(svc.sql, [{ partnerId: p, campaignId }]);
    const res = await track({ userId, type: 'signup' });
    expect(res.body.attribution.touches).toEqual([expect.objectContaining({ partnerId: p, weight: 1, commissionId: null })]);
    const envelopes = await envelopesOf(res.body.eventId);
    expect(envelopes.map((e) => [e.type, e.data.commissionId, e.data.commissionAmount, e.data.eventValue])).toEqual([
      ['attribution.created', null, null, 0],
    ]);
  });
});

describe('currencies', () => {
  test('JPY has no decimals and KWD three, in rows and payloads', async () => {
    const p = await fx.partner(svc.sql);
    const { userId } = await fx.referredUser(svc.sql, [{ partnerId: p, campaignId }]);
    const jpy = await svc.api('POST', '/v1/events', { body: { userId, type: 'invoice_paid', amount: 1255, currency: 'JPY' } });
    expect(jpy.status).toBe(201);
    const kwd = await track({ userId, type: 'invoice_paid', value: 1.255, currency: 'KWD' });
    // 30% of 1255 yen = 376.5 -> 376 (half-even); 30% of 1.255 KWD = 0.3765 -> 0.376
    const all = await outbox(svc.sql, 'commission.accrued');
    expect(all.slice(-2).map((e) => [e.data.amount, e.data.currency, e.data.eventValue])).toEqual([
      ['376', 'JPY', 1255],
      ['0.376', 'KWD', 1.255],
    ]);
    expect((await rowsOf(kwd.body.eventId)).commissions[0]!.amount).toBe(376n);
  });

  test('a flat rule pays its amount in the campaign currency, whatever the event currency', async () => {
    const eur = await fx.campaign(svc.sql, { currency: 'EUR', rules: [{ eventType: 'subscription_created', kind: 'flat', amount: '25.00' }] });
    const p = await fx.partner(svc.sql);
    const { userId } = await fx.referredUser(svc.sql, [{ partnerId: p, campaignId: eur }]);
    const res = await track({ userId, type: 'subscription_created', value: 99, currency: 'USD' });
    const rows = await rowsOf(res.body.eventId);
    expect(rows.commissions.map((c) => [c.amount, c.currency, c.event_value])).toEqual([[2500n, 'EUR', null]]);
  });
});
