// Recurring revenue on a sticky referral, and what the commission rules and snapshots decide.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import * as fx from '../support/fixtures';
import { outbox, startService, type TestService } from '../support/service';

let svc: TestService;
beforeAll(async () => {
  svc = await startService();
  await fx.settings(svc.sql, { model: 'last_click', windowDays: 30 });
}, 60_000);
afterAll(() => svc.stop());

const event = (body: Record<string, unknown>, key?: string) =>
  svc.api('POST', '/v1/events', { body, headers: key ? { 'idempotency-key': key } : undefined });

const commissionsOf = (userId: string) =>
  svc.sql`select partner_id, amount, currency, event_type, holdback_days, rule_source from commissions where user_id = ${userId} order by id`;

describe('recurring revenue (sticky referral)', () => {
  test('invoices months apart keep paying the partner who brought the customer, whatever the window and later clicks', async () => {
    const c = await fx.campaign(svc.sql, { rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 20 }] });
    const [first, later] = [await fx.partner(svc.sql), await fx.partner(svc.sql)];
    const { userId } = await fx.referredUser(svc.sql, [{ partnerId: first, campaignId: c, at: new Date('2026-01-10T00:00:00Z') }]);
    const jan = await event({ userId, type: 'invoice_paid', amount: 5000, currency: 'USD', occurredAt: '2026-01-15T00:00:00Z' });
    expect(jan.status).toBe(201);
    // the user later clicks another partner's link; the referral stays with the first partner
    const laterClick = await fx.click(svc.sql, { partnerId: later, campaignId: c, at: new Date('2026-03-01T00:00:00Z') });
    await fx.identify(svc.sql, userId, [laterClick]);
    for (const month of ['2026-02-15', '2026-05-15', '2026-09-15']) {
      const res = await event({ userId, type: 'invoice_paid', amount: 5000, currency: 'USD', occurredAt: `${month}T00:00:00Z` });
      expect(res.status).toBe(201);
    }
    const rows = await commissionsOf(userId);
    expect(rows.map((r) => [r.partner_id, r.amount])).toEqual([
      [first, 1000n],
      [first, 1000n],
      [first, 1000n],
      [first, 1000n],
    ]);
    const events = await svc.sql`select attribution_status from events where user_id = ${userId}`;
    expect(events.every((e) => e.attribution_status === 'attributed')).toBe(true);
    const [referral] = await svc.sql`select model, started_at from referrals where user_id = ${userId}`;
    expect(referral).toEqual({ model: 'last_click', started_at: new Date('2026-01-15T00:00:00Z') });
  });

  test('a sticky referral keeps its model when the setting changes later', async () => {
    await fx.settings(svc.sql, { model: 'linear' });
    const c = await fx.campaign(svc.sql, { rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 10 }] });
    const [a, b] = [await fx.partner(svc.sql), await fx.partner(svc.sql)];
    const { userId } = await fx.referredUser(svc.sql, [
      { partnerId: a, campaignId: c },
      { partnerId: b, campaignId: c },
    ]);
    await event({ userId, type: 'invoice_paid', amount: 1001, currency: 'USD' });
    await fx.settings(svc.sql, { model: 'last_click' });
    const res = await svc.api('POST', '/attribution/events', { body: { userId, type: 'invoice_paid', value: 10.01, currency: 'USD' } });
    expect(res.body.attribution.model).toBe('linear');
    expect(res.body.attribution.touches.map((t: any) => [t.partnerId, t.weight])).toEqual([
      [a, 0.5],
      [b, 0.5],
    ]);
    // 10% of 10.01 = 1.001 -> 1.00: 0.50 + 0.50 each time
    expect((await commissionsOf(userId)).map((r) => r.amount)).toEqual([50n, 50n, 50n, 50n]);
  });

  test('a partner revoked after the referral earns nothing more: its touch is left out, the others keep their weight', async () => {
    await fx.settings(svc.sql, { model: 'linear' });
    const c = await fx.campaign(svc.sql, { rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 10 }] });
    const [kept, revoked] = [await fx.partner(svc.sql), await fx.partner(svc.sql)];
    const { userId } = await fx.referredUser(svc.sql, [
      { partnerId: kept, campaignId: c },
      { partnerId: revoked, campaignId: c },
    ]);
    await event({ userId, type: 'invoice_paid', amount: 10000, currency: 'USD' });
    await fx.revoke(svc.sql, revoked);
    const res = await svc.api('POST', '/attribution/events', { body: { userId, type: 'invoice_paid', value: 100, currency: 'USD' } });
    expect(res.body.attribution.status).toBe('attributed');
    expect(res.body.attribution.touches.map((t: any) => [t.partnerId, t.weight])).toEqual([[kept, 0.5]]);
    expect((await commissionsOf(userId)).map((r) => [r.partner_id, r.amount])).toEqual([
      [kept, 500n],
      [revoked, 500n], // the commission from before the revoke stays intact
      [kept, 500n],
    ]);
    // reinstated, it earns again
    await svc.sql`update partners set revoked_at = null where id = ${revoked}`;
    await event({ userId, type: 'invoice_paid', amount: 10000, currency: 'USD' });
    expect((await commissionsOf(userId)).length).toBe(5);
    await fx.settings(svc.sql, { model: 'last_click' });
  });
});

