// kill -9 of the service in the middle of a payout run, with the Stripe and PayPal stand-ins counting
// what they pay: after a restart every payout is paid exactly once. Transfers Stripe made but the
// dead process never recorded are asked again with the same idempotency key (the payout id) and
// answered from Stripe's memory; PayPal's batch goes out once, after the restart.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { eventually } from '../../support/eventually';
import { insertCampaign, insertCommission, insertPartner } from '../../support/lifecycle-fixtures';
import { startPayPalStandIn, type PayPalStandIn } from '../../support/paypal-standin';
import { createTestDatabase } from '../../support/postgres';
import { spawnService, type ServiceProcess } from '../../support/process';
import { startStripeStandIn, type StripeStandIn } from '../../support/stripe-standin';

let stripe: StripeStandIn;
let paypal: PayPalStandIn;
let db: Awaited<ReturnType<typeof createTestDatabase>>;
const children: ServiceProcess[] = [];

beforeAll(async () => {
  stripe = await startStripeStandIn();
  paypal = await startPayPalStandIn();
  db = await createTestDatabase(await globalThis.__partnerdTestServer!);
}, 60_000);
afterAll(async () => {
  for (const c of children) if (c.proc.exitCode === null && !c.proc.signalCode) c.proc.kill('SIGKILL');
  await Promise.all(children.map((c) => c.proc.exited));
  await db.drop();
  stripe.stop();
  paypal.stop();
});

const STRIPE_PARTNERS = 48;
const PAYPAL_PARTNERS = 24;

test('SIGKILL mid-run: after a restart every payout is paid exactly once', async () => {
  const env = {
    STRIPE_SECRET_KEY: 'sk_test_crash',
    STRIPE_API_URL: stripe.url,
    PAYPAL_CLIENT_ID: paypal.clientId,
    PAYPAL_CLIENT_SECRET: paypal.clientSecret,
    PAYPAL_API_URL: paypal.url,
    PAYPAL_WEBHOOK_ID: paypal.webhookId,
    PAYOUT_CRON: '0 0 1 1 *',
  };
  const first = await spawnService(db.url, env);
  children.push(first);
  const campaignId = await insertCampaign(db.sql, { currency: 'USD' });
  const expected = new Map<string, { rail: string; cents: number; to: string }>();
  for (let i = 0; i < STRIPE_PARTNERS + PAYPAL_PARTNERS; i++) {
    const partnerId = await insertPartner(db.sql);
    const stripeSide = i < STRIPE_PARTNERS;
    const to = stripeSide ? `acct_crash${i}` : `crash${i}@example.com`;
    await db.sql`
      insert into payout_methods (partner_id, type, email, stripe_account_id, ready, changed_by)
      values (${partnerId}, ${stripeSide ? 'stripe' : 'paypal'}, ${stripeSide ? null : to}, ${stripeSide ? to : null}, true, 'test')`;
    const cents = 1000 + i;
    await insertCommission(db.sql, { partnerId, campaignId, amount: cents, status: 'approved' });
    expected.set(partnerId, { rail: stripeSide ? 'stripe' : 'paypal', cents, to });
  }

  // Stripe makes each transfer, then takes a while to say so: transfers are made that the process
  // will never hear about
  stripe.delayAfterMs = 300;
  const running = first.api('POST', '/v1/payouts/run').catch(() => null);
  await eventually(() => expect(stripe.transfers.size).toBeGreaterThanOrEqual(20), { timeout: 20_000 });
  first.proc.kill('SIGKILL');
  expect(await first.exited()).toBeNull();
  await running;
  const atDeath = await db.sql`select status, count(*)::int as n from payouts group by status order by status`;
  const paidAtDeath = atDeath.find((r) => r.status === 'paid')?.n ?? 0;
  const made = stripe.transfers.size;
  // some transfers were made that the database does not know were paid
  expect(made).toBeGreaterThan(paidAtDeath);
  expect(paypal.batches.size).toBe(0);

  stripe.delayAfterMs = 0;
  const second = await spawnService(db.url, env);
  children.push(second);
  // the start hands the pending payouts over again; a run then pays whatever the first never reached
  await eventually(
    async () => {
      const [open] = await db.sql`select count(*)::int as n from payouts where status = 'pending'`;
      expect(open!.n).toBe(0);
    },
    { timeout: 30_000 },
  );
  await eventually(async () => expect((await second.api('POST', '/v1/payouts/run')).status).toBe(200), { timeout: 30_000 });

  const payouts = await db.sql`select id, partner_id, status, provider, amount, provider_reference, destination from payouts order by id`;
  const byPartner = new Map<string, any[]>();
  for (const p of payouts) byPartner.set(p.partner_id, [...(byPartner.get(p.partner_id) ?? []), p]);
  expect(byPartner.size).toBe(expected.size);
  for (const [partnerId, want] of expected) {
    const mine = byPartner.get(partnerId)!;
    expect(mine).toHaveLength(1);
    const p = mine[0];
    expect({ provider: p.provider, amount: Number(p.amount), destination: p.destination }).toEqual({ provider: want.rail, amount: want.cents, destination: want.to });
    if (want.rail === 'stripe') {
      expect(p.status).toBe('paid');
      const transfer = stripe.transfers.get(p.id)!;
      expect(transfer).toMatchObject({ id: p.provider_reference, amount: want.cents, destination: want.to });
    } else {
      expect(p.status).toBe('processing');
    }
  }
  // exactly once at the rails: one transfer per Stripe payout, one PayPal item per PayPal payout
  expect(stripe.transfers.size).toBe(STRIPE_PARTNERS);
  expect(new Set([...stripe.transfers.values()].map((t) => t.destination)).size).toBe(STRIPE_PARTNERS);
  const items = [...paypal.batches.values()].flatMap((b) => b.items);
  expect(items).toHaveLength(PAYPAL_PARTNERS);
  expect(new Set(items.map((i) => i.payoutId)).size).toBe(PAYPAL_PARTNERS);
  const [left] = await db.sql`select count(*)::int as n from commissions where status = 'approved'`;
  expect(left!.n).toBe(0);
}, 120_000);
