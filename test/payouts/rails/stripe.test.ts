// Stripe Connect end to end against the Stripe stand-in: a partner chooses Stripe (an Express account
// and an onboarding link), is not paid until Stripe reports payouts_enabled (account.updated on the
// Stripe webhook), then each payout is one transfer keyed by the payout id; a refused transfer fails
// the payout with Stripe's words and the money is payable again.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { deliver, stripeEvent, WEBHOOK_SECRET } from '../../billing/fixtures';
import { commissionRow, insertCampaign, insertCommission, insertPartner } from '../../support/lifecycle-fixtures';
import { startService, type TestService } from '../../support/service';
import { startStripeStandIn, type StripeStandIn } from '../../support/stripe-standin';

let svc: TestService;
let stripe: StripeStandIn;
let usd: string;

beforeAll(async () => {
  stripe = await startStripeStandIn();
  svc = await startService({
    STRIPE_SECRET_KEY: 'sk_test_rails',
    STRIPE_API_URL: stripe.url,
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    PAYOUT_METHOD_HOLD_HOURS: '0',
  });
  usd = await insertCampaign(svc.sql, { currency: 'USD' });
}, 60_000);
afterAll(async () => {
  await svc.stop();
  stripe.stop();
});

async function partnerOnStripe() {
  const partnerId = await insertPartner(svc.sql);
  const key = await svc.partnerKey(partnerId);
  const put = await svc.api('PUT', `/v1/partners/${partnerId}/payout-method`, { key, body: { type: 'stripe' } });
  expect(put.status).toBe(200);
  expect(put.body.onboardingUrl).toMatch(/^https:\/\/connect\.stripe\.test\/setup\//);
  const method = (await svc.api('GET', `/v1/partners/${partnerId}/payout-method`, { key })).body;
  return { partnerId, key, accountId: method.stripeAccountId as string, method };
}

const run = async () => {
  const res = await svc.api('POST', '/v1/payouts/run');
  expect(res.status).toBe(200);
  return res.body.payouts as any[];
};

test('choosing Stripe opens an Express account and an onboarding link to the portal pages', async () => {
  const { partnerId, accountId, method } = await partnerOnStripe();
  expect(method).toMatchObject({ type: 'stripe', ready: false, stripeAccountId: expect.stringMatching(/^acct_/) });
  const created = stripe.calls.find((c) => c.path === '/v1/accounts' && c.form['metadata[partnerId]'] === partnerId)!;
  expect(created.form).toMatchObject({ type: 'express', email: `${partnerId}@example.com` });
  expect(created.authorization).toBe('Bearer sk_test_rails');
  const link = stripe.calls.findLast((c) => c.path === '/v1/account_links' && c.form.account === accountId)!;
  expect(link.form).toMatchObject({
    type: 'account_onboarding',
    return_url: `${svc.url}/portal/payouts/stripe/return`,
    refresh_url: `${svc.url}/portal/payouts/stripe/refresh`,
  });
});

test('not paid until the account is ready; account.updated makes it ready; then one transfer keyed by the payout id', async () => {
  const { partnerId, key, accountId } = await partnerOnStripe();
  const commissionId = await insertCommission(svc.sql, { partnerId, campaignId: usd, amount: 2500, status: 'approved' });
  expect((await run()).find((p) => p.partnerId === partnerId)).toBeUndefined();
  expect(await commissionRow(svc.sql, commissionId)).toMatchObject({ status: 'approved', payout_id: null });

  stripe.accounts.get(accountId)!.payoutsEnabled = true;
  const hook = await deliver(svc.url, stripeEvent('account.updated', { id: accountId, object: 'account', payouts_enabled: true }));
  expect(hook.status).toBe(200);
  expect((await svc.api('GET', `/v1/partners/${partnerId}/payout-method`, { key })).body.ready).toBe(true);

  const payout = (await run()).find((p) => p.partnerId === partnerId);
  expect(payout).toMatchObject({ status: 'paid', provider: 'stripe', amount: '25.00', providerReference: expect.stringMatching(/^tr_/) });
  const transfer = stripe.transfers.get(payout.id)!;
  expect(transfer).toMatchObject({ id: payout.providerReference, amount: 2500, currency: 'usd', destination: accountId, transfer_group: payout.id });
  expect(stripe.calls.filter((c) => c.path === '/v1/transfers' && c.idempotencyKey === payout.id)).toHaveLength(1);
  expect(await commissionRow(svc.sql, commissionId)).toMatchObject({ status: 'paid', payout_id: payout.id });
  const [event] = await svc.sql`select data from webhook_events where type = 'payout.paid' and data->>'payoutId' = ${payout.id}`;
  expect(event!.data).toMatchObject({ provider: 'stripe', providerReference: payout.providerReference, amount: '25.00' });

  // the account loses payouts: the method is not ready any more
  await deliver(svc.url, stripeEvent('account.updated', { id: accountId, object: 'account', payouts_enabled: false }));
  expect((await svc.api('GET', `/v1/partners/${partnerId}/payout-method`, { key })).body.ready).toBe(false);
});

test("a refused transfer fails the payout with Stripe's message; the commissions are payable again", async () => {
  const { partnerId, accountId } = await partnerOnStripe();
  stripe.accounts.get(accountId)!.payoutsEnabled = true;
  await deliver(svc.url, stripeEvent('account.updated', { id: accountId, object: 'account', payouts_enabled: true }));
  const commissionId = await insertCommission(svc.sql, { partnerId, campaignId: usd, amount: 900, status: 'approved' });
  stripe.refuse.add(accountId);
  const failed = (await run()).find((p) => p.partnerId === partnerId);
  expect(failed).toMatchObject({ status: 'failed', provider: 'stripe', failureReason: 'account_invalid: The destination account is not connected.' });
  expect((await svc.api('GET', `/v1/payouts/${failed.id}`)).body.providerAnswer).toContain('account_invalid');
  expect(await commissionRow(svc.sql, commissionId)).toMatchObject({ status: 'approved', payout_id: null });

  stripe.refuse.delete(accountId);
  const paid = (await run()).find((p) => p.partnerId === partnerId);
  expect(paid).toMatchObject({ status: 'paid', amount: '9.00' });
});

test('Stripe not answering leaves the payout pending; the rails job hands it over again, paid once', async () => {
  const { partnerId, accountId } = await partnerOnStripe();
  stripe.accounts.get(accountId)!.payoutsEnabled = true;
  await deliver(svc.url, stripeEvent('account.updated', { id: accountId, object: 'account', payouts_enabled: true }));
  await insertCommission(svc.sql, { partnerId, campaignId: usd, amount: 300, status: 'approved' });
  stripe.failNext = { status: 500, body: { error: { type: 'api_error', message: 'An unknown error occurred' } } };
  const pending = (await run()).find((p) => p.partnerId === partnerId);
  expect(pending).toMatchObject({ status: 'pending', provider: 'stripe' });
  const { runPayoutRailsJob } = await import('../../../src/scheduler/payout-rails');
  expect(await runPayoutRailsJob(svc.ctx)).toBeGreaterThanOrEqual(1);
  expect((await svc.api('GET', `/v1/payouts/${pending.id}`)).body).toMatchObject({ status: 'paid' });
  expect([...stripe.transfers.values()].filter((t) => t.transfer_group === pending.id)).toHaveLength(1);
});
