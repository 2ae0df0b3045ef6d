import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startService, type TestService } from '../support/service';
import { clawbacksOf, commissionRow, eventsFor, insertCampaign, insertCommission, insertPartner, transitionsOf } from '../support/lifecycle-fixtures';

let svc: TestService;
let partnerId: string;
let campaignId: string;
let adminActor: string;
let writerKey: string;
let writerActor: string;

beforeAll(async () => {
  svc = await startService();
  partnerId = await insertPartner(svc.sql);
  campaignId = await insertCampaign(svc.sql);
  const [admin] = await svc.sql`select id from api_keys where kind = 'admin'`;
  adminActor = `key:${admin!.id}`;
  writerKey = await svc.scopedKey(['commissions:write']);
  const [writer] = await svc.sql`select id from api_keys where kind = 'scoped' order by created_at desc limit 1`;
  writerActor = `key:${writer!.id}`;
}, 60_000);
afterAll(() => svc.stop());

const commission = (status: 'accrued' | 'approved' | 'paid' | 'reversed', amount = 1250, currency = 'USD') =>
  insertCommission(svc.sql, { partnerId, campaignId, amount, currency, status });

describe('legal transitions over HTTP', () => {
  test('accrued -> approved: stamped, answered, commission.approved with approvedAt', async () => {
    const id = await commission('accrued');
    const res = await svc.api('POST', `/v1/commissions/${id}/approve`, { key: writerKey });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, status: 'approved', amount: '12.50', currency: 'USD', partnerId });
    expect(new Date(res.body.approvedAt).toISOString()).toBe(res.body.approvedAt);

    const row = await commissionRow(svc.sql, id);
    expect(row.status).toBe('approved');
    expect(row.approved_at.toISOString()).toBe(res.body.approvedAt);
    expect(await transitionsOf(svc.sql, id)).toEqual([{ from_status: 'accrued', to_status: 'approved', actor: writerActor, reason: null }]);
    const events = await eventsFor(svc.sql, 'commission.approved', id);
    expect(events.map((e) => e.data)).toEqual([
      { commissionId: id, partnerId, amount: '12.50', currency: 'USD', approvedAt: res.body.approvedAt },
    ]);
  });

  test('the unprefixed path works too, and amounts follow the currency exponent', async () => {
    const jpy = await commission('accrued', 1250, 'JPY');
    const kwd = await commission('accrued', 1250, 'KWD');
    expect((await svc.api('POST', `/commissions/${jpy}/approve`)).body.amount).toBe('1250');
    expect((await svc.api('POST', `/v1/commissions/${kwd}/approve`)).body.amount).toBe('1.250');
    expect((await eventsFor(svc.sql, 'commission.approved', jpy))[0]!.data.amount).toBe('1250');
    expect((await eventsFor(svc.sql, 'commission.approved', kwd))[0]!.data.amount).toBe('1.250');
  });

  for (const from of ['accrued', 'approved'] as const) {
    test(`${from} -> reversed: reason kept, commission.reversed, no clawback`, async () => {
      const id = await commission(from, 999);
      const res = await svc.api('POST', `/v1/commissions/${id}/reverse`, { body: { reason: 'refund' } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id, status: 'reversed', reason: 'refund', amount: '9.99' });
      const row = await commissionRow(svc.sql, id);
      expect(row.status).toBe('reversed');
      expect(row.reversal_reason).toBe('refund');
      expect(row.reversed_at).toBeInstanceOf(Date);
      expect(await transitionsOf(svc.sql, id)).toEqual([{ from_status: from, to_status: 'reversed', actor: adminActor, reason: 'refund' }]);
      expect((await eventsFor(svc.sql, 'commission.reversed', id)).map((e) => e.data)).toEqual([
        { commissionId: id, partnerId, amount: '9.99', currency: 'USD', reason: 'refund' },
      ]);
      expect(await clawbacksOf(svc.sql, id)).toEqual([]);
    });
  }

  test('approved -> paid only through a payout run: commission.paid and payout.created', async () => {
    const partner = await insertPartner(svc.sql);
    const id = await insertCommission(svc.sql, { partnerId: partner, campaignId, amount: 5000, status: 'accrued' });
    expect((await svc.api('POST', `/v1/commissions/${id}/approve`)).status).toBe(200);
    const run = await svc.api('POST', '/v1/payouts/run');
    expect(run.status).toBe(200);
    const payout = run.body.payouts.find((p: any) => p.partnerId === partner);
    expect(payout).toMatchObject({ amount: '50.00', currency: 'USD', commissionCount: 1, status: 'pending' });

    const row = await commissionRow(svc.sql, id);
    expect(row).toMatchObject({ status: 'paid', payout_id: payout.id });
    expect(row.paid_at).toBeInstanceOf(Date);
    expect((await transitionsOf(svc.sql, id)).map((t) => [t.from_status, t.to_status, t.actor, t.reason])).toEqual([
      ['accrued', 'approved', adminActor, null],
      ['approved', 'paid', adminActor, `payout ${payout.id}`],
    ]);
    expect((await eventsFor(svc.sql, 'commission.paid', id)).map((e) => e.data)).toEqual([
      { commissionId: id, payoutId: payout.id, partnerId: partner, amount: '50.00', currency: 'USD' },
    ]);
    const created = await svc.sql`select data from webhook_events where type = 'payout.created' and data->>'payoutId' = ${payout.id}`;
    expect(created.map((r) => r.data)).toEqual([{ payoutId: payout.id, partnerId: partner, amount: '50.00', currency: 'USD', commissionCount: 1 }]);
  });

  test('paid -> reversed opens a clawback for the amount', async () => {
    const partner = await insertPartner(svc.sql);
    const id = await insertCommission(svc.sql, { partnerId: partner, campaignId, amount: 700, status: 'approved' });
    await svc.api('POST', '/v1/payouts/run');
    expect((await commissionRow(svc.sql, id)).status).toBe('paid');

    const res = await svc.api('POST', `/v1/commissions/${id}/reverse`, { key: writerKey, body: { reason: 'chargeback' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'reversed', reason: 'chargeback' });
    expect((await transitionsOf(svc.sql, id)).at(-1)).toEqual({ from_status: 'paid', to_status: 'reversed', actor: writerActor, reason: 'chargeback' });
    expect(await clawbacksOf(svc.sql, id)).toEqual([{ partner_id: partner, currency: 'USD', amount: 700n, reason: 'chargeback', status: 'open', payout_id: null }]);
    expect((await eventsFor(svc.sql, 'commission.reversed', id)).map((e) => e.data)).toEqual([
      { commissionId: id, partnerId: partner, amount: '7.00', currency: 'USD', reason: 'chargeback' },
    ]);
  });
});

