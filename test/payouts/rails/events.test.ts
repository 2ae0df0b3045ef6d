// payout.paid and payout.failed: settling by hand emits them too, delivered to a subscriber; a
// processing payout (handed to a rail) can be settled like a pending one.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { startReceiver, type Receiver } from '../../support/receiver';
import { startService, type TestService } from '../../support/service';
import { LOCAL_RECEIVERS, registerEndpoint } from '../../support/webhooks';
import { commissionRow, insertCampaign, insertCommission, insertPartner } from '../../support/lifecycle-fixtures';

let svc: TestService;
let hooks: Receiver;
let usd: string;

beforeAll(async () => {
  svc = await startService({ ...LOCAL_RECEIVERS });
  hooks = await startReceiver();
  await registerEndpoint(svc, hooks.url, ['payout.paid', 'payout.failed']);
  usd = await insertCampaign(svc.sql, { currency: 'USD' });
}, 60_000);
afterAll(async () => {
  await svc.stop();
  await hooks.stop();
});

async function pendingPayout(cents: number) {
  const partnerId = await insertPartner(svc.sql);
  const commissionId = await insertCommission(svc.sql, { partnerId, campaignId: usd, amount: cents, status: 'approved' });
  const run = await svc.api('POST', '/v1/payouts/run');
  const payout = run.body.payouts.find((p: { partnerId: string }) => p.partnerId === partnerId);
  expect(payout).toMatchObject({ status: 'pending', provider: 'manual', processingAt: null, providerAnswer: null });
  return { partnerId, commissionId, payout };
}

test('mark-paid emits payout.paid with the reference', async () => {
  const { partnerId, payout } = await pendingPayout(1234);
  const paid = await svc.api('POST', `/v1/payouts/${payout.id}/mark-paid`, { body: { reference: 'bank-77' } });
  expect(paid.status).toBe(200);
  await svc.deliverWebhooks();
  const hook = (await hooks.waitUntil((r) => r.some((h) => h.json.data.payoutId === payout.id))).find((h) => h.json.data.payoutId === payout.id)!;
  expect(hook.json).toMatchObject({
    event: 'payout.paid',
    data: { payoutId: payout.id, partnerId, amount: '12.34', currency: 'USD', provider: 'manual', providerReference: 'bank-77', paidAt: paid.body.paidAt },
  });
});

test('mark-failed emits payout.failed and releases the commissions', async () => {
  const { partnerId, commissionId, payout } = await pendingPayout(500);
  const failed = await svc.api('POST', `/v1/payouts/${payout.id}/mark-failed`, { body: { reason: 'bank account closed' } });
  expect(failed.status).toBe(200);
  expect(await commissionRow(svc.sql, commissionId)).toMatchObject({ status: 'approved', payout_id: null });
  await svc.deliverWebhooks();
  const hook = (await hooks.waitUntil((r) => r.some((h) => h.json.data.payoutId === payout.id))).find((h) => h.json.data.payoutId === payout.id)!;
  expect(hook.json).toMatchObject({
    event: 'payout.failed',
    data: { payoutId: payout.id, partnerId, amount: '5.00', currency: 'USD', provider: 'manual', reason: 'bank account closed', failedAt: failed.body.failedAt },
  });
});

test('a processing payout settles; a paid one is a 409 and emits nothing more', async () => {
  const { payout } = await pendingPayout(700);
  await svc.sql`update payouts set status = 'processing', processing_at = now() where id = ${payout.id}`;
  expect((await svc.api('GET', `/v1/payouts?status=processing`)).body.payouts.map((p: { id: string }) => p.id)).toContain(payout.id);
  expect((await svc.api('POST', `/v1/payouts/${payout.id}/mark-paid`)).status).toBe(200);
  const again = await svc.api('POST', `/v1/payouts/${payout.id}/mark-failed`, { body: { reason: 'late' } });
  expect(again.status).toBe(409);
  const [events] = await svc.sql`select count(*)::int as n from webhook_events where type in ('payout.paid', 'payout.failed') and data->>'payoutId' = ${payout.id}`;
  expect(events!.n).toBe(1);
});
