// Two-tier rewards: a recruiter's recruit_override commission on each of its recruit's, through the
// whole lifecycle, and never more than one level deep.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { reduceCommissionIn } from '../../src/modules/commissions/lifecycle';
import * as fx from '../support/fixtures';
import { startService, type TestService } from '../support/service';

let svc: TestService;
let campaignId: string;
beforeAll(async () => {
  svc = await startService();
  campaignId = await fx.campaign(svc.sql, { rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 20 }] });
  await svc.sql`update campaigns set recruiter_percent = 12.5 where id = ${campaignId}`;
}, 60_000);
afterAll(() => svc.stop());

/** A recruiter and its recruit (referredBy set over the API). */
async function pair(): Promise<{ recruiter: string; recruit: string }> {
  const recruiter = await fx.partner(svc.sql);
  const recruit = await fx.partner(svc.sql);
  const res = await svc.api('PATCH', `/v1/partners/${recruit}`, { body: { referredBy: recruiter } });
  expect(res.status).toBe(200);
  expect(res.body.referredBy).toBe(recruiter);
  return { recruiter, recruit };
}

/** The recruit earns on a sale of `value` USD; answers the recruit's commission and the override rows. */
async function sale(recruit: string, value: number, campaign = campaignId) {
  const { userId } = await fx.referredUser(svc.sql, [{ partnerId: recruit, campaignId: campaign }]);
  const res = await svc.api('POST', '/attribution/events', { body: { userId, type: 'invoice_paid', value, currency: 'USD' } });
  expect(res.status).toBe(201);
  const commissionId: string = res.body.attribution.touches[0].commissionId;
  const overrides = await svc.sql`select id, partner_id, amount, status, event_type from commissions where source_commission_id = ${commissionId}`;
  return { commissionId, overrides, eventId: res.body.eventId as string };
}

const get = async (id: string) => (await svc.api('GET', `/v1/commissions/${id}`)).body;

describe('accrual', () => {
  test.each([
    ['100.00 sale: 20.00 commission, 12.5% override = 2.50', 100, '20.00', '2.50'],
    ['0.10 sale: 0.02 commission, override 0.0025 rounds half-even to 0.00 (none)', 0.1, '0.02', null],
    ['0.30 sale: 0.06 commission, override 0.0075 rounds to 0.01', 0.3, '0.06', '0.01'],
    ['1.00 sale: 0.20 commission, override 0.025 rounds half-even to 0.02', 1, '0.20', '0.02'],
  ])('%s', async (_label, value, commission, override) => {
    const { recruiter, recruit } = await pair();
    const s = await sale(recruit, value);
    expect((await get(s.commissionId)).amount).toBe(commission);
    if (override === null) {
      expect(s.overrides).toHaveLength(0);
      return;
    }
    expect(s.overrides).toHaveLength(1);
    const o = await get(s.overrides[0]!.id);
    expect(o).toMatchObject({
      partnerId: recruiter,
      campaignId,
      eventId: s.eventId,
      eventType: 'recruit_override',
      amount: override,
      status: 'accrued',
      ruleSource: 'campaign',
      sourceCommissionId: s.commissionId,
      eventValue: Number(commission),
    });
    const [envelope] = await svc.sql`select data from webhook_events where type = 'commission.accrued' and data->>'commissionId' = ${o.id}`;
    expect(envelope!.data).toMatchObject({ partnerId: recruiter, eventType: 'recruit_override', amount: override });
  });

  test('a campaign without recruiterPercent pays no override', async () => {
    const off = await fx.campaign(svc.sql, { rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 20 }] });
    const { recruit } = await pair();
    expect((await sale(recruit, 100, off)).overrides).toHaveLength(0);
  });

  test('a revoked recruiter earns no override', async () => {
    const { recruiter, recruit } = await pair();
    expect((await svc.api('POST', `/v1/partners/${recruiter}/revoke`, { body: { reason: 'fraud' } })).status).toBe(200);
    expect((await sale(recruit, 100)).overrides).toHaveLength(0);
  });

  test('one level only: the recruiter of a recruiter earns nothing on the override', async () => {
    const { recruiter, recruit } = await pair();
    const top = await fx.partner(svc.sql);
    expect((await svc.api('PATCH', `/v1/partners/${recruiter}`, { body: { referredBy: top } })).status).toBe(200);
    const s = await sale(recruit, 100);
    expect(s.overrides.map((o) => o.partner_id)).toEqual([recruiter]);
    const [row] = await svc.sql`select count(*)::int as n from commissions where partner_id = ${top}`;
    expect(row!.n).toBe(0);
  });
});