describe('illegal transitions are a 409 that changes nothing', () => {
  const cases = [
    { action: 'approve', from: 'approved' },
    { action: 'approve', from: 'paid' },
    { action: 'approve', from: 'reversed' },
    { action: 'reverse', from: 'reversed' },
  ] as const;
  for (const c of cases) {
    test(`${c.action} a ${c.from} commission`, async () => {
      const id = await commission(c.from);
      const before = await commissionRow(svc.sql, id);
      const outboxBefore = await svc.sql`select count(*)::int as n from webhook_events`;
      const res = await svc.api('POST', `/v1/commissions/${id}/${c.action}`, c.action === 'reverse' ? { body: { reason: 'refund' } } : {});
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('conflict');
      expect(res.body.details).toMatchObject({ commissionId: id, status: c.from });
      expect(await commissionRow(svc.sql, id)).toEqual(before);
      expect(await transitionsOf(svc.sql, id)).toEqual([]);
      expect(await svc.sql`select count(*)::int as n from webhook_events`).toEqual(outboxBefore);
      expect(await clawbacksOf(svc.sql, id)).toEqual([]);
    });
  }

  test('a payout run never pays an accrued or reversed commission', async () => {
    const partner = await insertPartner(svc.sql);
    const accrued = await insertCommission(svc.sql, { partnerId: partner, campaignId, amount: 100, status: 'accrued' });
    const reversed = await insertCommission(svc.sql, { partnerId: partner, campaignId, amount: 100, status: 'reversed' });
    const run = await svc.api('POST', '/v1/payouts/run');
    expect(run.body.payouts.filter((p: any) => p.partnerId === partner)).toEqual([]);
    expect((await commissionRow(svc.sql, accrued)).status).toBe('accrued');
    expect((await commissionRow(svc.sql, reversed)).status).toBe('reversed');
  });

  test('unknown commission: 404', async () => {
    const res = await svc.api('POST', '/v1/commissions/com_00000000000000000000000000/approve');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not_found');
  });

  test('reverse needs a reason', async () => {
    const id = await commission('accrued');
    for (const body of [undefined, {}, { reason: '' }, { reason: '   ' }, { reason: 42 }]) {
      const res = await svc.api('POST', `/v1/commissions/${id}/reverse`, { body });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('invalid_body');
    }
    expect((await commissionRow(svc.sql, id)).status).toBe('accrued');
  });

  test('two reversals racing: one wins, the other is a 409', async () => {
    const id = await commission('approved');
    const results = await Promise.all([
      svc.api('POST', `/v1/commissions/${id}/reverse`, { body: { reason: 'refund' } }),
      svc.api('POST', `/v1/commissions/${id}/reverse`, { body: { reason: 'fraud' } }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(await transitionsOf(svc.sql, id)).toHaveLength(1);
    const reversed = await svc.sql`select count(*)::int as n from webhook_events where type = 'commission.reversed' and data->>'commissionId' = ${id}`;
    expect(reversed[0]!.n).toBe(1);
  });
});
