// The Stripe adapter end to end: signed events posted over HTTP, through attribution to commissions.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { referredUser } from '../support/chain';
import { outbox, startService, type TestService } from '../support/service';
import { charge, customer, deliver, dispute, invoice, stripeEvent, subscription, WEBHOOK_SECRET } from './fixtures';

let svc: TestService;
beforeAll(async () => {
  svc = await startService({ STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET });
});
afterAll(() => svc.stop());

const RULES = [
  { eventType: 'invoice_paid', kind: 'percent', percent: 20 },
  { eventType: 'signup', kind: 'flat', amount: '5.00' },
  { eventType: 'trial_started', kind: 'flat', amount: '1.00' },
  { eventType: 'subscription_created', kind: 'flat', amount: '10.00' },
];

const eventsOf = (userId: string) =>
  svc.sql`select id, type, amount, currency, attribution_status, metadata, source from events where user_id = ${userId} order by id`;
const commissionsOf = (userId: string) =>
  svc.sql`select id, amount, currency, status, event_type, reversal_reason from commissions where user_id = ${userId} order by id`;

describe('signature and routing', () => {
  test('a bad signature is 400 and records nothing', async () => {
    const before = (await svc.sql`select count(*)::int as n from events`)[0]!.n;
    const res = await deliver(svc.url, stripeEvent('customer.created', customer('cus_bad', 'u_bad')), 'whsec_wrong');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_body');
    expect(res.body.message).toContain('signature');
    const unsigned = await fetch(`${svc.url}/webhooks/stripe`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(unsigned.status).toBe(400);
    expect((await svc.sql`select count(*)::int as n from events`)[0]!.n).toBe(before);
    expect(await svc.sql`select 1 from billing_customers where customer_id = 'cus_bad'`).toHaveLength(0);
  });

  test('a body altered after signing is refused', async () => {
    const event = stripeEvent('invoice.paid', invoice('in_tamper', 'cus_x', 100));
    const payload = JSON.stringify(event);
    const Stripe = (await import('stripe')).default;
    const header = await new Stripe('sk_test').webhooks.generateTestHeaderStringAsync({ payload, secret: WEBHOOK_SECRET });
    const res = await fetch(`${svc.url}/webhooks/stripe`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': header },
      body: payload.replace('"amount_paid":100', '"amount_paid":999999'),
    });
    expect(res.status).toBe(400);
  });

  test('a signature dated more than 300 s away, in the past or the future, is 400 and records nothing', async () => {
    await referredUser(svc, { rules: RULES, userId: 'u_clock' });
    await deliver(svc.url, stripeEvent('customer.updated', customer('cus_clock', 'u_clock')));
    const count = async () => (await svc.sql`select count(*)::int as n from events`)[0]!.n;
    const before = await count();
    // each stamp is taken just before its delivery and clears the window by 10 s, so a slow request
    // cannot carry a refused one back inside it by the time the service reads its clock
    for (const offset of [310, -310]) {
      const timestamp = Math.floor(Date.now() / 1000) + offset;
      const paid = stripeEvent('invoice.paid', invoice(`in_clock_${offset}`, 'cus_clock', 1000));
      const res = await deliver(svc.url, paid, WEBHOOK_SECRET, timestamp);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('invalid_body');
      expect(res.body.message).toContain('signature verification failed');
    }
    expect(await count()).toBe(before);
    expect(await commissionsOf('u_clock')).toHaveLength(0);

    // within 300 s either way is accepted (Stripe's clock may run a little ahead of ours)
    const ahead = await deliver(svc.url, stripeEvent('invoice.paid', invoice('in_clock_ahead', 'cus_clock', 1000)), WEBHOOK_SECRET, Math.floor(Date.now() / 1000) + 290);
    expect(ahead.status).toBe(200);
    expect(await commissionsOf('u_clock')).toMatchObject([{ amount: 200n, status: 'accrued' }]);
  });

  test('unknown event types are acknowledged and ignored', async () => {
    const res = await deliver(svc.url, stripeEvent('payment_method.attached', { id: 'pm_1', object: 'payment_method' }));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ received: true, type: 'payment_method.attached', actions: [] });
    // names of every object's own properties are event types like any other
    for (const type of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      const odd = await deliver(svc.url, stripeEvent(type, { id: 'x_1', object: 'unknown' }));
      expect({ status: odd.status, actions: odd.body.actions }).toEqual({ status: 200, actions: [] });
    }
  });

  test('other providers are 404', async () => {
    const res = await fetch(`${svc.url}/webhooks/paddle`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(404);
  });
});

