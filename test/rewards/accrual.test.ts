// Rewards at accrual: which level's rule pays (snapshot > group > campaign, stated as ruleSource),
// tiers measured over the trailing period, and exact money with multi-touch splits.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import * as fx from '../support/fixtures';
import type { Rule } from '../../src/modules/campaigns/rules';
import { startService, type TestService } from '../support/service';

let svc: TestService;
beforeAll(async () => {
  svc = await startService();
}, 60_000);
afterAll(() => svc.stop());

const DAY = 86_400_000;

async function track(body: Record<string, unknown>) {
  const res = await svc.api('POST', '/attribution/events', { body });
  expect(res.status).toBe(201);
  return res.body;
}

async function group(body: Record<string, unknown>): Promise<string> {
  const res = await svc.api('POST', '/v1/groups', { body });
  expect(res.status).toBe(201);
  return res.body.id;
}

async function commission(id: string) {
  const res = await svc.api('GET', `/v1/commissions/${id}`);
  expect(res.status).toBe(200);
  return res.body;
}

describe('precedence: the first level with a rule matching the event wins', () => {
  type Case = { label: string; snapshot?: object; group?: 'scoped' | 'general' | 'both' | 'other-event'; amount: string | null; source: string | null; holdbackDays?: number };
  const cases: Case[] = [
    { label: 'no snapshot, no group: the campaign rule (10%)', amount: '10.00', source: 'campaign', holdbackDays: 7 },
    { label: "group rule for every campaign (15%) wins over the campaign's", group: 'general', amount: '15.00', source: 'group', holdbackDays: 3 },
    { label: 'group rule for this campaign (20%) wins over the group rule for every campaign', group: 'both', amount: '20.00', source: 'group', holdbackDays: 3 },
    { label: 'group rule for this campaign alone (20%)', group: 'scoped', amount: '20.00', source: 'group', holdbackDays: 3 },
    { label: 'group with rules for another event type only: the campaign rule', group: 'other-event', amount: '10.00', source: 'campaign', holdbackDays: 3 },
    {
      label: 'snapshot rule (30%) wins over the group and the campaign; its holdback too',
      snapshot: { rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 30 }], holdbackDays: 1 },
      group: 'both',
      amount: '30.00',
      source: 'snapshot',
      holdbackDays: 1,
    },
    {
      label: 'snapshot without a matching rule (metadata differs): the group rule',
      snapshot: { rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 30, match: { plan: 'gold' } }] },
      group: 'scoped',
      amount: '20.00',
      source: 'group',
      holdbackDays: 3,
    },
  ];

  let campaignId: string;
  let groups: Record<string, string>;
  beforeAll(async () => {
    campaignId = await fx.campaign(svc.sql, { rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 10 }], holdbackDays: 7 });
    const other = await fx.campaign(svc.sql, { rules: [] });
    const scoped = { eventType: 'invoice_paid', kind: 'percent', percent: 20, campaignId };
    const general = { eventType: 'invoice_paid', kind: 'percent', percent: 15 };
    groups = {
      scoped: await group({ name: 'Scoped', rules: [scoped, { ...scoped, percent: 50, campaignId: other }], holdbackDays: 3 }),
      general: await group({ name: 'General', rules: [general], holdbackDays: 3 }),
      // the general rule is listed first: the campaign's own rule still wins
      both: await group({ name: 'Both', rules: [general, scoped], holdbackDays: 3 }),
      'other-event': await group({ name: 'Signups', rules: [{ eventType: 'signup', kind: 'flat', amount: '5' }], holdbackDays: 3 }),
    };
  });

  for (const c of cases) {
    test(c.label, async () => {
      const partnerId = await fx.partner(svc.sql);
      if (c.group) expect((await svc.api('PATCH', `/v1/partners/${partnerId}`, { body: { groupId: groups[c.group] } })).status).toBe(200);
      if (c.snapshot) await fx.commissionSnapshot(svc.sql, partnerId, c.snapshot as never);
      const { userId } = await fx.referredUser(svc.sql, [{ partnerId, campaignId }]);
      const result = await track({ userId, type: 'invoice_paid', value: 100, currency: 'USD' });
      const [touch] = result.attribution.touches;
      expect(touch.ruleSource).toBe(c.source);
      const com = await commission(touch.commissionId);
      expect(com).toMatchObject({ amount: c.amount, ruleSource: c.source, holdbackDays: c.holdbackDays, sourceCommissionId: null });
      const [envelope] = await svc.sql`select data from webhook_events where type = 'commission.accrued' and data->>'commissionId' = ${touch.commissionId}`;
      expect(envelope!.data).toMatchObject({ ruleSource: c.source, amount: c.amount });
    });
  }

  test('no level has a matching rule: ruleSource null, no commission; an idempotent replay answers the same', async () => {
    const partnerId = await fx.partner(svc.sql);
    const { userId } = await fx.referredUser(svc.sql, [{ partnerId, campaignId }]);
    const body = { userId, type: 'refund_requested', value: 100, currency: 'USD' };
    const first = await svc.api('POST', '/attribution/events', { body, headers: { 'idempotency-key': `none-${userId}` } });
    expect(first.body.attribution.touches).toEqual([expect.objectContaining({ ruleSource: null, commissionId: null })]);
    const replay = await svc.api('POST', '/attribution/events', { body, headers: { 'idempotency-key': `none-${userId}` } });
    expect(replay.status).toBe(200);
    expect(replay.body.attribution).toEqual(first.body.attribution);
  });

  test('an idempotent replay states the ruleSource of the original answer', async () => {
    const partnerId = await fx.partner(svc.sql);
    await svc.api('PATCH', `/v1/partners/${partnerId}`, { body: { groupId: groups.scoped } });
    const { userId } = await fx.referredUser(svc.sql, [{ partnerId, campaignId }]);
    const body = { userId, type: 'invoice_paid', value: 100, currency: 'USD' };
    const first = await svc.api('POST', '/attribution/events', { body, headers: { 'idempotency-key': `grp-${userId}` } });
    const replay = await svc.api('POST', '/attribution/events', { body, headers: { 'idempotency-key': `grp-${userId}` } });
    expect(replay.status).toBe(200);
    expect(replay.body.attribution.touches).toEqual(first.body.attribution.touches);
    expect(replay.body.attribution.touches[0].ruleSource).toBe('group');
  });
});

