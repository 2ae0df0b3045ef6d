// Payout maths: several partners and currencies, MIN_PAYOUT thresholds, clawback netting, revoked
// partners, and runs that find nothing new.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { newId } from '../../src/lib/ids';
import { eventually } from '../support/eventually';
import { startService, type TestService } from '../support/service';
import { commissionRow, insertCampaign, insertCommission, insertPartner } from '../support/lifecycle-fixtures';

let svc: TestService;
let usd: string;
let usd2: string;
let eur: string;
let jpy: string;
let kwd: string;

beforeAll(async () => {
  svc = await startService({ MIN_PAYOUT: '50' });
  usd = await insertCampaign(svc.sql, { currency: 'USD' });
  usd2 = await insertCampaign(svc.sql, { currency: 'USD' });
  eur = await insertCampaign(svc.sql, { currency: 'EUR' });
  jpy = await insertCampaign(svc.sql, { currency: 'JPY' });
  kwd = await insertCampaign(svc.sql, { currency: 'KWD' });
  await svc.sql`
    insert into webhook_endpoints (id, url, events, secret)
    values (${newId('endpoint')}, 'https://hooks.example.com/in', ${['*']}, 'whsec_test')`;
}, 60_000);
afterAll(() => svc.stop());

type Line = { campaign: () => string; currency: string; amount: number; status: 'accrued' | 'approved' };
type Scenario = {
  label: string;
  revoked?: boolean;
  lines: Line[];
  /** Paid commissions reversed before the run: clawbacks of these amounts. */
  clawbacks?: { campaign: () => string; currency: string; amount: number }[];
  /** Expected payouts: currency -> [amount, commissionCount, clawbacksAmount]. */
  expect: Record<string, [string, number, string]>;
};

const U = (amount: number, status: Line['status'] = 'approved'): Line => ({ campaign: () => usd, currency: 'USD', amount, status });

const scenarios: Scenario[] = [
  { label: 'two commissions over the minimum', lines: [U(3000), U(2500)], expect: { USD: ['55.00', 2, '0.00'] } },
  { label: 'one cent below the minimum waits', lines: [U(4999)], expect: {} },
  { label: 'exactly the minimum is paid', lines: [U(5000)], expect: { USD: ['50.00', 1, '0.00'] } },
  { label: 'two campaigns, one currency: one payout', lines: [U(2000), { ...U(3100), campaign: () => usd2 }], expect: { USD: ['51.00', 2, '0.00'] } },
  {
    label: 'two currencies: each measured against the minimum on its own',
    lines: [U(6000), { campaign: () => eur, currency: 'EUR', amount: 1000, status: 'approved' }],
    expect: { USD: ['60.00', 1, '0.00'] },
  },
  {
    label: 'two currencies both over',
    lines: [U(6000), { campaign: () => eur, currency: 'EUR', amount: 7000, status: 'approved' }],
    expect: { USD: ['60.00', 1, '0.00'], EUR: ['70.00', 1, '0.00'] },
  },
  { label: 'JPY minimum is 50 yen', lines: [{ campaign: () => jpy, currency: 'JPY', amount: 50, status: 'approved' }], expect: { JPY: ['50', 1, '0'] } },
  { label: 'JPY below', lines: [{ campaign: () => jpy, currency: 'JPY', amount: 49, status: 'approved' }], expect: {} },
  { label: 'KWD has three decimals', lines: [{ campaign: () => kwd, currency: 'KWD', amount: 50_001, status: 'approved' }], expect: { KWD: ['50.001', 1, '0.000'] } },
  { label: 'accrued commissions are not paid', lines: [U(9000, 'accrued')], expect: {} },
  {
    label: 'a clawback is netted',
    lines: [U(8000)],
    clawbacks: [{ campaign: () => usd, currency: 'USD', amount: 2000 }],
    expect: { USD: ['60.00', 1, '20.00'] },
  },
  {
    label: 'a clawback that takes the net below the minimum: nothing paid, clawback stays open',
    lines: [U(6000)],
    clawbacks: [{ campaign: () => usd, currency: 'USD', amount: 2000 }],
    expect: {},
  },
  {
    label: 'a clawback in another currency is not netted',
    lines: [U(6000)],
    clawbacks: [{ campaign: () => eur, currency: 'EUR', amount: 2000 }],
    expect: { USD: ['60.00', 1, '0.00'] },
  },
  { label: 'a revoked partner is still paid', revoked: true, lines: [U(7000)], expect: { USD: ['70.00', 1, '0.00'] } },
];

type Prepared = { scenario: Scenario; partnerId: string; commissionIds: string[]; clawbackIds: string[] };
const prepared: Prepared[] = [];
let firstRun: any[];

