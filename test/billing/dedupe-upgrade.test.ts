// Upgrading a database whose Stripe conversions were recorded before billing_conversions existed:
// migration 0011 fills it from them, so an invoice seen before the upgrade is not counted again when
// it comes back under a new event id.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { migrate } from '../../src/db/migrate';
import { referredUser } from '../support/chain';
import { startService, type TestService } from '../support/service';
import { customer, deliver, invoice, stripeEvent, subscription, WEBHOOK_SECRET } from './fixtures';

let svc: TestService;
beforeAll(async () => {
  svc = await startService({ STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET });
});
afterAll(() => svc.stop());

const RULES = [
  { eventType: 'invoice_paid', kind: 'percent', percent: 20 },
  { eventType: 'signup', kind: 'flat', amount: '5.00' },
  { eventType: 'subscription_created', kind: 'flat', amount: '10.00' },
];

test('0011 records the object of every Stripe conversion already in the database', async () => {
  await referredUser(svc, { rules: RULES, userId: 'u_old' });
  await deliver(svc.url, stripeEvent('customer.created', customer('cus_old', 'u_old'), 'evt_old_signup'));
  await deliver(svc.url, stripeEvent('customer.subscription.created', subscription('sub_old', 'cus_old', 'active'), 'evt_old_sub'));
  await deliver(svc.url, stripeEvent('invoice.paid', invoice('in_old', 'cus_old', 5000), 'evt_old_inv'));
  // an invoice kept under the stand-in user, then replayed when its customer was linked
  await referredUser(svc, { rules: RULES, userId: 'u_later' });
  await deliver(svc.url, stripeEvent('invoice.paid', invoice('in_parked', 'cus_later', 2000), 'evt_parked'));
  await deliver(svc.url, stripeEvent('customer.updated', customer('cus_later', 'u_later'), 'evt_link'));
  const written = await svc.sql`select provider, object_id, event_id, provider_event_id from billing_conversions order by object_id`;
  expect(written.map((r) => r.object_id)).toEqual(['cus_old', 'in_old', 'in_parked', 'sub_old']);

  // back to the schema before 0011, then migrate
  await svc.sql`drop table billing_conversions`;
  await svc.sql`delete from schema_migrations where version = '0011'`;
  expect(await migrate(svc.sql)).toEqual(['0011']);
  const filled = await svc.sql`select provider, object_id, event_id, provider_event_id from billing_conversions order by object_id`;
  expect(filled).toEqual(written);

  // the same objects under new event ids change nothing
  for (const [type, object] of [
    ['customer.created', customer('cus_old', 'u_old')],
    ['customer.subscription.created', subscription('sub_old', 'cus_old', 'active')],
    ['invoice.paid', invoice('in_old', 'cus_old', 5000)],
    ['invoice.paid', invoice('in_parked', 'cus_later', 2000)],
  ] as const) {
    const res = await deliver(svc.url, stripeEvent(type, object));
    expect(res.status).toBe(200);
    expect(res.body.actions.at(-1)).toEndWith('(already recorded)');
  }
  const events = await svc.sql`select user_id, type from events where source = 'stripe' order by id`;
  expect(events.map((e) => `${e.user_id} ${e.type}`)).toEqual([
    'u_old signup',
    'u_old subscription_created',
    'u_old invoice_paid',
    'stripe:cus_later invoice_paid',
    'u_later invoice_paid',
  ]);
  expect((await svc.sql`select amount from commissions order by id`).map((c) => c.amount)).toEqual([500n, 1000n, 1000n, 400n]);
});
