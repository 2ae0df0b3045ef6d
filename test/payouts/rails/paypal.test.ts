// PayPal Payouts end to end against the PayPal stand-in: partners choose PayPal, a run sends their
// payouts as one batch (sender_batch_id = its first payout id, the token reused), they are processing
// until PayPal's verified webhooks settle each item (every status DESIGN names), a forged webhook is a
// 400 that changes nothing, and batches still processing after an hour are read back by the job.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { commissionRow, insertCampaign, insertCommission, insertPartner } from '../../support/lifecycle-fixtures';
import { startPayPalStandIn, type PayPalStandIn } from '../../support/paypal-standin';
import { startService, type TestService } from '../../support/service';
import { runPayoutRailsJob } from '../../../src/scheduler/payout-rails';

let svc: TestService;
let paypal: PayPalStandIn;
let usd: string;

beforeAll(async () => {
  paypal = await startPayPalStandIn();
  svc = await startService({
    PAYPAL_CLIENT_ID: paypal.clientId,
    PAYPAL_CLIENT_SECRET: paypal.clientSecret,
    PAYPAL_API_URL: paypal.url,
    PAYPAL_WEBHOOK_ID: paypal.webhookId,
    PAYOUT_METHOD_HOLD_HOURS: '0',
  });
  usd = await insertCampaign(svc.sql, { currency: 'USD' });
}, 60_000);
afterAll(async () => {
  await svc.stop();
  paypal.stop();
});

/** A partner paid by PayPal at `email`, with an approved commission of `cents`. */
async function paypalPartner(cents: number, email = `pp-${crypto.randomUUID().slice(0, 8)}@example.com`) {
  const partnerId = await insertPartner(svc.sql);
  const key = await svc.partnerKey(partnerId);
  const put = await svc.api('PUT', `/v1/partners/${partnerId}/payout-method`, { key, body: { type: 'paypal', email } });
  expect(put.status).toBe(200);
  expect(put.body).toMatchObject({ type: 'paypal', email, ready: true, heldUntil: null });
  const commissionId = await insertCommission(svc.sql, { partnerId, campaignId: usd, amount: cents, status: 'approved' });
  return { partnerId, key, email, commissionId };
}

async function run() {
  const res = await svc.api('POST', '/v1/payouts/run');
  expect(res.status).toBe(200);
  return res.body.payouts as any[];
}

const webhook = async (payoutId: string, suffix: string, tamper?: (body: string) => string) => {
  const { body, headers } = paypal.signedWebhook(payoutId, suffix);
  const res = await fetch(`${svc.url}/webhooks/paypal`, { method: 'POST', headers, body: tamper ? tamper(body) : body });
  return { status: res.status, body: (await res.json()) as any };
};

const payout = async (id: string) => (await svc.api('GET', `/v1/payouts/${id}`)).body;

describe('a run', () => {
  test("sends the run's PayPal payouts as one batch and leaves them processing", async () => {
    const a = await paypalPartner(1250);
    const b = await paypalPartner(700);
    const made = (await run()).filter((p) => p.partnerId === a.partnerId || p.partnerId === b.partnerId).sort((x, y) => (x.id < y.id ? -1 : 1));
    expect(made).toHaveLength(2);
    const batchCalls = paypal.calls.filter((c) => c.path === '/v1/payments/payouts' && c.method === 'POST');
    expect(batchCalls).toHaveLength(1);
    const sent = batchCalls[0]!;
    expect(sent.body.sender_batch_header.sender_batch_id).toBe(made[0].id);
    expect(sent.requestId).toBe(made[0].id);
    expect(sent.body.items).toEqual(
      made.map((p) => ({
        recipient_type: 'EMAIL',
        receiver: p.partnerId === a.partnerId ? a.email : b.email,
        amount: { value: p.amount, currency: 'USD' },
        sender_item_id: p.id,
        note: `Partner payout ${p.id}`,
      })),
    );
    const batchId = paypal.batches.get(made[0].id)!.batchId;
    for (const p of made) expect(p).toMatchObject({ status: 'processing', provider: 'paypal', providerReference: batchId, processingAt: expect.any(String) });
    expect(await commissionRow(svc.sql, a.commissionId)).toMatchObject({ status: 'paid', payout_id: made.find((p) => p.partnerId === a.partnerId).id });

    // a second run reuses the token
    await paypalPartner(300);
    await run();
    expect(paypal.tokens).toBe(1);
  });

  test("a refused batch fails its payouts with PayPal's words and releases the commissions", async () => {
    const a = await paypalPartner(400);
    paypal.failNext = { status: 422, body: { name: 'INSUFFICIENT_FUNDS', message: 'Sender does not have sufficient funds.' } };
    const failed = (await run()).find((p) => p.partnerId === a.partnerId);
    expect(failed).toMatchObject({ status: 'failed', failureReason: 'PayPal 422 INSUFFICIENT_FUNDS Sender does not have sufficient funds.' });
    expect(await commissionRow(svc.sql, a.commissionId)).toMatchObject({ status: 'approved', payout_id: null });
  });
});

