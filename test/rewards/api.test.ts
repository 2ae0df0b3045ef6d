// The rewards API: groups (validation, scopes), groupId on partners, recruiterPercent and tiers on
// campaigns, and the rule preview (matches a real accrual replay, writes nothing).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import * as fx from '../support/fixtures';
import { startService, type TestService } from '../support/service';

let svc: TestService;
let campaignId: string;
beforeAll(async () => {
  svc = await startService();
  campaignId = await fx.campaign(svc.sql, { rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 10 }] });
}, 60_000);
afterAll(() => svc.stop());

const pct = { eventType: 'invoice_paid', kind: 'percent' as const, percent: 10 };

describe('groups', () => {
  test('create, read, list, update', async () => {
    const created = await svc.api('POST', '/v1/groups', { body: { name: ' Gold ', rules: [{ ...pct, campaignId }], holdbackDays: 14 } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: expect.stringMatching(/^grp_/), name: 'Gold', rules: [{ ...pct, campaignId }], holdbackDays: 14, createdAt: expect.any(String) });
    expect((await svc.api('GET', `/v1/groups/${created.body.id}`)).body).toEqual(created.body);
    expect((await svc.api('GET', '/v1/groups')).body.groups.map((g: any) => g.id)).toContain(created.body.id);
    const patched = await svc.api('PATCH', `/v1/groups/${created.body.id}`, { body: { holdbackDays: null, rules: [] } });
    expect(patched.body).toMatchObject({ name: 'Gold', rules: [], holdbackDays: null });
  });

  const bad: [string, unknown, string][] = [
    ['percent rule without percent', { eventType: 'invoice_paid', kind: 'percent' }, 'rules.0.percent'],
    ['unknown campaign', { ...pct, campaignId: 'cmp_01jd8x0000000000000000000a' }, 'rules.0.campaignId'],
    ['tier without threshold', { ...pct, tiers: [{ percent: 20 }] }, 'rules.0.tiers.0'],
    ['amount tier on a percent rule', { ...pct, tiers: [{ minCustomers: 2, amount: '5' }] }, 'rules.0.tiers.0.amount'],
    ['percent tier on a flat rule', { eventType: 'signup', kind: 'flat', amount: '1', tiers: [{ minCustomers: 2, percent: 5 }] }, 'rules.0.tiers.0.percent'],
  ];
  for (const [label, rule, field] of bad) {
    test(`400 for a ${label}: the field is named, nothing written`, async () => {
      const [before] = await svc.sql`select count(*)::int as n from partner_groups`;
      const res = await svc.api('POST', '/v1/groups', { body: { name: 'Bad', rules: [rule] } });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('invalid_body');
      expect(res.body.details.map((d: any) => d.field)).toContain(field);
      const [after] = await svc.sql`select count(*)::int as n from partner_groups`;
      expect(after!.n).toBe(before!.n);
    });
  }

  test('schema errors: periodDays 0, a tier percent over 100, minCustomers 0, a name of spaces', async () => {
    const tiers = (tier: object) => ({ name: 'X', rules: [{ ...pct, tiers: [tier] }] });
    for (const body of [{ name: 'X', rules: [{ ...pct, periodDays: 0 }] }, tiers({ minCustomers: 1, percent: 101 }), tiers({ minCustomers: 0, percent: 5 }), { name: '  ' }]) {
      const res = await svc.api('POST', '/v1/groups', { body });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('invalid_body');
    }
  });

  test('unknown group: 404; a garbled id: 404', async () => {
    expect((await svc.api('GET', '/v1/groups/grp_01jd8x0000000000000000000a')).status).toBe(404);
    expect((await svc.api('PATCH', '/v1/groups/nope', { body: { name: 'x' } })).status).toBe(404);
  });

  test('partners may not create or read groups; campaigns:read reads, only campaigns:write writes', async () => {
    const p = await fx.partner(svc.sql);
    const partnerKey = await svc.partnerKey(p);
    expect((await svc.api('POST', '/v1/groups', { key: partnerKey, body: { name: 'Mine' } })).status).toBe(403);
    expect((await svc.api('GET', '/v1/groups', { key: partnerKey })).status).toBe(403);
    const reader = await svc.scopedKey(['campaigns:read']);
    expect((await svc.api('GET', '/v1/groups', { key: reader })).status).toBe(200);
    expect((await svc.api('POST', '/v1/groups', { key: reader, body: { name: 'No' } })).status).toBe(403);
  });

  test('groupId on partners: set, filter, clear; an unknown group is a 400 naming groupId', async () => {
    const g = (await svc.api('POST', '/v1/groups', { body: { name: 'Silver' } })).body.id;
    const created = await svc.api('POST', '/v1/partners', { body: { email: 'grouped@example.com', name: 'G', sendInvite: false, groupId: g } });
    expect(created.status).toBe(201);
    expect((await svc.api('GET', `/v1/partners/${created.body.id}`)).body.groupId).toBe(g);
    expect((await svc.api('GET', `/v1/partners?groupId=${g}`)).body.partners.map((p: any) => p.id)).toEqual([created.body.id]);
    const bad = await svc.api('PATCH', `/v1/partners/${created.body.id}`, { body: { groupId: 'grp_01jd8x0000000000000000000a' } });
    expect(bad.status).toBe(400);
    expect(bad.body.details).toEqual([{ field: 'groupId', message: 'unknown group grp_01jd8x0000000000000000000a' }]);
    const dup = await svc.api('POST', '/v1/partners', { body: { email: 'bad-group@example.com', name: 'B', groupId: 'nope' } });
    expect(dup.status).toBe(400);
    expect(await svc.sql`select 1 from partners where email = 'bad-group@example.com'`).toHaveLength(0);
    expect((await svc.api('PATCH', `/v1/partners/${created.body.id}`, { body: { groupId: null } })).body.groupId).toBeNull();
  });
});

