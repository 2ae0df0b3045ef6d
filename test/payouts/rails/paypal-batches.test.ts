// PayPal takes at most 15,000 items per batch: a run paying 15,001 partners by PayPal sends two
// batches (15,000 and 1 items) to the PayPal stand-in, each with a sender_batch_id fixed by its
// payouts (the first payout id of the batch, in id order) and sent as PayPal-Request-Id. Sending them
// again after a crash (the payouts still pending) carries the same ids: PayPal makes no new batch.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { newId } from '../../../src/lib/ids';
import { runPayoutRailsJob } from '../../../src/scheduler/payout-rails';
import { runPayouts } from '../../../src/workflows/run-payouts';
import { insertCampaign } from '../../support/lifecycle-fixtures';
import { startPayPalStandIn, type PayPalStandIn } from '../../support/paypal-standin';
import { startService, type TestService } from '../../support/service';

const PARTNERS = 15_001;

let svc: TestService;
let paypal: PayPalStandIn;
let partnerIds: string[];

beforeAll(async () => {
  paypal = await startPayPalStandIn();
  svc = await startService({
    PAYPAL_CLIENT_ID: paypal.clientId,
    PAYPAL_CLIENT_SECRET: paypal.clientSecret,
    PAYPAL_API_URL: paypal.url,
    PAYPAL_WEBHOOK_ID: paypal.webhookId,
    PAYOUT_METHOD_HOLD_HOURS: '0',
  });
  const campaignId = await insertCampaign(svc.sql, { currency: 'USD' });
  // 15,001 partners paid by PayPal, each with one approved commission (set-based: seconds, not minutes)
  partnerIds = Array.from({ length: PARTNERS }, () => newId('partner'));
  const eventIds = partnerIds.map(() => newId('event'));
  const attributionIds = partnerIds.map(() => newId('attribution'));
  const commissionIds = partnerIds.map(() => newId('commission'));
  await svc.sql.begin(async (tx) => {
    await tx`insert into partners (id, email, name, activated_at) select id, id || '@example.com', 'Partner ' || id, now() from unnest(${partnerIds}::text[]) as id`;
    await tx`
      insert into payout_methods (partner_id, type, email, ready, changed_by)
      select id, 'paypal', id || '@paypal.example.com', true, 'test' from unnest(${partnerIds}::text[]) as id`;
    await tx`
      insert into events (id, user_id, type, amount, currency, occurred_at, attribution_status, attribution_model)
      select e, 'user_' || e, 'invoice_paid', 10000, 'USD', now(), 'attributed', 'last_click' from unnest(${eventIds}::text[]) as e`;
    await tx`
      insert into attributions (id, event_id, user_id, click_id, partner_id, campaign_id, model, weight)
      select a, e, 'user_' || e, 'clk_' || a, p, ${campaignId}, 'last_click', 1
      from unnest(${attributionIds}::text[], ${eventIds}::text[], ${partnerIds}::text[]) as x(a, e, p)`;
    await tx`
      insert into commissions (id, attribution_id, event_id, partner_id, campaign_id, user_id, amount, currency,
                               event_type, event_value, status, holdback_days, approved_at)
      select c, a, e, p, ${campaignId}, 'user_' || e, 1000, 'USD', 'invoice_paid', 10000, 'approved', 30, now()
      from unnest(${commissionIds}::text[], ${attributionIds}::text[], ${eventIds}::text[], ${partnerIds}::text[]) as x(c, a, e, p)`;
  });
}, 120_000);
afterAll(async () => {
  await svc.stop();
  paypal.stop();
});

const batchCalls = () => paypal.calls.filter((c) => c.method === 'POST' && c.path === '/v1/payments/payouts');

test('15,001 PayPal payouts go out as two batches with deterministic sender_batch_ids; sent again, PayPal makes no new batch', async () => {
  // the run itself (POST /v1/payouts/run's workflow): its answer of 15,001 payouts takes longer than
  // a test client waits on a loaded machine
  const made = await runPayouts(svc.ctx, { actor: 'key:test' });
  expect(made).toHaveLength(PARTNERS);

  const payouts = await svc.sql<{ id: string; status: string; rail_batch: string; provider_reference: string; destination: string }[]>`
    select id, status, rail_batch, provider_reference, destination from payouts where provider = 'paypal' order by id`;
  expect(payouts).toHaveLength(PARTNERS);
  // the batches are the payouts in id order, 15,000 at a time, each named by its first payout
  const first = payouts[0]!.id;
  const second = payouts[15_000]!.id;
  const calls = batchCalls();
  expect(calls).toHaveLength(2);
  const sent = new Map(calls.map((c) => [c.body.sender_batch_header.sender_batch_id as string, c]));
  expect([...sent.keys()].sort()).toEqual([first, second]);
  expect(sent.get(first)!.body.items).toHaveLength(15_000);
  expect(sent.get(second)!.body.items).toHaveLength(1);
  for (const [id, call] of sent) expect(call.requestId).toBe(id);
  expect(sent.get(second)!.body.items[0]).toMatchObject({ sender_item_id: second, receiver: payouts[15_000]!.destination, amount: { value: '10.00', currency: 'USD' } });

  // every payout in exactly one batch, the one its row names, and processing with PayPal's batch id
  const items = calls.flatMap((c) => c.body.items.map((i: { sender_item_id: string }) => [i.sender_item_id, c.body.sender_batch_header.sender_batch_id]));
  expect(new Set(items.map(([id]) => id)).size).toBe(PARTNERS);
  const batchOf = new Map(items as [string, string][]);
  for (const [i, p] of payouts.entries()) {
    expect(p.rail_batch).toBe(i < 15_000 ? first : second);
    expect(batchOf.get(p.id)).toBe(p.rail_batch);
    expect(p.status).toBe('processing');
    expect(p.provider_reference).toBe(paypal.batches.get(p.rail_batch)!.batchId);
  }
  expect(paypal.tokens).toBe(1);

  // a crash between PayPal's answer and the commit: the payouts are pending again and handed over
  await svc.sql`update payouts set status = 'pending', provider_reference = null, processing_at = null where provider = 'paypal'`;
  expect(await runPayoutRailsJob(svc.ctx)).toBe(PARTNERS);
  const again = batchCalls().slice(2);
  expect(again.map((c) => c.body.sender_batch_header.sender_batch_id).sort()).toEqual([first, second]);
  expect(again.map((c) => c.requestId).sort()).toEqual([first, second]);
  expect(paypal.batches.size).toBe(2);
  expect(paypal.items.size).toBe(PARTNERS);
  const [open] = await svc.sql`select count(*)::int as n from payouts where provider = 'paypal' and status <> 'processing'`;
  expect(open!.n).toBe(0);
}, 120_000);
