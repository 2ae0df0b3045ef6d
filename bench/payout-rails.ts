// Payout rails benchmark: PARTNERS partners (10,000 by default) split across Stripe, PayPal, Wise
// and by hand, one approved commission each, paid by one run against the Stripe and PayPal stand-ins
// answering in DELAY_MS (50) per call. Prints the run's time and what each stand-in was asked.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres bun run bench/payout-rails.ts
//   PARTNERS=2000 DELAY_MS=50 bun run bench/payout-rails.ts
import { loadConfig } from '../src/config';
import { createLogger } from '../src/lib/log';
import { newId } from '../src/lib/ids';
import { createContext } from '../src/server';
import { runPayouts } from '../src/workflows/run-payouts';
import { startPayPalStandIn } from '../test/support/paypal-standin';
import { createTestDatabase, startTestServer } from '../test/support/postgres';
import { startStripeStandIn } from '../test/support/stripe-standin';
import { insertCampaign, insertCommission } from '../test/support/lifecycle-fixtures';

const partners = Number(process.env.PARTNERS ?? 10_000);
const delayMs = Number(process.env.DELAY_MS ?? 50);
const RAILS = ['stripe', 'paypal', 'wise', 'manual'] as const;

const server = await startTestServer();
const db = await createTestDatabase(server);
const stripe = await startStripeStandIn();
const paypal = await startPayPalStandIn();
try {
  const campaignId = await insertCampaign(db.sql, { currency: 'USD' });
  const ids = Array.from({ length: partners }, () => newId('partner'));
  const rail = (i: number) => RAILS[i % RAILS.length]!;
  await db.sql`
    insert into partners (id, email, name, activated_at)
    select id, id || '@example.com', 'Bench ' || id, now() from unnest(${ids}::text[]) as id`;
  await db.sql`
    insert into payout_methods (partner_id, type, email, stripe_account_id, ready, changed_by)
    select id, r, case when r in ('paypal', 'wise') then id || '@pay.example.com' end, case when r = 'stripe' then 'acct_' || substr(md5(id), 1, 16) end, true, 'bench'
    from unnest(${ids}::text[], ${ids.map((_, i) => rail(i))}::text[]) as x(id, r)`;
  for (let i = 0; i < ids.length; i += 50) {
    await Promise.all(ids.slice(i, i + 50).map((partnerId) => insertCommission(db.sql, { partnerId, campaignId, amount: 1000, status: 'approved' })));
  }
  await db.sql`vacuum analyze`;
  stripe.delayMs = delayMs;
  paypal.delayMs = delayMs;
  const config = loadConfig({
    DATABASE_URL: db.url,
    LOG_LEVEL: 'warn',
    STRIPE_SECRET_KEY: 'sk_test_bench',
    STRIPE_API_URL: stripe.url,
    PAYPAL_CLIENT_ID: paypal.clientId,
    PAYPAL_CLIENT_SECRET: paypal.clientSecret,
    PAYPAL_API_URL: paypal.url,
  });
  const ctx = createContext(config, db.sql, createLogger('warn'));
  const t = performance.now();
  const made = await runPayouts(ctx, { actor: 'job:payout' });
  const seconds = (performance.now() - t) / 1000;
  const statuses = await db.sql`select provider, status, count(*)::int as n from payouts group by provider, status order by provider, status`;
  console.log(
    JSON.stringify(
      {
        partners,
        delayMs,
        runSeconds: Number(seconds.toFixed(2)),
        payouts: made!.length,
        byRail: statuses.map((r) => `${r.provider} ${r.status} ${r.n}`),
        stripeCalls: stripe.calls.length,
        stripeTransfers: stripe.transfers.size,
        paypalBatches: paypal.batches.size,
        paypalItems: [...paypal.batches.values()].reduce((n, b) => n + b.items.length, 0),
        paypalTokens: paypal.tokens,
      },
      null,
      2,
    ),
  );
} finally {
  stripe.stop();
  paypal.stop();
  await db.drop();
  await server.stop();
}