describe('campaign fields', () => {
  test('recruiterPercent: set, read, cleared; more than 4 decimals or out of range is a 400', async () => {
    const res = await svc.api('POST', '/v1/campaigns', { body: { name: 'Two-tier', destinationUrl: 'https://x.example.com/', currency: 'USD', recruiterPercent: 7.5 } });
    expect(res.status).toBe(201);
    expect(res.body.recruiterPercent).toBe(7.5);
    expect((await svc.api('PATCH', `/v1/campaigns/${res.body.id}`, { body: { recruiterPercent: null } })).body.recruiterPercent).toBeNull();
    for (const recruiterPercent of [0, 101, 1.00001]) {
      const bad = await svc.api('PATCH', `/v1/campaigns/${res.body.id}`, { body: { recruiterPercent } });
      expect(bad.status).toBe(400);
    }
  });

  test('tier amounts must fit the campaign currency', async () => {
    const res = await svc.api('POST', '/v1/campaigns', {
      body: { name: 'Yen', destinationUrl: 'https://x.example.com/', currency: 'JPY', rules: [{ eventType: 'signup', kind: 'flat', amount: '100', tiers: [{ minRevenue: '10.5', amount: '1.5' }] }] },
    });
    expect(res.status).toBe(400);
    expect(res.body.details.map((d: any) => d.field).sort()).toEqual(['rules.0.tiers.0.amount', 'rules.0.tiers.0.minRevenue']);
  });
});

describe('rule preview', () => {
  let previewCampaign: string;
  let alice: string;
  let bob: string;
  const sales = [100, 250.5, 19.99];

  async function sellAll() {
    for (const partnerId of [alice, bob]) {
      for (const value of sales) {
        const { userId } = await fx.referredUser(svc.sql, [{ partnerId, campaignId: previewCampaign }]);
        const res = await svc.api('POST', '/attribution/events', { body: { userId, type: 'invoice_paid', value, currency: 'USD' } });
        expect(res.status).toBe(201);
      }
    }
  }

  beforeAll(async () => {
    previewCampaign = await fx.campaign(svc.sql, { rules: [pct] });
    alice = await fx.partner(svc.sql);
    bob = await fx.partner(svc.sql);
    const g = (await svc.api('POST', '/v1/groups', { body: { name: 'Bob group', rules: [{ ...pct, percent: 30, campaignId: previewCampaign }] } })).body.id;
    await svc.api('PATCH', `/v1/partners/${bob}`, { body: { groupId: g } });
    await sellAll();
  });

  const draft = [
    { eventType: 'invoice_paid', kind: 'percent', percent: 12.5 },
    { eventType: 'signup', kind: 'flat', amount: '2' },
  ];

  test('answers current vs draft per partner (the group still wins for its members); nothing is written', async () => {
    const tables = ['events', 'attributions', 'commissions', 'webhook_events', 'commission_transitions'];
    const count = async () => Promise.all(tables.map(async (t) => (await svc.sql`select count(*)::int as n from ${svc.sql(t)}`)[0]!.n));
    const before = await count();
    const res = await svc.api('POST', `/v1/campaigns/${previewCampaign}/preview`, { body: { rules: draft, days: 30 } });
    expect(res.status).toBe(200);
    // alice: 10% of 370.49 = 10.00 + 25.05 + 2.00 = 37.05; 12.5%: 12.50 + 31.31 (31.3125) + 2.50 (2.49875) = 46.31
    // bob: 30% (group) either way: 30.00 + 75.15 + 6.00 = 111.15
    expect(res.body).toEqual({
      currency: 'USD',
      days: 30,
      partners: [
        { partnerId: alice, current: '37.05', preview: '46.31', difference: '9.26' },
        { partnerId: bob, current: '111.15', preview: '111.15', difference: '0.00' },
      ].sort((a, b) => a.partnerId.localeCompare(b.partnerId)),
      total: { current: '148.20', preview: '157.46', difference: '9.26' },
    });
    expect(await count()).toEqual(before);
  });

  test('matches a real accrual replay: the same sales under the draft rules earn what the preview said', async () => {
    const res = await svc.api('POST', `/v1/campaigns/${previewCampaign}/preview`, { body: { rules: draft, days: 30 } });
    const [mark] = await svc.sql`select coalesce(max(id), '') as id from commissions`;
    expect((await svc.api('PATCH', `/v1/campaigns/${previewCampaign}`, { body: { rules: draft } })).status).toBe(200);
    await sellAll();
    const rows = await svc.sql`select partner_id, sum(amount)::bigint as amount from commissions where id > ${mark!.id} and campaign_id = ${previewCampaign} group by 1`;
    const replayed = Object.fromEntries(rows.map((r) => [r.partner_id, r.amount]));
    expect(res.body.partners).toHaveLength(2);
    for (const p of res.body.partners) expect(String(replayed[p.partnerId])).toBe(p.preview.replace('.', ''));
  });

  test('bad input: days 0 or 366, a broken rule, an unknown campaign; partners and read-only keys are refused', async () => {
    for (const body of [{ rules: [], days: 0 }, { rules: [], days: 366 }, { rules: [], days: 1.5 }, { rules: [{ eventType: 'x', kind: 'percent' }], days: 5 }, { days: 5 }]) {
      const res = await svc.api('POST', `/v1/campaigns/${previewCampaign}/preview`, { body });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('invalid_body');
    }
    expect((await svc.api('POST', '/v1/campaigns/cmp_01jd8x0000000000000000000a/preview', { body: { rules: [], days: 5 } })).status).toBe(404);
    const partnerKey = await svc.partnerKey(alice);
    expect((await svc.api('POST', `/v1/campaigns/${previewCampaign}/preview`, { key: partnerKey, body: { rules: [], days: 5 } })).status).toBe(403);
    const reader = await svc.scopedKey(['campaigns:read']);
    expect((await svc.api('POST', `/v1/campaigns/${previewCampaign}/preview`, { key: reader, body: { rules: [], days: 5 } })).status).toBe(403);
  });
});