describe('mapping Stripe events to conversions', () => {
  test('customer.created links the customer and records an attributed signup', async () => {
    const chain = await referredUser(svc, { rules: RULES, userId: 'u_signup' });
    const res = await deliver(svc.url, stripeEvent('customer.created', customer('cus_signup', 'u_signup')));
    expect(res.status).toBe(200);
    const [link] = await svc.sql`select user_id from billing_customers where provider = 'stripe' and customer_id = 'cus_signup'`;
    expect(link!.user_id).toBe('u_signup');
    const events = await eventsOf('u_signup');
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'signup', amount: null, attribution_status: 'attributed', source: 'stripe' });
    const commissions = await commissionsOf('u_signup');
    expect(commissions).toMatchObject([{ amount: 500n, currency: 'USD', status: 'accrued', event_type: 'signup' }]);
    const accrued = await outbox(svc.sql, 'commission.accrued');
    expect(accrued.at(-1)!.data).toMatchObject({ partnerId: chain.partnerId, amount: '5.00', currency: 'USD', eventType: 'signup' });
  });

  test('a customer without service_user_id is acknowledged and changes nothing', async () => {
    const res = await deliver(svc.url, stripeEvent('customer.created', customer('cus_anon', null)));
    expect(res.status).toBe(200);
    expect(res.body.actions).toEqual([]);
    expect(await svc.sql`select 1 from billing_customers where customer_id = 'cus_anon'`).toHaveLength(0);
  });

  test('subscriptions: trialing is trial_started, otherwise subscription_created', async () => {
    await referredUser(svc, { rules: RULES, userId: 'u_sub' });
    await deliver(svc.url, stripeEvent('customer.updated', customer('cus_sub', 'u_sub')));
    await deliver(svc.url, stripeEvent('customer.subscription.created', subscription('sub_trial', 'cus_sub', 'trialing')));
    await deliver(svc.url, stripeEvent('customer.subscription.created', subscription('sub_paid', 'cus_sub', 'active')));
    const types = (await eventsOf('u_sub')).map((e) => e.type);
    expect(types).toEqual(['trial_started', 'subscription_created']);
    expect((await commissionsOf('u_sub')).map((c) => c.amount)).toEqual([100n, 1000n]);
  });

  test('invoice.paid is invoice_paid with amount_paid; zero invoices are skipped; redeliveries change nothing', async () => {
    await referredUser(svc, { rules: RULES, userId: 'u_inv' });
    await deliver(svc.url, stripeEvent('customer.updated', customer('cus_inv', 'u_inv')));
    const paid = stripeEvent('invoice.paid', invoice('in_001', 'cus_inv', 4900, { paymentIntent: 'pi_001' }));
    for (let i = 0; i < 3; i++) expect((await deliver(svc.url, paid)).status).toBe(200);
    await deliver(svc.url, stripeEvent('invoice.paid', invoice('in_zero', 'cus_inv', 0)));
    const events = await eventsOf('u_inv');
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'invoice_paid', amount: 4900n, currency: 'USD', attribution_status: 'attributed' });
    expect(events[0]!.metadata).toMatchObject({ invoiceId: 'in_001', stripeCustomerId: 'cus_inv' });
    expect(await commissionsOf('u_inv')).toMatchObject([{ amount: 980n, status: 'accrued' }]);
  });

  test('recurring invoices months apart keep paying the referring partner', async () => {
    await referredUser(svc, { rules: RULES, userId: 'u_rec' });
    await deliver(svc.url, stripeEvent('customer.updated', customer('cus_rec', 'u_rec')));
    const month = 30 * 86400;
    const start = Math.floor(Date.now() / 1000);
    for (let i = 0; i < 3; i++) {
      await deliver(svc.url, stripeEvent('invoice.paid', invoice(`in_rec_${i}`, 'cus_rec', 2000, { paidAt: start + i * 2 * month })));
    }
    expect((await commissionsOf('u_rec')).map((c) => c.amount)).toEqual([400n, 400n, 400n]);
  });

  test('a JPY invoice keeps zero decimals', async () => {
    await referredUser(svc, { rules: RULES, userId: 'u_jpy' });
    await deliver(svc.url, stripeEvent('customer.updated', customer('cus_jpy', 'u_jpy')));
    await deliver(svc.url, stripeEvent('invoice.paid', invoice('in_jpy', 'cus_jpy', 5000, { currency: 'jpy' })));
    expect(await eventsOf('u_jpy')).toMatchObject([{ amount: 5000n, currency: 'JPY' }]);
    expect(await commissionsOf('u_jpy')).toMatchObject([{ amount: 1000n, currency: 'JPY' }]);
  });
});

