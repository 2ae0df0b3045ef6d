// Partial refunds beyond what every plugin's conformance suite checks: the share arithmetic, a
// conversion credited to several partners (the reductions add up), a commission's history over the
// API, and a payout that fails after a partial refund of what it held.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { fraction } from '../../src/lib/money';
import { refundedShare } from '../../src/workflows/ingest-provider-event';
import { campaign, click, identify, partner } from '../support/chain';
import { startService, type TestService } from '../support/service';
import { charge, customer, deliver, invoice, stripeEvent, WEBHOOK_SECRET } from './fixtures';

describe('the refunded share of a payment', () => {
  const notice = (amount: number | null, paid: number | null = null, reason: 'refund' | 'chargeback' = 'refund') => ({
    reason,
    amount: amount === null ? null : BigInt(amount),
    paid: paid === null ? null : BigInt(paid),
  });
  const cases: [string, ReturnType<typeof notice>[], number | null, 'all' | [number, number]][] = [
    ['no notice: nothing came back', [], 10000, [0, 1]],
    ['a quarter of the conversion amount', [notice(2500)], 10000, [1, 4]],
    ['two refunds under different keys add up', [notice(2500), notice(2500)], 10000, [1, 2]],
    ['refunds reaching what was paid: all', [notice(6000), notice(4000)], 10000, 'all'],
    ['more than was paid is still all', [notice(12000)], 10000, 'all'],
    ['a notice without an amount (a chargeback, a full refund): all', [notice(2500), notice(null, null, 'chargeback')], 10000, 'all'],
    ['the share is of what the provider says was paid, not the conversion amount', [notice(500, 2000)], 10000, [1, 4]],
    ['shares of different payment sizes add exactly', [notice(1, 3), notice(1, 6)], 10000, [1, 2]],
    ['a conversion without an amount cannot size a bare refund', [notice(2500)], null, [0, 1]],
  ];
  for (const [label, notices, eventAmount, expected] of cases) {
    test(label, () => {
      const share = refundedShare(notices, eventAmount === null ? null : BigInt(eventAmount));
      expect(share).toEqual(expected === 'all' ? 'all' : fraction(expected[0], expected[1]));
    });
  }
});

let svc: TestService;
beforeAll(async () => {
  svc = await startService({ STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET });
});
afterAll(() => svc.stop());

const RULES = [{ eventType: 'invoice_paid', kind: 'percent', percent: 20 }];

describe('a conversion credited to three partners', () => {
  test('half refunded: the three reductions add up to half of the commissions, exactly', async () => {
    expect((await svc.api('PATCH', '/v1/settings', { body: { attributionModel: 'linear' } })).status).toBe(200);
    try {
      const campaignId = await campaign(svc, { rules: RULES });
      const clicks: string[] = [];
      for (const name of ['ann', 'bob', 'cat']) {
        const partnerId = await partner(svc, `${name}-split@example.com`, [campaignId]);
        clicks.push((await click(svc, campaignId, partnerId)).clickId);
      }
      await identify(svc, 'u_split', clicks);
      await deliver(svc.url, stripeEvent('customer.updated', customer('cus_split', 'u_split')));
      await deliver(svc.url, stripeEvent('invoice.paid', invoice('in_split', 'cus_split', 10000, { paymentIntent: 'pi_split' })));
      const amounts = async () =>
        (await svc.sql<{ amount: bigint }[]>`select amount from commissions where user_id = 'u_split' order by id`).map((c) => c.amount);
      // 20.00 in thirds: 6.67 + 6.67 + 6.66
      expect(await amounts()).toEqual([667n, 667n, 666n]);
      await deliver(svc.url, stripeEvent('charge.refunded', charge('ch_split', 'pi_split', 10000, 5000)));
      // each alone would round 333.5 -> 334, 333.5 -> 334, 333 -> 333 and take back 10.01; apportioned, exactly 10.00
      const after = await amounts();
      expect(after).toEqual([333n, 334n, 333n]);
      expect(after.reduce((a, b) => a + b, 0n)).toBe(1000n);
    } finally {
      await svc.api('PATCH', '/v1/settings', { body: { attributionModel: 'last_click' } });
    }
  });
});