// The preview of the rules a campaign already has must answer what those rules accrued, partner by
// partner, whatever the rules use: tiers measured over the same sales, metadata matches, occurrence
// limits, multi-touch splits (linear) and recruiter overrides.
describe('rule preview of the live rules equals what they accrued', () => {
  const cases: [string, unknown[]][] = [
    ['tiers by customers and revenue', [{ ...pct, tiers: [{ minCustomers: 2, percent: 20 }, { minRevenue: '150', percent: 15 }] }]],
    ['metadata match before the catch-all', [{ ...pct, percent: 20, match: { plan: 'pro' } }, { ...pct, percent: 5 }]],
    ['flat with maxOccurrences 1', [{ eventType: 'invoice_paid', kind: 'flat', amount: '3.33', maxOccurrences: 1 }]],
    ['flat tiers by revenue', [{ eventType: 'invoice_paid', kind: 'flat', amount: '1', tiers: [{ minRevenue: '100', amount: '2.5' }] }]],
  ];

  beforeAll(() => fx.settings(svc.sql, { model: 'linear' }));
  afterAll(() => fx.settings(svc.sql, { model: 'last_click' }));

  for (const [label, rules] of cases) {
    test(label, async () => {
      const campaign = await fx.campaign(svc.sql, { rules: rules as never });
      expect((await svc.api('PATCH', `/v1/campaigns/${campaign}`, { body: { recruiterPercent: 10 } })).status).toBe(200);
      const [alice, bob, carol] = [await fx.partner(svc.sql), await fx.partner(svc.sql), await fx.partner(svc.sql)];
      expect((await svc.api('PATCH', `/v1/partners/${bob}`, { body: { referredBy: alice } })).status).toBe(200);
      // one partner, two partners (halves), three touches of two partners (thirds); each user buys twice
      for (const touches of [[alice], [bob], [alice, bob], [bob, carol, bob], [carol]]) {
        const { userId } = await fx.referredUser(svc.sql, touches.map((partnerId) => ({ partnerId, campaignId: campaign })));
        for (const [value, plan] of [[100, 'pro'], [33.33, 'basic']] as const) {
          const res = await svc.api('POST', '/attribution/events', { body: { userId, type: 'invoice_paid', value, currency: 'USD', metadata: { plan } } });
          expect(res.status).toBe(201);
        }
      }
      const res = await svc.api('POST', `/v1/campaigns/${campaign}/preview`, { body: { rules, days: 30 } });
      expect(res.status).toBe(200);
      const rows = await svc.sql`select partner_id, sum(amount)::bigint as amount from commissions where campaign_id = ${campaign} group by 1`;
      const accrued = Object.fromEntries(rows.map((r) => [r.partner_id, r.amount]));
      expect(res.body.partners.map((p: any) => p.partnerId).sort()).toEqual([alice, bob, carol].sort());
      for (const p of res.body.partners) {
        expect(p.preview.replace('.', '')).toBe(String(accrued[p.partnerId]));
        expect(p).toMatchObject({ current: p.preview, difference: '0.00' });
      }
    });
  }
});