describe('one conversion per Stripe object, whatever event ids carry it', () => {
  test('the same invoice under a second event id records one event and one commission', async () => {
    await referredUser(svc, { rules: RULES, userId: 'u_twice' });
    await deliver(svc.url, stripeEvent('customer.updated', customer('cus_twice', 'u_twice')));
    const object = invoice('in_twice', 'cus_twice', 4900, { paymentIntent: 'pi_twice' });
    const first = await deliver(svc.url, stripeEvent('invoice.paid', object, 'evt_twice_1'));
    const second = await deliver(svc.url, stripeEvent('invoice.paid', object, 'evt_twice_2'));
    expect([first.status, second.status]).toEqual([200, 200]);
    const events = await eventsOf('u_twice');
    expect(events).toHaveLength(1);
    expect(second.body.actions).toEqual([`invoice_paid ${events[0]!.id} (already recorded)`]);
    expect(await commissionsOf('u_twice')).toMatchObject([{ amount: 980n, status: 'accrued' }]);
    const [row] = await svc.sql`select event_id, provider_event_id from billing_conversions where provider = 'stripe' and object_id = 'in_twice'`;
    expect(row).toEqual({ event_id: events[0]!.id, provider_event_id: 'evt_twice_1' });
  });

  test('event ids delivered at the same moment for one invoice record it once', async () => {
    const chain = await referredUser(svc, { rules: RULES, userId: 'u_race' });
    await deliver(svc.url, stripeEvent('customer.updated', customer('cus_race', 'u_race')));
    const object = invoice('in_race', 'cus_race', 10000, { paymentIntent: 'pi_race' });
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => deliver(svc.url, stripeEvent('invoice.paid', object, `evt_race_${i}`))));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(answers.filter((a) => a.body.actions[0].endsWith('(already recorded)'))).toHaveLength(5);
    expect(await eventsOf('u_race')).toHaveLength(1);
    expect(await commissionsOf('u_race')).toMatchObject([{ amount: 2000n, status: 'accrued' }]);
    const accrued = (await outbox(svc.sql, 'commission.accrued')).filter((e) => e.data.partnerId === chain.partnerId);
    expect(accrued).toHaveLength(1);
  });

  test('customer.created and customer.subscription.created under two event ids record once each', async () => {
    await referredUser(svc, { rules: RULES, userId: 'u_dup' });
    const created = customer('cus_dup', 'u_dup');
    const sub = subscription('sub_dup', 'cus_dup', 'active');
    await Promise.all([
      deliver(svc.url, stripeEvent('customer.created', created, 'evt_dup_c1')),
      deliver(svc.url, stripeEvent('customer.created', created, 'evt_dup_c2')),
    ]);
    await Promise.all([
      deliver(svc.url, stripeEvent('customer.subscription.created', sub, 'evt_dup_s1')),
      deliver(svc.url, stripeEvent('customer.subscription.created', sub, 'evt_dup_s2')),
    ]);
    expect((await eventsOf('u_dup')).map((e) => e.type)).toEqual(['signup', 'subscription_created']);
    expect((await commissionsOf('u_dup')).map((c) => c.amount)).toEqual([500n, 1000n]);
  });

  test('an invoice of an unknown customer under two event ids is kept once and replayed once', async () => {
    await referredUser(svc, { rules: RULES, userId: 'u_twice_late' });
    const object = invoice('in_twice_late', 'cus_twice_late', 3000);
    await deliver(svc.url, stripeEvent('invoice.paid', object, 'evt_twice_late_1'));
    await deliver(svc.url, stripeEvent('invoice.paid', object, 'evt_twice_late_2'));
    expect(await svc.sql`select 1 from events where user_id = 'stripe:cus_twice_late'`).toHaveLength(1);
    await deliver(svc.url, stripeEvent('customer.updated', customer('cus_twice_late', 'u_twice_late')));
    await deliver(svc.url, stripeEvent('invoice.paid', object, 'evt_twice_late_3'));
    expect(await eventsOf('u_twice_late')).toHaveLength(1);
    expect(await commissionsOf('u_twice_late')).toMatchObject([{ amount: 600n, status: 'accrued' }]);
  });
});