describe('tiers: the trailing period before the event picks the tier', () => {
  const rule: Rule = {
    eventType: 'invoice_paid',
    kind: 'percent',
    percent: 10,
    periodDays: 30,
    tiers: [
      { minRevenue: '1000.00', percent: 20 },
      { minCustomers: 3, percent: 25 },
    ],
  };
  let campaignId: string;
  beforeAll(async () => {
    campaignId = await fx.campaign(svc.sql, { rules: [rule] });
  });

  /** Earlier sales of the partner: each a new customer who bought `value` USD `daysAgo` days ago. */
  async function history(partnerId: string, sales: { value: number; daysAgo: number; currency?: string }[]) {
    for (const s of sales) {
      const at = new Date(Date.now() - s.daysAgo * DAY);
      const { userId } = await fx.referredUser(svc.sql, [{ partnerId, campaignId, at: new Date(at.getTime() - 60_000) }]);
      await track({ userId, type: 'invoice_paid', value: s.value, currency: s.currency ?? 'USD', occurredAt: at.toISOString() });
    }
  }

  type Case = { label: string; sales: { value: number; daysAgo: number; currency?: string }[]; amount: string };
  const cases: Case[] = [
    { label: 'no history: the rule’s own 10%', sales: [], amount: '10.00' },
    { label: 'revenue just below the threshold (999.99): 10%', sales: [{ value: 500, daysAgo: 5 }, { value: 499.99, daysAgo: 4 }], amount: '10.00' },
    { label: 'revenue at the threshold (1000.00): 20%', sales: [{ value: 500, daysAgo: 5 }, { value: 500, daysAgo: 4 }], amount: '20.00' },
    { label: 'revenue above the threshold: 20%', sales: [{ value: 800, daysAgo: 5 }, { value: 700, daysAgo: 4 }], amount: '20.00' },
    { label: 'three new customers: 25% (the reached tier paying most)', sales: [{ value: 400, daysAgo: 3 }, { value: 400, daysAgo: 2 }, { value: 400, daysAgo: 1 }], amount: '25.00' },
    { label: 'two customers only: revenue tier 20% wins over nothing', sales: [{ value: 600, daysAgo: 3 }, { value: 600, daysAgo: 2 }], amount: '20.00' },
    { label: 'a sale older than the period (31 days) does not count', sales: [{ value: 500, daysAgo: 31 }, { value: 500, daysAgo: 4 }], amount: '10.00' },
    { label: 'a sale just inside the period (29 days) counts', sales: [{ value: 500, daysAgo: 29 }, { value: 500, daysAgo: 4 }], amount: '20.00' },
    { label: 'revenue in another currency does not count toward a USD threshold', sales: [{ value: 5000, daysAgo: 4, currency: 'EUR' }], amount: '10.00' },
  ];
  for (const c of cases) {
    test(c.label, async () => {
      const partnerId = await fx.partner(svc.sql);
      await history(partnerId, c.sales);
      const { userId } = await fx.referredUser(svc.sql, [{ partnerId, campaignId }]);
      const result = await track({ userId, type: 'invoice_paid', value: 100, currency: 'USD' });
      expect((await commission(result.attribution.touches[0].commissionId)).amount).toBe(c.amount);
    });
  }

  test('a reversed sale no longer counts toward the tier', async () => {
    const partnerId = await fx.partner(svc.sql);
    await history(partnerId, [{ value: 500, daysAgo: 5 }, { value: 500, daysAgo: 4 }]);
    const [last] = await svc.sql`select id from commissions where partner_id = ${partnerId} order by id desc limit 1`;
    expect((await svc.api('POST', `/v1/commissions/${last!.id}/reverse`, { body: { reason: 'refund' } })).status).toBe(200);
    const { userId } = await fx.referredUser(svc.sql, [{ partnerId, campaignId }]);
    const result = await track({ userId, type: 'invoice_paid', value: 100, currency: 'USD' });
    expect((await commission(result.attribution.touches[0].commissionId)).amount).toBe('10.00');
  });

  test('flat tiers: the amount of the reached tier', async () => {
    const flat = await fx.campaign(svc.sql, {
      currency: 'JPY',
      rules: [{ eventType: 'signup', kind: 'flat', amount: '100', tiers: [{ minCustomers: 1, amount: '150' }, { minCustomers: 2, amount: '300' }] }],
    });
    const partnerId = await fx.partner(svc.sql);
    const amounts: string[] = [];
    for (let i = 0; i < 3; i++) {
      const at = new Date(Date.now() - (3 - i) * DAY);
      const { userId } = await fx.referredUser(svc.sql, [{ partnerId, campaignId: flat, at: new Date(at.getTime() - 60_000) }]);
      const result = await track({ userId, type: 'signup', occurredAt: at.toISOString() });
      amounts.push((await commission(result.attribution.touches[0].commissionId)).amount);
    }
    expect(amounts).toEqual(['100', '150', '300']);
  });

  test('a multi-touch split with one partner in a tier: parts add up exactly to the rounded whole', async () => {
    await fx.settings(svc.sql, { model: 'linear' });
    try {
      const inTier = await fx.partner(svc.sql);
      const plain = await fx.partner(svc.sql);
      const other = await fx.partner(svc.sql);
      await history(inTier, [{ value: 1000, daysAgo: 2 }]);
      const { userId } = await fx.referredUser(svc.sql, [
        { partnerId: inTier, campaignId },
        { partnerId: plain, campaignId },
        { partnerId: other, campaignId },
      ]);
      // 33.33: 20% x 1/3 = 2.222, 10% x 1/3 = 1.111 twice; whole 4.4442 -> 4.44
      const result = await track({ userId, type: 'invoice_paid', value: 33.33, currency: 'USD' });
      const amounts = await Promise.all(result.attribution.touches.map(async (t: any) => (await commission(t.commissionId)).amount));
      expect(amounts).toEqual(['2.22', '1.11', '1.11']);
      const cents = amounts.reduce((sum: number, a: string) => sum + Math.round(Number(a) * 100), 0);
      expect(cents).toBe(444);
    } finally {
      await fx.settings(svc.sql, { model: 'last_click' });
    }
  });
});