async function paidCommission(userId: string) {
  const campaignId = await campaign(svc, { rules: RULES });
  const partnerId = await partner(svc, `${userId}@example.com`, [campaignId]);
  const { clickId } = await click(svc, campaignId, partnerId);
  await identify(svc, userId, [clickId]);
  await deliver(svc.url, stripeEvent('customer.updated', customer(`cus_${userId}`, userId)));
  await deliver(svc.url, stripeEvent('invoice.paid', invoice(`in_${userId}`, `cus_${userId}`, 10000, { paymentIntent: `pi_${userId}` })));
  const [row] = await svc.sql<{ id: string }[]>`select id from commissions where user_id = ${userId}`;
  return { partnerId, commissionId: row!.id };
}

describe("a commission's history", () => {
  test('explains the amount: accrual, each partial refund with who and how much, the approval', async () => {
    const { partnerId, commissionId } = await paidCommission('u_history');
    await deliver(svc.url, stripeEvent('charge.refunded', charge('ch_u_history', 'pi_u_history', 10000, 1000)));
    await deliver(svc.url, stripeEvent('charge.refunded', charge('ch_u_history', 'pi_u_history', 10000, 3000)));
    expect((await svc.api('POST', `/v1/commissions/${commissionId}/approve`)).status).toBe(200);

    const res = await svc.api('GET', `/v1/commissions/${commissionId}/history`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ commissionId, currency: 'USD', accruedAmount: '20.00', amount: '14.00' });
    const entries = res.body.entries.map((e: any) => [e.change, e.fromStatus, e.toStatus, e.amountBefore, e.amountAfter, e.actor, e.reason, e.detail]);
    expect(entries).toEqual([
      ['status', null, 'accrued', null, null, 'pipeline', null, null],
      ['amount', null, null, '20.00', '18.00', 'provider:stripe', 'partial_refund', '10.00 of 100.00 USD refunded'],
      ['amount', null, null, '18.00', '14.00', 'provider:stripe', 'partial_refund', '30.00 of 100.00 USD refunded'],
      ['status', 'accrued', 'approved', null, null, expect.stringMatching(/^(key|admin):/), null, null],
    ]);

    // the partner reads the same history without who did it; another partner cannot read it
    const own = await svc.api('GET', `/v1/commissions/${commissionId}/history`, { key: await svc.partnerKey(partnerId) });
    expect(own.status).toBe(200);
    expect(own.body.entries.map((e: any) => e.actor)).toEqual([null, null, null, null]);
    expect(own.body.entries[1]).toMatchObject({ amountBefore: '20.00', amountAfter: '18.00', detail: '10.00 of 100.00 USD refunded' });
    const other = await partner(svc, 'other-history@example.com');
    const theirs = await svc.api('GET', `/v1/commissions/${commissionId}/history`, { key: await svc.partnerKey(other) });
    expect(theirs.status).toBe(403);
    expect((await svc.api('GET', '/v1/commissions/com_nope/history')).body).toEqual({ code: 'not_found', message: 'commission not found' });
    // not an id at all: the same 404 as GET /v1/commissions/:id answers
    expect((await svc.api('GET', `/v1/commissions/${'x'.repeat(65)}/history`)).status).toBe(404);
  });
});

describe('a payout that fails after a partial refund of what it held', () => {
  test('the clawback is cancelled and the commission is paid again at its lowered amount', async () => {
    const { partnerId, commissionId } = await paidCommission('u_failed');
    expect((await svc.api('POST', `/v1/commissions/${commissionId}/approve`)).status).toBe(200);
    expect((await svc.api('POST', '/v1/payouts/run')).status).toBe(200);
    const [payout] = await svc.sql<{ id: string; amount: bigint }[]>`select id, amount from payouts where partner_id = ${partnerId}`;
    expect(payout!.amount).toBe(2000n);

    await deliver(svc.url, stripeEvent('charge.refunded', charge('ch_u_failed', 'pi_u_failed', 10000, 2500)));
    const open = await svc.sql`select amount, status from clawbacks where commission_id = ${commissionId}`;
    expect([...open]).toEqual([{ amount: 500n, status: 'open' }]);

    expect((await svc.api('POST', `/v1/payouts/${payout!.id}/mark-failed`, { body: { reason: 'account closed' } })).status).toBe(200);
    const cancelled = await svc.sql`select amount, status from clawbacks where commission_id = ${commissionId}`;
    expect([...cancelled]).toEqual([{ amount: 500n, status: 'cancelled' }]);
    expect((await svc.api('POST', '/v1/payouts/run')).status).toBe(200);
    const payouts = await svc.sql<{ amount: bigint; status: string }[]>`select amount, status from payouts where partner_id = ${partnerId} order by id`;
    expect(payouts.map((p) => [p.amount, p.status])).toEqual([
      [2000n, 'failed'],
      [1500n, 'pending'],
    ]);
  });
});