describe('unknown customers and out-of-order arrival', () => {
  test('an invoice for an unknown customer is kept as no_identity, then attributed once the customer is linked', async () => {
    await referredUser(svc, { rules: RULES, userId: 'u_late' });
    const res = await deliver(svc.url, stripeEvent('invoice.paid', invoice('in_early', 'cus_late', 3000, { paymentIntent: 'pi_early' })));
    expect(res.status).toBe(200);
    const [parked] = await svc.sql`select attribution_status from events where user_id = 'stripe:cus_late'`;
    expect(parked!.attribution_status).toBe('no_identity');

    const link = stripeEvent('customer.updated', customer('cus_late', 'u_late'));
    await deliver(svc.url, link);
    await deliver(svc.url, link); // a redelivered link replays nothing twice
    const events = await eventsOf('u_late');
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'invoice_paid', amount: 3000n, attribution_status: 'attributed' });
    expect(await commissionsOf('u_late')).toMatchObject([{ amount: 600n, status: 'accrued' }]);
  });

  test('a refund that arrives before its invoice reverses the commission when the invoice comes', async () => {
    await referredUser(svc, { rules: RULES, userId: 'u_ooo' });
    await deliver(svc.url, stripeEvent('customer.updated', customer('cus_ooo', 'u_ooo')));
    await deliver(svc.url, stripeEvent('charge.refunded', charge('ch_ooo', 'pi_ooo', 2500, 2500)));
    await deliver(svc.url, stripeEvent('invoice.paid', invoice('in_ooo', 'cus_ooo', 2500, { paymentIntent: 'pi_ooo' })));
    expect(await commissionsOf('u_ooo')).toMatchObject([{ amount: 500n, status: 'reversed', reversal_reason: 'refund' }]);
  });
});

describe('refunds and disputes', () => {
  async function paidUser(userId: string, pi: string) {
    const chain = await referredUser(svc, { rules: RULES, userId });
    await deliver(svc.url, stripeEvent('customer.updated', customer(`cus_${userId}`, userId)));
    await deliver(svc.url, stripeEvent('invoice.paid', invoice(`in_${userId}`, `cus_${userId}`, 10000, { paymentIntent: pi })));
    return chain;
  }

  test('a full refund reverses the commission with reason refund, once', async () => {
    const chain = await paidUser('u_refund', 'pi_refund');
    const refund = stripeEvent('charge.refunded', charge('ch_refund', 'pi_refund', 10000, 10000));
    for (let i = 0; i < 3; i++) expect((await deliver(svc.url, refund)).status).toBe(200);
    const [commission] = await commissionsOf('u_refund');
    expect(commission).toMatchObject({ status: 'reversed', reversal_reason: 'refund' });
    const reversed = (await outbox(svc.sql, 'commission.reversed')).filter((e) => e.data.commissionId === commission!.id);
    expect(reversed).toHaveLength(1);
    expect(reversed[0]!.data).toEqual({ commissionId: commission!.id, partnerId: chain.partnerId, amount: '20.00', currency: 'USD', reason: 'refund' });
  });

  test('a partial refund lowers the commission by the refunded share of the charge', async () => {
    await paidUser('u_partial', 'pi_partial');
    const res = await deliver(svc.url, stripeEvent('charge.refunded', charge('ch_partial', 'pi_partial', 10000, 2500)));
    expect(res.status).toBe(200);
    expect(res.body.actions).toEqual(['partial_refund: reduced 1']);
    expect(await commissionsOf('u_partial')).toMatchObject([{ amount: 1500n, status: 'accrued', reversal_reason: null }]);
  });

  test('a dispute reverses the commission with reason chargeback', async () => {
    await paidUser('u_dispute', 'pi_dispute');
    await deliver(svc.url, stripeEvent('charge.dispute.created', dispute('dp_1', 'ch_dispute', 'pi_dispute', 10000)));
    expect(await commissionsOf('u_dispute')).toMatchObject([{ status: 'reversed', reversal_reason: 'chargeback' }]);
  });
});

describe('not configured', () => {
  test('without STRIPE_WEBHOOK_SECRET the route is 404', async () => {
    const bare = await startService();
    try {
      const res = await deliver(bare.url, stripeEvent('customer.created', customer('cus_none', 'u_none')));
      expect(res.status).toBe(404);
    } finally {
      await bare.stop();
    }
  });
});