describe('rule limits', () => {
  test('maxOccurrences 3: the first three invoices pay, the fourth pays nothing but is still attributed', async () => {
    const c = await fx.campaign(svc.sql, { rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 10, maxOccurrences: 3 }] });
    const p = await fx.partner(svc.sql);
    const { userId } = await fx.referredUser(svc.sql, [{ partnerId: p, campaignId: c }]);
    await event({ userId, type: 'signup' }); // another type does not count
    const results = [];
    for (let i = 0; i < 4; i++) {
      const res = await svc.api('POST', '/attribution/events', { body: { userId, type: 'invoice_paid', value: 10, currency: 'USD' } });
      results.push(res.body.attribution.touches[0].commissionId === null ? 'none' : 'paid');
    }
    expect(results).toEqual(['paid', 'paid', 'paid', 'none']);
    expect((await commissionsOf(userId)).length).toBe(3);
  });

  test('durationDays 60: invoices within 60 days of the referral start pay, later ones do not', async () => {
    const c = await fx.campaign(svc.sql, { rules: [{ eventType: 'invoice_paid', kind: 'flat', amount: '5.00', durationDays: 60 }] });
    const p = await fx.partner(svc.sql);
    const { userId } = await fx.referredUser(svc.sql, [{ partnerId: p, campaignId: c, at: new Date('2026-01-01T00:00:00Z') }]);
    await event({ userId, type: 'signup', occurredAt: '2026-01-02T00:00:00Z' }); // starts the referral
    for (const day of ['2026-02-01', '2026-03-03', '2026-03-04']) {
      await event({ userId, type: 'invoice_paid', amount: 1000, currency: 'USD', occurredAt: `${day}T00:00:00Z` });
    }
    // Jan 2 + 60 days = Mar 3: paid; Mar 4: not
    expect((await commissionsOf(userId)).map((r) => r.amount)).toEqual([500n, 500n]);
  });

  test('metadata match picks the rule whose keys all equal; first matching rule wins', async () => {
    const c = await fx.campaign(svc.sql, {
      rules: [
        { eventType: 'subscription_created', kind: 'flat', amount: '50', match: { plan: 'pro', interval: 'year' } },
        { eventType: 'subscription_created', kind: 'flat', amount: '20', match: { plan: 'pro' } },
        { eventType: 'subscription_created', kind: 'flat', amount: '5' },
        { eventType: 'subscription_created', kind: 'flat', amount: '999' },
      ],
    });
    const p = await fx.partner(svc.sql);
    const { userId } = await fx.referredUser(svc.sql, [{ partnerId: p, campaignId: c }]);
    for (const metadata of [{ plan: 'pro', interval: 'year' }, { plan: 'pro', interval: 'month' }, { plan: 'basic' }, {}]) {
      await event({ userId, type: 'subscription_created', metadata });
    }
    expect((await commissionsOf(userId)).map((r) => r.amount)).toEqual([5000n, 2000n, 500n, 500n]);
  });

  test('a custom event type is targeted by name', async () => {
    const c = await fx.campaign(svc.sql, { rules: [{ eventType: 'demo_booked', kind: 'flat', amount: '12.5' }] });
    const p = await fx.partner(svc.sql);
    const { userId } = await fx.referredUser(svc.sql, [{ partnerId: p, campaignId: c }]);
    await event({ userId, type: 'demo_booked' });
    await event({ userId, type: 'demo_cancelled' });
    expect((await commissionsOf(userId)).map((r) => [r.event_type, r.amount])).toEqual([['demo_booked', 1250n]]);
  });
});