describe('a payout run', () => {
  test('pays each partner and currency whose net reaches MIN_PAYOUT', async () => {
    for (const scenario of scenarios) {
      const partnerId = await insertPartner(svc.sql, { revoked: scenario.revoked });
      const commissionIds = [];
      for (const l of scenario.lines) {
        commissionIds.push(await insertCommission(svc.sql, { partnerId, campaignId: l.campaign(), amount: l.amount, currency: l.currency, status: l.status }));
      }
      const clawbackIds = [];
      for (const c of scenario.clawbacks ?? []) {
        const id = await insertCommission(svc.sql, { partnerId, campaignId: c.campaign(), amount: c.amount, currency: c.currency, status: 'paid' });
        expect((await svc.api('POST', `/v1/commissions/${id}/reverse`, { body: { reason: 'refund' } })).status).toBe(200);
        clawbackIds.push(id);
      }
      prepared.push({ scenario, partnerId, commissionIds, clawbackIds });
    }
    const eventsBefore = (await svc.sql`select count(*)::int as n from webhook_events`)[0]!.n;

    const res = await svc.api('POST', '/v1/payouts/run');
    expect(res.status).toBe(200);
    firstRun = res.body.payouts;

    for (const { scenario, partnerId, commissionIds, clawbackIds } of prepared) {
      const mine = firstRun.filter((p) => p.partnerId === partnerId);
      const got = Object.fromEntries(mine.map((p) => [p.currency, [p.amount, p.commissionCount, p.clawbacksAmount]]));
      expect({ label: scenario.label, payouts: got }).toEqual({ label: scenario.label, payouts: scenario.expect });

      for (const [i, line] of scenario.lines.entries()) {
        const row = await commissionRow(svc.sql, commissionIds[i]!);
        const payout = mine.find((p) => p.currency === line.currency);
        const expected = payout && line.status === 'approved' ? { status: 'paid', payout_id: payout.id } : { status: line.status, payout_id: null };
        expect({ label: scenario.label, status: row.status, payout_id: row.payout_id }).toEqual({ label: scenario.label, ...expected });
      }
      for (const [i, c] of (scenario.clawbacks ?? []).entries()) {
        const [claw] = await svc.sql`select status, payout_id from clawbacks where commission_id = ${clawbackIds[i]!}`;
        const payout = mine.find((p) => p.currency === c.currency);
        expect({ label: scenario.label, ...claw }).toEqual({
          label: scenario.label,
          ...(payout ? { status: 'applied', payout_id: payout.id } : { status: 'open', payout_id: null }),
        });
      }
      for (const p of mine) {
        expect(p).toMatchObject({ status: 'pending', provider: 'manual', paidAt: null });
        expect(p.id).toMatch(/^pay_[0-9a-z]{26}$/);
      }
    }

    // webhooks: payout.created once per payout, commission.paid once per paid commission, all delivered to "*"
    const paidCount = firstRun.reduce((n, p) => n + p.commissionCount, 0);
    const created = await svc.sql`select data from webhook_events where type = 'payout.created' order by id`;
    expect(created.map((r) => r.data).sort((a, b) => a.payoutId.localeCompare(b.payoutId))).toEqual(
      firstRun
        .map((p) => ({ payoutId: p.id, partnerId: p.partnerId, amount: p.amount, currency: p.currency, commissionCount: p.commissionCount }))
        .sort((a, b) => a.payoutId.localeCompare(b.payoutId)),
    );
    const paid = await svc.sql`select data from webhook_events where type = 'commission.paid'`;
    expect(paid).toHaveLength(paidCount);
    const eventsAfter = (await svc.sql`select count(*)::int as n from webhook_events`)[0]!.n;
    expect(eventsAfter - eventsBefore).toBe(firstRun.length + paidCount);
    const [deliveries] = await svc.sql`
      select count(*)::int as n from webhook_deliveries d join webhook_events e on e.id = d.event_id
      where e.type in ('payout.created', 'commission.paid')`;
    expect(deliveries!.n).toBe(firstRun.length + paidCount);
    // each commission.paid matches its commission
    for (const { data } of paid) {
      const row = await commissionRow(svc.sql, data.commissionId);
      expect(row.payout_id).toBe(data.payoutId);
      expect(row.partner_id).toBe(data.partnerId);
    }
  });

  test('the detail lists its commissions and clawback lines', async () => {
    const netting = prepared.find((p) => p.scenario.label === 'a clawback is netted')!;
    const payout = firstRun.find((p) => p.partnerId === netting.partnerId);
    const res = await svc.api('GET', `/v1/payouts/${payout.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: payout.id, amount: '60.00', commissionsAmount: '80.00', clawbacksAmount: '20.00', clawbackCount: 1 });
    expect(res.body.commissions.map((c: any) => [c.id, c.amount, c.status])).toEqual([[netting.commissionIds[0], '80.00', 'paid']]);
    expect(res.body.clawbacks.map((k: any) => [k.commissionId, k.amount, k.reason])).toEqual([[netting.clawbackIds[0], '-20.00', 'refund']]);
  });

  test('a second run with nothing new creates nothing', async () => {
    const before = (await svc.sql`select count(*)::int as n from webhook_events`)[0]!.n;
    const res = await svc.api('POST', '/v1/payouts/run');
    expect(res.status).toBe(200);
    expect(res.body.payouts).toEqual([]);
    expect((await svc.sql`select count(*)::int as n from payouts`)[0]!.n).toBe(firstRun.length);
    expect((await svc.sql`select count(*)::int as n from webhook_events`)[0]!.n).toBe(before);
  });

  test('a later commission lifts a waiting partner over the minimum: everything due is paid', async () => {
    const waiting = prepared.find((p) => p.scenario.label === 'one cent below the minimum waits')!;
    const extra = await insertCommission(svc.sql, { partnerId: waiting.partnerId, campaignId: usd, amount: 1, status: 'approved' });
    const res = await svc.api('POST', '/v1/payouts/run');
    expect(res.body.payouts.map((p: any) => [p.partnerId, p.amount, p.commissionCount])).toEqual([[waiting.partnerId, '50.00', 2]]);
    expect((await commissionRow(svc.sql, extra)).payout_id).toBe(res.body.payouts[0].id);
  });

  test('a clawback bigger than what is owed stays open until commissions cover it', async () => {
    const partnerId = await insertPartner(svc.sql);
    const paid = await insertCommission(svc.sql, { partnerId, campaignId: usd, amount: 9000, status: 'paid' });
    await svc.api('POST', `/v1/commissions/${paid}/reverse`, { body: { reason: 'fraud' } });
    await insertCommission(svc.sql, { partnerId, campaignId: usd, amount: 5000, status: 'approved' });
    expect((await svc.api('POST', '/v1/payouts/run')).body.payouts).toEqual([]);
    await insertCommission(svc.sql, { partnerId, campaignId: usd, amount: 9000, status: 'approved' });
    const res = await svc.api('POST', '/v1/payouts/run');
    expect(res.body.payouts.map((p: any) => [p.amount, p.commissionsAmount, p.clawbacksAmount, p.commissionCount])).toEqual([
      ['50.00', '140.00', '90.00', 2],
    ]);
  });

  test('many partners across several batches are each paid once', async () => {
    const partners = [];
    for (let i = 0; i < 12; i++) {
      const partnerId = await insertPartner(svc.sql);
      partners.push(partnerId);
      await insertCommission(svc.sql, { partnerId, campaignId: usd, amount: 6000 + i, status: 'approved' });
    }
    const { runPayouts } = await import('../../src/workflows/run-payouts');
    const made = await runPayouts(svc.ctx, { actor: 'job:payout', batchSize: 5 });
    expect(made!.map((p) => p.partnerId).sort()).toEqual([...partners].sort());
    const [tr] = await svc.sql`select count(*)::int as n from commission_transitions where actor = 'job:payout' and to_status = 'paid'`;
    expect(tr!.n).toBe(12);
  });
});

describe('without the advisory lock', () => {
  test('two runs at once still pay each commission once', async () => {
    const { payEligiblePartners } = await import('../../src/workflows/run-payouts');
    const partners: string[] = [];
    for (let i = 0; i < 8; i++) {
      const partnerId = await insertPartner(svc.sql);
      partners.push(partnerId);
      for (let j = 0; j < 5; j++) await insertCommission(svc.sql, { partnerId, campaignId: usd, amount: 2000, status: 'approved' });
    }
    const options = { actor: 'job:payout', batchSize: 3, workers: 2 };
    const [a, b] = await Promise.all([payEligiblePartners(svc.ctx, options), payEligiblePartners(svc.ctx, options)]);
    const made = [...a, ...b].filter((p) => partners.includes(p.partnerId));
    expect(made.map((p) => p.partnerId).sort()).toEqual([...partners].sort());
    expect(made.every((p) => p.amount === '100.00' && p.commissionCount === 5)).toBe(true);
    const [twice] = await svc.sql`
      select count(*)::int as n from (
        select commission_id from commission_transitions where to_status = 'paid' group by commission_id having count(*) > 1) d`;
    expect(twice!.n).toBe(0);
  });
});

describe('the scheduler', () => {
  test('runs payouts on PAYOUT_CRON as job:payout', async () => {
    const { startScheduler } = await import('../../src/scheduler');
    const partnerId = await insertPartner(svc.sql);
    const id = await insertCommission(svc.sql, { partnerId, campaignId: usd, amount: 9900, status: 'approved' });
    const scheduler = startScheduler({ ...svc.ctx, config: { ...svc.ctx.config, payoutCron: '* * * * * *' } });
    // the schedule fires on the clock, every second here: waiting for it is the scenario
    try {
      await eventually(async () => expect((await commissionRow(svc.sql, id)).status).toBe('paid'), { timeout: 10_000 });
    } finally {
      await scheduler.stop();
    }
    const row = await commissionRow(svc.sql, id);
    const [payout] = await svc.sql`select amount, created_by from payouts where id = ${row.payout_id}`;
    expect({ ...payout }).toEqual({ amount: 9900n, created_by: 'job:payout' });
  }, 20_000);
});