test('a batch PayPal refuses as a duplicate sender_batch_id stays pending: it may be paid, so it is never failed', async () => {
  const a = await paypalPartner(450);
  paypal.failNext = { status: 400, body: { name: 'USER_BUSINESS_ERROR', message: 'User business error.', details: [{ field: 'SENDER_BATCH_ID', issue: 'Batch with given sender_batch_id already exists' }] } };
  const p = (await run()).find((x) => x.partnerId === a.partnerId);
  expect(p).toMatchObject({ status: 'pending', provider: 'paypal' });
  expect(await commissionRow(svc.sql, a.commissionId)).toMatchObject({ status: 'paid', payout_id: p.id });
});

describe('webhooks', () => {
  test('SUCCEEDED pays the payout; a redelivery changes nothing', async () => {
    const a = await paypalPartner(1000);
    const p = (await run()).find((x) => x.partnerId === a.partnerId);
    const res = await webhook(p.id, 'SUCCEEDED');
    expect(res).toMatchObject({ status: 200, body: { received: true, type: 'PAYMENT.PAYOUTS-ITEM.SUCCEEDED', actions: [`${p.id}: paid`] } });
    expect(await payout(p.id)).toMatchObject({ status: 'paid', providerReference: p.providerReference, providerAnswer: 'PayPal SUCCEEDED' });
    const [event] = await svc.sql`select data from webhook_events where type = 'payout.paid' and data->>'payoutId' = ${p.id}`;
    expect(event!.data).toMatchObject({ provider: 'paypal', providerReference: p.providerReference });
    expect((await webhook(p.id, 'SUCCEEDED')).body.actions).toEqual([`${p.id}: already paid`]);
  });

  for (const suffix of ['FAILED', 'BLOCKED', 'RETURNED', 'REFUNDED', 'REVERSED', 'DENIED']) {
    test(`${suffix} fails the payout and makes its commissions payable again`, async () => {
      const a = await paypalPartner(800);
      const p = (await run()).find((x) => x.partnerId === a.partnerId);
      paypal.setStatus(p.id, suffix, 'RECEIVER_UNREGISTERED');
      expect((await webhook(p.id, suffix)).status).toBe(200);
      expect(await payout(p.id)).toMatchObject({ status: 'failed', failureReason: `PayPal ${suffix}: RECEIVER_UNREGISTERED: as PayPal says it` });
      expect(await commissionRow(svc.sql, a.commissionId)).toMatchObject({ status: 'approved', payout_id: null });
      const [event] = await svc.sql`select data from webhook_events where type = 'payout.failed' and data->>'payoutId' = ${p.id}`;
      expect(event!.data).toMatchObject({ provider: 'paypal', reason: `PayPal ${suffix}: RECEIVER_UNREGISTERED: as PayPal says it` });
    });
  }

  test('UNCLAIMED stays processing with a note', async () => {
    const a = await paypalPartner(600);
    const p = (await run()).find((x) => x.partnerId === a.partnerId);
    expect((await webhook(p.id, 'UNCLAIMED')).status).toBe(200);
    expect(await payout(p.id)).toMatchObject({ status: 'processing', providerAnswer: 'PayPal UNCLAIMED' });
  });

  test('a forged webhook is a 400 and writes nothing', async () => {
    const a = await paypalPartner(650);
    const p = (await run()).find((x) => x.partnerId === a.partnerId);
    const [before] = await svc.sql`select count(*)::int as n from webhook_events`;
    // a real FAILED delivery turned into a success
    const forged = await webhook(p.id, 'FAILED', (body) => body.replace('PAYMENT.PAYOUTS-ITEM.FAILED', 'PAYMENT.PAYOUTS-ITEM.SUCCEEDED'));
    expect(forged.status).toBe(400);
    expect(forged.body.code).toBe('invalid_body');
    const unsigned = await fetch(`${svc.url}/webhooks/paypal`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: paypal.signedWebhook(p.id, 'SUCCEEDED').body });
    expect(unsigned.status).toBe(400);
    expect(await payout(p.id)).toMatchObject({ status: 'processing' });
    const [after] = await svc.sql`select count(*)::int as n from webhook_events`;
    expect(after!.n).toBe(before!.n);
  });
});

test('the rails job reads batches still processing after an hour', async () => {
  const a = await paypalPartner(1100);
  const b = await paypalPartner(1200);
  const made = (await run()).filter((x) => x.partnerId === a.partnerId || x.partnerId === b.partnerId);
  const [pa, pb] = [made.find((x) => x.partnerId === a.partnerId), made.find((x) => x.partnerId === b.partnerId)];
  paypal.setStatus(pa.id, 'SUCCESS');
  paypal.setStatus(pb.id, 'RETURNED', 'RECEIVER_UNCONFIRMED');
  // within the hour: not read
  await runPayoutRailsJob(svc.ctx);
  expect(await payout(pa.id)).toMatchObject({ status: 'processing' });
  await svc.sql`update payouts set processing_at = now() - interval '61 minutes' where id = any(${[pa.id, pb.id]}::text[])`;
  await runPayoutRailsJob(svc.ctx);
  expect(await payout(pa.id)).toMatchObject({ status: 'paid', providerAnswer: 'PayPal SUCCESS' });
  expect(await payout(pb.id)).toMatchObject({ status: 'failed', failureReason: 'PayPal RETURNED: RECEIVER_UNCONFIRMED: as PayPal says it' });
  expect(paypal.calls.some((c) => c.method === 'GET' && c.path === `/v1/payments/payouts/${pa.providerReference}`)).toBe(true);
});