describe('commission snapshots and holdback', () => {
  test("a partner's snapshot replaces the campaign's live rules and holdback", async () => {
    const c = await fx.campaign(svc.sql, { holdbackDays: 45, rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 10 }] });
    const [withSnapshot, plain] = [await fx.partner(svc.sql), await fx.partner(svc.sql)];
    await fx.commissionSnapshot(svc.sql, withSnapshot, { rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 40 }], holdbackDays: 7 });
    const u1 = await fx.referredUser(svc.sql, [{ partnerId: withSnapshot, campaignId: c }]);
    const u2 = await fx.referredUser(svc.sql, [{ partnerId: plain, campaignId: c }]);
    await event({ userId: u1.userId, type: 'invoice_paid', amount: 10000, currency: 'USD' });
    await event({ userId: u2.userId, type: 'invoice_paid', amount: 10000, currency: 'USD' });
    expect((await commissionsOf(u1.userId)).map((r) => [r.amount, r.holdback_days])).toEqual([[4000n, 7]]);
    expect((await commissionsOf(u2.userId)).map((r) => [r.amount, r.holdback_days])).toEqual([[1000n, 45]]);
    const accrued = await outbox(svc.sql, 'commission.accrued');
    expect(accrued.slice(-2).map((e) => e.data.amount)).toEqual(['40.00', '10.00']);
  });

  test("a snapshot without a rule for the event type leaves it to the campaign's rule (first level with a matching rule wins)", async () => {
    const c = await fx.campaign(svc.sql, { rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 10 }] });
    const p = await fx.partner(svc.sql);
    await fx.commissionSnapshot(svc.sql, p, { rules: [{ eventType: 'signup', kind: 'flat', amount: '1' }] });
    const { userId } = await fx.referredUser(svc.sql, [{ partnerId: p, campaignId: c }]);
    await event({ userId, type: 'invoice_paid', amount: 10000, currency: 'USD' });
    await event({ userId, type: 'signup' });
    expect((await commissionsOf(userId)).map((r) => [r.event_type, r.amount, r.rule_source])).toEqual([
      ['invoice_paid', 1000n, 'campaign'],
      ['signup', 100n, 'snapshot'],
    ]);
  });

  test('holdback falls back to HOLDBACK_DAYS (30) when neither snapshot nor campaign sets it', async () => {
    const c = await fx.campaign(svc.sql, { rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 10 }] });
    const p = await fx.partner(svc.sql);
    const { userId } = await fx.referredUser(svc.sql, [{ partnerId: p, campaignId: c }]);
    await event({ userId, type: 'invoice_paid', amount: 100, currency: 'USD' });
    expect((await commissionsOf(userId)).map((r) => r.holdback_days)).toEqual([30]);
  });
});

describe('one transaction', () => {
  test('when a write fails half-way, nothing of the event remains: no event, referral, attribution or envelope', async () => {
    const c = await fx.campaign(svc.sql, { rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 10 }] });
    const p = await fx.partner(svc.sql);
    const { userId } = await fx.referredUser(svc.sql, [{ partnerId: p, campaignId: c }]);
    // a real failure inside the database, after the event, referral and attribution rows were written
    await svc.sql.unsafe(`
      create function refuse_commission() returns trigger language plpgsql as $$
      begin
        if new.user_id = '${userId}' then raise exception 'commission refused'; end if;
        return new;
      end $$;
      create trigger refuse_commission before insert on commissions for each row execute function refuse_commission();`);
    try {
      const [envelopesBefore] = await svc.sql`select count(*)::int as n from webhook_events`;
      const res = await event({ userId, type: 'invoice_paid', amount: 1000, currency: 'USD' });
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ code: 'internal', message: 'internal error' });
      expect(await svc.sql`select id from events where user_id = ${userId}`).toHaveLength(0);
      expect(await svc.sql`select user_id from referrals where user_id = ${userId}`).toHaveLength(0);
      expect(await svc.sql`select id from attributions where user_id = ${userId}`).toHaveLength(0);
      const [envelopesAfter] = await svc.sql`select count(*)::int as n from webhook_events`;
      expect(envelopesAfter!.n).toBe(envelopesBefore!.n);
    } finally {
      await svc.sql.unsafe('drop trigger refuse_commission on commissions; drop function refuse_commission();');
    }
    // the same event goes through once the database accepts it
    expect((await event({ userId, type: 'invoice_paid', amount: 1000, currency: 'USD' })).status).toBe(201);
    expect((await commissionsOf(userId)).map((r) => r.amount)).toEqual([100n]);
  });
});