describe('lifecycle follows the recruit', () => {
  test('approve and pay: the override is its own commission, approved and paid like any other', async () => {
    const { recruiter, recruit } = await pair();
    const s = await sale(recruit, 100);
    const overrideId = s.overrides[0]!.id;
    expect((await svc.api('POST', `/v1/commissions/${overrideId}/approve`)).body.status).toBe('approved');
    const run = await svc.api('POST', '/v1/payouts/run');
    expect(run.status).toBeLessThan(300);
    const payout = run.body.payouts.find((p: any) => p.partnerId === recruiter);
    expect(payout).toMatchObject({ amount: '2.50', currency: 'USD' });
    expect(await get(overrideId)).toMatchObject({ status: 'paid', payoutId: payout.id });
  });

  test("reversing the recruit's commission reverses the override (a paid one gets a clawback)", async () => {
    const { recruiter, recruit } = await pair();
    const s = await sale(recruit, 100);
    const overrideId = s.overrides[0]!.id;
    await svc.api('POST', `/v1/commissions/${overrideId}/approve`);
    await svc.api('POST', '/v1/payouts/run');
    expect((await get(overrideId)).status).toBe('paid');
    const res = await svc.api('POST', `/v1/commissions/${s.commissionId}/reverse`, { body: { reason: 'chargeback' } });
    expect(res.status).toBe(200);
    expect(await get(overrideId)).toMatchObject({ status: 'reversed', reason: 'chargeback' });
    const claw = await svc.sql`select partner_id, amount from clawbacks where commission_id = ${overrideId}`;
    expect(claw.map((c) => [c.partner_id, c.amount])).toEqual([[recruiter, 250n]]);
    const [reversed] = await svc.sql`select data from webhook_events where type = 'commission.reversed' and data->>'commissionId' = ${overrideId}`;
    expect(reversed!.data).toMatchObject({ partnerId: recruiter, reason: 'chargeback', amount: '2.50' });
  });

  test.each([
    ['a quarter refunded: 20.00 -> 15.00, override 2.50 -> 1.88 (1.875 half-even)', 1500n, 188n, 'accrued'],
    ['half refunded: 20.00 -> 10.00, override 2.50 -> 1.25', 1000n, 125n, 'accrued'],
    ['almost all: 20.00 -> 0.01, override 2.50 -> 0.00: reversed', 1n, 250n, 'reversed'],
  ])('partial reduction of the recruit: %s', async (_label, target, override, status) => {
    const { recruit } = await pair();
    const s = await sale(recruit, 100);
    await svc.sql.begin((tx) => reduceCommissionIn(tx, { id: s.commissionId, amount: target, actor: 'provider:test', reason: 'partial_refund' }));
    const [row] = await svc.sql`select amount, status from commissions where id = ${s.overrides[0]!.id}`;
    expect([row!.amount, row!.status]).toEqual([override, status]);
  });

  test('two partial refunds add up for the override too', async () => {
    const { recruit } = await pair();
    const s = await sale(recruit, 100);
    await svc.sql.begin((tx) => reduceCommissionIn(tx, { id: s.commissionId, amount: 1500n, actor: 'provider:test', reason: 'partial_refund' }));
    await svc.sql.begin((tx) => reduceCommissionIn(tx, { id: s.commissionId, amount: 1000n, actor: 'provider:test', reason: 'partial_refund' }));
    const [row] = await svc.sql`select amount from commissions where id = ${s.overrides[0]!.id}`;
    expect(row!.amount).toBe(125n);
  });
});

describe('referredBy and the recruiting signup', () => {
  test.each([
    ['itself', (self: string) => self, 'a partner cannot be its own recruiter'],
    ['an unknown partner', () => 'ptn_01jd8x0000000000000000000a', 'unknown partner ptn_01jd8x0000000000000000000a'],
    ['not an id at all', () => 'nobody', 'unknown partner nobody'],
  ])('PATCH referredBy %s: 400 naming referredBy, nothing changed', async (_label, value, message) => {
    const p = await fx.partner(svc.sql);
    const res = await svc.api('PATCH', `/v1/partners/${p}`, { body: { referredBy: value(p), name: 'Changed' } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'invalid_body', details: [{ field: 'referredBy', message }] });
    const [row] = await svc.sql`select referred_by, name from partners where id = ${p}`;
    expect(row!.referred_by).toBeNull();
    expect(row!.name).not.toBe('Changed');
  });

  test("a recruit cannot become its recruiter's recruiter (a loop)", async () => {
    const { recruiter, recruit } = await pair();
    const res = await svc.api('PATCH', `/v1/partners/${recruiter}`, { body: { referredBy: recruit } });
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([{ field: 'referredBy', message: 'that partner was recruited by this one' }]);
  });

  test('POST /partners takes referredBy; null clears it on PATCH', async () => {
    const recruiter = await fx.partner(svc.sql);
    const res = await svc.api('POST', '/v1/partners', { body: { email: 'recruit-api@example.com', name: 'R', sendInvite: false, referredBy: recruiter } });
    expect(res.status).toBe(201);
    expect((await svc.api('GET', `/v1/partners/${res.body.id}`)).body.referredBy).toBe(recruiter);
    expect((await svc.api('PATCH', `/v1/partners/${res.body.id}`, { body: { referredBy: null } })).body.referredBy).toBeNull();
  });

  test('self-signup through a recruiting link records the recruiter; a revoked or unknown ref is ignored', async () => {
    await svc.api('PATCH', '/v1/settings', { body: { partnerSignup: 'open' } });
    const recruiter = await fx.partner(svc.sql);
    const revoked = await fx.partner(svc.sql, { revoked: true });
    for (const [email, ref] of [['via-link@example.com', recruiter], ['via-revoked@example.com', revoked], ['via-junk@example.com', 'junk']] as const) {
      const res = await svc.api('POST', '/auth/signup', { key: null, body: { email, name: 'New', ref } });
      expect(res.status).toBe(202);
    }
    const rows = await svc.sql`select email, referred_by from partners where email like 'via-%' order by email`;
    expect(rows.map((r) => [r.email, r.referred_by])).toEqual([
      ['via-junk@example.com', null],
      ['via-link@example.com', recruiter],
      ['via-revoked@example.com', null],
    ]);
  });
});
