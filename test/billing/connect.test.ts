// Payouts through Stripe Connect, against a local stand-in for Stripe's API that checks each request.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { referredUser } from '../support/chain';
import { startService, type TestService } from '../support/service';

type Seen = { path: string; idempotencyKey: string | null; authorization: string | null; form: Record<string, string> };

let svc: TestService;
let fake: ReturnType<typeof Bun.serve>;
const seen: Seen[] = [];
let failNext = false;

beforeAll(async () => {
  fake = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(request) {
      const url = new URL(request.url);
      const form = Object.fromEntries(new URLSearchParams(await request.text()));
      seen.push({ path: `${request.method} ${url.pathname}`, idempotencyKey: request.headers.get('idempotency-key'), authorization: request.headers.get('authorization'), form });
      if (url.pathname !== '/v1/transfers') return Response.json({ error: { type: 'invalid_request_error', message: 'unexpected' } }, { status: 404 });
      if (failNext) {
        failNext = false;
        return Response.json(
          { error: { type: 'invalid_request_error', code: 'account_invalid', message: 'The destination account is not connected.' } },
          { status: 400 },
        );
      }
      return Response.json({ id: `tr_${seen.length}`, object: 'transfer', amount: Number(form.amount), currency: form.currency, destination: form.destination });
    },
  });
  svc = await startService({ STRIPE_SECRET_KEY: 'sk_test_partnerd', STRIPE_API_URL: `http://127.0.0.1:${fake.port}` });
});
afterAll(async () => {
  await svc.stop();
  fake.stop(true);
});

/** An approved commission of `cents` for a new partner with a connected account. */
async function approvedCommission(userId: string, invoiceCents: number, account: string | null) {
  const chain = await referredUser(svc, { rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 10 }], userId });
  if (account) await svc.api('PATCH', `/partners/${chain.partnerId}`, { body: { billingConnectAccountId: account } });
  const event = await svc.api('POST', '/v1/events', { body: { userId, type: 'invoice_paid', amount: invoiceCents, currency: 'USD' } });
  expect(event.status).toBe(201);
  const [commission] = await svc.sql`select id from commissions where user_id = ${userId}`;
  expect((await svc.api('POST', `/v1/commissions/${commission!.id}/approve`)).status).toBe(200);
  return { ...chain, commissionId: commission!.id as string };
}

describe('Stripe Connect payouts', () => {
  test('a payout becomes one transfer to the partner account, keyed by the payout id', async () => {
    const { partnerId, commissionId } = await approvedCommission('u_connect', 25000, 'acct_ok');
    const run = await svc.api('POST', '/v1/payouts/run');
    expect(run.status).toBe(200);
    const payout = run.body.payouts.find((p: { partnerId: string }) => p.partnerId === partnerId);
    expect(payout).toMatchObject({ amount: '25.00', currency: 'USD', status: 'paid', provider: 'stripe' });
    const transfer = seen.find((s) => s.idempotencyKey === payout.id)!;
    expect(transfer.path).toBe('POST /v1/transfers');
    expect(transfer.authorization).toBe('Bearer sk_test_partnerd');
    expect(transfer.form).toMatchObject({ amount: '2500', currency: 'usd', destination: 'acct_ok', transfer_group: payout.id });
    expect(payout.providerReference).toMatch(/^tr_/);
    const [row] = await svc.sql`select status, payout_id from commissions where id = ${commissionId}`;
    expect(row).toEqual({ status: 'paid', payout_id: payout.id });
  });

  test('a refused transfer fails the payout with the reason; the next run pays again', async () => {
    const { partnerId, commissionId } = await approvedCommission('u_refused', 5000, 'acct_bad');
    failNext = true;
    const first = await svc.api('POST', '/v1/payouts/run');
    const failed = first.body.payouts.find((p: { partnerId: string }) => p.partnerId === partnerId);
    expect(failed.status).toBe('failed');
    expect(failed.failureReason).toContain('account_invalid');
    expect((await svc.sql`select status from commissions where id = ${commissionId}`)[0]!.status).toBe('approved');

    const retry = await svc.api('POST', '/v1/payouts/run');
    const paid = retry.body.payouts.find((p: { partnerId: string }) => p.partnerId === partnerId);
    expect(paid).toMatchObject({ status: 'paid', amount: '5.00' });
    expect(paid.id).not.toBe(failed.id);
    expect(seen.filter((s) => s.form.destination === 'acct_bad')).toHaveLength(2);
    expect((await svc.sql`select status from commissions where id = ${commissionId}`)[0]!.status).toBe('paid');
  });

  test('partners without a connected account are left for a manual payout', async () => {
    const { partnerId } = await approvedCommission('u_manual', 3000, null);
    const before = seen.length;
    const run = await svc.api('POST', '/v1/payouts/run');
    expect(run.body.payouts.find((p: { partnerId: string }) => p.partnerId === partnerId)).toMatchObject({ status: 'pending' });
    expect(seen.length).toBe(before);
  });
});
