// The Lemon Squeezy adapter end to end: signed webhook bodies posted over HTTP, through attribution to
// commissions; and what the adapter hands the core for partial refunds.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { BillingAction } from '../../../plugins/billing';
import { createLemonSqueezyPlugin } from '../../../plugins/lemonsqueezy';
import { referredUser } from '../../support/chain';
import { outbox, startService, type TestService } from '../../support/service';
import { custom, deliver, nextId, order, sign, SIGNING_SECRET, subscription, subscriptionInvoice, webhook } from './fixtures';
import { lemonSqueezyKit } from './kit';

let svc: TestService;
beforeAll(async () => {
  svc = await startService({ LEMONSQUEEZY_WEBHOOK_SECRET: SIGNING_SECRET });
});
afterAll(() => svc.stop());

const RULES = [
  { eventType: 'invoice_paid', kind: 'percent', percent: 20 },
  { eventType: 'trial_started', kind: 'flat', amount: '1.00' },
  { eventType: 'subscription_created', kind: 'flat', amount: '10.00' },
];

const eventsOf = (userId: string) =>
  svc.sql`select id, type, amount, currency, attribution_status, metadata, source, idempotency_key from events where user_id = ${userId} order by id`;
const commissionsOf = (userId: string) =>
  svc.sql`select id, amount, currency, status, event_type, reversal_reason from commissions where user_id = ${userId} order by id`;
const countEvents = async () => (await svc.sql`select count(*)::int as n from events`)[0]!.n as number;
const countLinks = async () => (await svc.sql`select count(*)::int as n from billing_customers`)[0]!.n as number;

const orderCreated = (id: number, customerId: number, total: number, userId?: string, extra: { currency?: string; status?: string } = {}) =>
  webhook('order_created', 'orders', id, order({ customerId, total, ...extra }), custom(userId));
const subscriptionCreated = (customerId: number, userId: string | undefined, status = 'active', id = nextId()) =>
  webhook('subscription_created', 'subscriptions', id, subscription({ customerId, status }), custom(userId));

/** A referred user whose Lemon Squeezy customer is linked by a subscription_created (one subscription_created commission). */
async function linkedUser(userId: string) {
  const chain = await referredUser(svc, { rules: RULES, userId });
  const customerId = nextId();
  expect((await deliver(svc.url, subscriptionCreated(customerId, userId))).status).toBe(200);
  return { ...chain, customerId };
}

describe('signature and routing', () => {
  test('a wrong, missing or truncated signature, or a body changed after signing, is 400 and records nothing', async () => {
    await referredUser(svc, { rules: RULES, userId: 'u_bad' });
    const body = orderCreated(nextId(), nextId(), 4900, 'u_bad');
    const before = [await countEvents(), await countLinks()];
    const answers = [
      await deliver(svc.url, body, { secret: 'lsq_not_the_signing_secret' }),
      await deliver(svc.url, body, { signature: null }),
      await deliver(svc.url, body, { signature: '' }),
      await deliver(svc.url, body, { signature: 'zz'.repeat(32) }),
      await deliver(svc.url, body, { signature: sign(JSON.stringify(body)).slice(0, 63) }),
      await deliver(svc.url, body, { tamper: (raw) => raw.replace('"total":4900', '"total":490000') }),
    ];
    for (const res of answers) {
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'invalid_body' });
      expect(res.body.message).toStartWith('signature verification failed');
    }
    expect([await countEvents(), await countLinks()]).toEqual(before);
  });

  test('the signature is the lowercase hex HMAC-SHA256 of the raw body; upper-case hex is accepted too', async () => {
    await referredUser(svc, { rules: RULES, userId: 'u_hex' });
    const body = orderCreated(nextId(), nextId(), 1000, 'u_hex');
    const res = await deliver(svc.url, body, { signature: sign(JSON.stringify(body)).toUpperCase() });
    expect(res.status).toBe(200);
    expect(await commissionsOf('u_hex')).toMatchObject([{ amount: 200n }]);
  });

  test('well-signed bodies that are not what Lemon Squeezy documents are 400 naming the field, and record nothing', async () => {
    const before = [await countEvents(), await countLinks()];
    for (const delivery of lemonSqueezyKit.malformed()) {
      const res = await lemonSqueezyKit.deliver(svc.url, delivery);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('invalid_body');
      expect(res.body.message).toStartWith('malformed Lemon Squeezy event');
    }
    const res = await deliver(svc.url, orderCreated(nextId(), nextId(), 4900, 'u_m', { currency: 'usd1' }));
    expect(res.body.details).toEqual([{ field: 'data.attributes.currency', message: expect.any(String) }]);
    expect([await countEvents(), await countLinks()]).toEqual(before);
  });

  test('event types the adapter does not map are acknowledged and ignored', async () => {
    const before = await countEvents();
    for (const body of [
      webhook('license_key_created', 'license-keys', nextId(), { customer_id: nextId(), key: 'k' }),
      webhook('subscription_updated', 'subscriptions', nextId(), subscription({ customerId: nextId(), status: 'active' }), custom('u_ignored')),
      webhook('subscription_payment_failed', 'subscription-invoices', nextId(), { billing_reason: 'renewal' }),
    ]) {
      const res = await deliver(svc.url, body);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ received: true, type: body.meta.event_name, actions: [] });
    }
    expect(await countEvents()).toBe(before);
  });

  test('other providers are 404', async () => {
    for (const provider of ['stripe', 'paddle']) {
      const res = await fetch(`${svc.url}/webhooks/${provider}`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
      expect(res.status).toBe(404);
    }
  });
});

describe('mapping Lemon Squeezy events to conversions', () => {
  test('order_created (paid) links its customer and is invoice_paid with total in the order currency', async () => {
    const chain = await referredUser(svc, { rules: RULES, userId: 'u_order' });
    const orderId = nextId();
    const customerId = nextId();
    const res = await deliver(svc.url, orderCreated(orderId, customerId, 4900, 'u_order'));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ received: true, eventId: `order_created:orders:${orderId}`, type: 'order_created' });
    const [link] = await svc.sql`select user_id from billing_customers where provider = 'lemonsqueezy' and customer_id = ${String(customerId)}`;
    expect(link!.user_id).toBe('u_order');
    const events = await eventsOf('u_order');
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'invoice_paid',
      amount: 4900n,
      currency: 'USD',
      attribution_status: 'attributed',
      source: 'lemonsqueezy',
      idempotency_key: `lemonsqueezy:order_created:orders:${orderId}`,
      metadata: { lemonSqueezyOrderId: String(orderId), lemonSqueezyCustomerId: String(customerId), lemonSqueezyTestMode: true },
    });
    const references = await svc.sql`select reference from billing_references where provider = 'lemonsqueezy' and event_id = ${events[0]!.id}`;
    expect(references.map((r) => r.reference)).toEqual([`orders:${orderId}`]);
    expect(await commissionsOf('u_order')).toMatchObject([{ amount: 980n, currency: 'USD', status: 'accrued', event_type: 'invoice_paid' }]);
    const accrued = (await outbox(svc.sql, 'commission.accrued')).filter((e) => e.data.partnerId === chain.partnerId);
    expect(accrued.map((e) => e.data)).toMatchObject([{ amount: '9.80', currency: 'USD', eventType: 'invoice_paid' }]);
  });

  test('an order without custom data is credited to the user its customer is linked to', async () => {
    const { customerId } = await linkedUser('u_linked');
    await deliver(svc.url, orderCreated(nextId(), customerId, 2500));
    expect((await eventsOf('u_linked')).map((e) => [e.type, e.amount])).toEqual([
      ['subscription_created', null],
      ['invoice_paid', 2500n],
    ]);
    expect((await commissionsOf('u_linked')).map((c) => c.amount)).toEqual([1000n, 500n]);
  });

  test("the order's custom data names the user even when its customer was linked to another", async () => {
    const { customerId } = await linkedUser('u_first');
    await referredUser(svc, { rules: RULES, userId: 'u_second' });
    await deliver(svc.url, orderCreated(nextId(), customerId, 3000, 'u_second'));
    expect(await eventsOf('u_second')).toMatchObject([{ type: 'invoice_paid', amount: 3000n }]);
    expect((await eventsOf('u_first')).map((e) => e.type)).toEqual(['subscription_created']);
  });

  test('orders not paid, and zero-total orders, record nothing (their customer is still linked)', async () => {
    await referredUser(svc, { rules: RULES, userId: 'u_unpaid' });
    const customerId = nextId();
    for (const body of [
      orderCreated(nextId(), customerId, 4900, 'u_unpaid', { status: 'pending' }),
      orderCreated(nextId(), customerId, 4900, 'u_unpaid', { status: 'failed' }),
      orderCreated(nextId(), customerId, 0, 'u_unpaid'),
    ]) {
      const res = await deliver(svc.url, body);
      expect(res.status).toBe(200);
      expect(res.body.actions).toEqual([`linked ${customerId}`]);
    }
    expect(await eventsOf('u_unpaid')).toHaveLength(0);
  });

  test('subscription_created: on_trial is trial_started, otherwise subscription_created', async () => {
    await referredUser(svc, { rules: RULES, userId: 'u_sub' });
    const customerId = nextId();
    const trialId = nextId();
    await deliver(svc.url, subscriptionCreated(customerId, 'u_sub', 'on_trial', trialId));
    await deliver(svc.url, subscriptionCreated(customerId, 'u_sub', 'active'));
    const events = await eventsOf('u_sub');
    expect(events.map((e) => e.type)).toEqual(['trial_started', 'subscription_created']);
    expect(events[0]!.metadata).toMatchObject({ lemonSqueezySubscriptionId: String(trialId), lemonSqueezyStatus: 'on_trial' });
    expect((await commissionsOf('u_sub')).map((c) => c.amount)).toEqual([100n, 1000n]);
  });

  test('subscription_payment_success counts renewals only: the first payment is its order', async () => {
    const { customerId } = await linkedUser('u_renew');
    const subscriptionId = nextId();
    const orderId = nextId();
    await deliver(svc.url, orderCreated(orderId, customerId, 1900));
    const initial = webhook('subscription_payment_success', 'subscription-invoices', nextId(), subscriptionInvoice({ customerId, subscriptionId, total: 1900, billingReason: 'initial' }));
    const initialAnswer = await deliver(svc.url, initial);
    expect(initialAnswer.body.actions).toEqual([]);
    const invoiceId = nextId();
    const renewal = webhook('subscription_payment_success', 'subscription-invoices', invoiceId, subscriptionInvoice({ customerId, subscriptionId, total: 1900, billingReason: 'renewal' }));
    expect((await deliver(svc.url, renewal)).status).toBe(200);
    const paid = (await eventsOf('u_renew')).filter((e) => e.type === 'invoice_paid');
    expect(paid.map((e) => e.amount)).toEqual([1900n, 1900n]);
    expect(paid[1]!.metadata).toMatchObject({ lemonSqueezyInvoiceId: String(invoiceId), lemonSqueezySubscriptionId: String(subscriptionId), billingReason: 'renewal' });
    const [ref] = await svc.sql`select reference from billing_references where event_id = ${paid[1]!.id}`;
    expect(ref!.reference).toBe(`subscription-invoices:${invoiceId}`);
    const zero = webhook('subscription_payment_success', 'subscription-invoices', nextId(), subscriptionInvoice({ customerId, subscriptionId, total: 0, billingReason: 'renewal' }));
    expect((await deliver(svc.url, zero)).body.actions).toEqual([]);
    expect((await commissionsOf('u_renew')).map((c) => c.amount)).toEqual([1000n, 380n, 380n]);
  });

  test('a subscription payment carrying custom data links its customer', async () => {
    await referredUser(svc, { rules: RULES, userId: 'u_inv_link' });
    const customerId = nextId();
    const body = webhook(
      'subscription_payment_success',
      'subscription-invoices',
      nextId(),
      subscriptionInvoice({ customerId, subscriptionId: nextId(), total: 1000, billingReason: 'renewal' }),
      custom('u_inv_link'),
    );
    const res = await deliver(svc.url, body);
    expect(res.body.actions[0]).toBe(`linked ${customerId}`);
    expect(await eventsOf('u_inv_link')).toMatchObject([{ type: 'invoice_paid', amount: 1000n, attribution_status: 'attributed' }]);
  });

  test('amounts keep the currency: a JPY order has no decimals, a lower-case code is upper-cased', async () => {
    await referredUser(svc, { rules: RULES, userId: 'u_jpy' });
    const customerId = nextId();
    await deliver(svc.url, orderCreated(nextId(), customerId, 5000, 'u_jpy', { currency: 'JPY' }));
    await deliver(svc.url, orderCreated(nextId(), customerId, 1234, 'u_jpy', { currency: 'eur' }));
    expect((await eventsOf('u_jpy')).map((e) => [e.amount, e.currency])).toEqual([
      [5000n, 'JPY'],
      [1234n, 'EUR'],
    ]);
    expect((await commissionsOf('u_jpy')).map((c) => [c.amount, c.currency])).toEqual([
      [1000n, 'JPY'],
      [247n, 'EUR'],
    ]);
  });
});

describe('one conversion per Lemon Squeezy object', () => {
  test('an order delivered three times, and again with other attributes, records one conversion', async () => {
    const chain = await referredUser(svc, { rules: RULES, userId: 'u_again' });
    const orderId = nextId();
    const customerId = nextId();
    const body = orderCreated(orderId, customerId, 10000, 'u_again');
    for (let i = 0; i < 3; i++) expect((await deliver(svc.url, body)).status).toBe(200);
    // resent from the dashboard later: the same order, its attributes since updated
    const later = orderCreated(orderId, customerId, 10000, 'u_again');
    later.data.attributes.updated_at = new Date(Date.now() + 60_000).toISOString();
    const res = await deliver(svc.url, later);
    expect(res.status).toBe(200);
    const events = await eventsOf('u_again');
    expect(events).toHaveLength(1);
    expect(res.body.actions).toContain(`invoice_paid ${events[0]!.id} (already recorded)`);
    expect(await commissionsOf('u_again')).toMatchObject([{ amount: 2000n, status: 'accrued' }]);
    const accrued = (await outbox(svc.sql, 'commission.accrued')).filter((e) => e.data.partnerId === chain.partnerId);
    expect(accrued).toHaveLength(1);
    const [row] = await svc.sql`select event_id from billing_conversions where provider = 'lemonsqueezy' and object_id = ${`orders:${orderId}`}`;
    expect(row!.event_id).toBe(events[0]!.id);
  });

  test('the same order delivered at the same moment records it once', async () => {
    await referredUser(svc, { rules: RULES, userId: 'u_race' });
    const orderId = nextId();
    const customerId = nextId();
    const answers = await Promise.all(
      Array.from({ length: 5 }, (_, i) => {
        const body = orderCreated(orderId, customerId, 5000, 'u_race');
        body.data.attributes.updated_at = new Date(Date.now() + i * 1000).toISOString();
        return deliver(svc.url, body);
      }),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    expect(await eventsOf('u_race')).toHaveLength(1);
    expect(await commissionsOf('u_race')).toMatchObject([{ amount: 1000n }]);
  });
});

describe('unknown customers and out-of-order arrival', () => {
  test('an order of a customer nobody linked is kept as no_identity, then attributed once a subscription links it', async () => {
    await referredUser(svc, { rules: RULES, userId: 'u_later' });
    const customerId = nextId();
    await deliver(svc.url, orderCreated(nextId(), customerId, 3000));
    const [parked] = await svc.sql`select attribution_status from events where user_id = ${`lemonsqueezy:${customerId}`}`;
    expect(parked!.attribution_status).toBe('no_identity');
    const link = subscriptionCreated(customerId, 'u_later');
    await deliver(svc.url, link);
    await deliver(svc.url, link); // a redelivered link replays nothing twice
    const events = await eventsOf('u_later');
    expect(events.map((e) => [e.type, e.attribution_status])).toEqual([
      ['invoice_paid', 'attributed'],
      ['subscription_created', 'attributed'],
    ]);
    expect((await commissionsOf('u_later')).map((c) => c.amount).sort()).toEqual([1000n, 600n].sort());
  });

  test('a full refund that arrives before its order reverses the commission when the order comes', async () => {
    const { customerId } = await linkedUser('u_ooo');
    const orderId = nextId();
    await deliver(svc.url, webhook('order_refunded', 'orders', orderId, order({ customerId, total: 2500, refunded: 2500 })));
    await deliver(svc.url, orderCreated(orderId, customerId, 2500));
    const paid = (await commissionsOf('u_ooo')).filter((c) => c.event_type === 'invoice_paid');
    expect(paid).toMatchObject([{ amount: 500n, status: 'reversed', reversal_reason: 'refund' }]);
  });
});

describe('refunds', () => {
  test('order_refunded in full reverses the commission with reason refund, once however often it comes', async () => {
    const { customerId, partnerId } = await linkedUser('u_refund');
    const orderId = nextId();
    await deliver(svc.url, orderCreated(orderId, customerId, 10000));
    const refund = webhook('order_refunded', 'orders', orderId, order({ customerId, total: 10000, refunded: 10000 }));
    for (let i = 0; i < 3; i++) expect((await deliver(svc.url, refund)).status).toBe(200);
    const [commission] = (await commissionsOf('u_refund')).filter((c) => c.event_type === 'invoice_paid');
    expect(commission).toMatchObject({ status: 'reversed', reversal_reason: 'refund' });
    const reversed = (await outbox(svc.sql, 'commission.reversed')).filter((e) => e.data.commissionId === commission!.id);
    expect(reversed.map((e) => e.data)).toEqual([{ commissionId: commission!.id, partnerId, amount: '20.00', currency: 'USD', reason: 'refund' }]);
  });

  test('subscription_payment_refunded reverses a renewal; a refunded first payment is left to its order', async () => {
    const { customerId } = await linkedUser('u_inv_refund');
    const subscriptionId = nextId();
    const invoiceId = nextId();
    const renewal = subscriptionInvoice({ customerId, subscriptionId, total: 1900, billingReason: 'renewal' });
    await deliver(svc.url, webhook('subscription_payment_success', 'subscription-invoices', invoiceId, renewal));
    const initialRefund = webhook('subscription_payment_refunded', 'subscription-invoices', nextId(), subscriptionInvoice({ customerId, subscriptionId, total: 1900, billingReason: 'initial', refunded: 1900 }));
    expect((await deliver(svc.url, initialRefund)).body.actions).toEqual([]);
    const refund = webhook('subscription_payment_refunded', 'subscription-invoices', invoiceId, subscriptionInvoice({ customerId, subscriptionId, total: 1900, billingReason: 'renewal', refunded: 1900 }));
    const res = await deliver(svc.url, refund);
    expect(res.body.actions).toEqual(['refund: reversed 1']);
    expect((await commissionsOf('u_inv_refund')).filter((c) => c.event_type === 'invoice_paid')).toMatchObject([{ status: 'reversed', reversal_reason: 'refund' }]);
  });

  describe('what the adapter hands the core', () => {
    const plugin = createLemonSqueezyPlugin({ webhookSecret: SIGNING_SECRET });
    const actionsOf = async (body: ReturnType<typeof webhook>) => {
      const raw = JSON.stringify(body);
      return plugin.map(await plugin.verify(raw, new Headers({ 'x-signature': sign(raw) })));
    };

    test('a partial refund names the refunded total so far, keyed by the order, with what was paid', async () => {
      const orderId = nextId();
      const customerId = nextId();
      const first = await actionsOf(webhook('order_refunded', 'orders', orderId, order({ customerId, total: 10000, refunded: 2500 })));
      const second = await actionsOf(webhook('order_refunded', 'orders', orderId, order({ customerId, total: 10000, refunded: 6000 })));
      for (const [actions, amount] of [
        [first, 2500n],
        [second, 6000n],
      ] as const) {
        expect(actions).toEqual([{ kind: 'reversal', references: [`orders:${orderId}`], reason: 'refund', refunded: { key: `orders:${orderId}`, amount, of: 10000n } }]);
      }
      const invoiceId = nextId();
      const invoice = subscriptionInvoice({ customerId, subscriptionId: nextId(), total: 1900, billingReason: 'renewal', refunded: 900 });
      expect(await actionsOf(webhook('subscription_payment_refunded', 'subscription-invoices', invoiceId, invoice))).toEqual([
        { kind: 'reversal', references: [`subscription-invoices:${invoiceId}`], reason: 'refund', refunded: { key: `subscription-invoices:${invoiceId}`, amount: 900n, of: 1900n } },
      ]);
    });

    test('a refund of everything is a plain reversal; a payload without refunded_amount counts as whole only when refunded', async () => {
      const orderId = nextId();
      const customerId = nextId();
      const whole: BillingAction[] = [{ kind: 'reversal', references: [`orders:${orderId}`], reason: 'refund' }];
      expect(await actionsOf(webhook('order_refunded', 'orders', orderId, order({ customerId, total: 10000, refunded: 10000 })))).toEqual(whole);
      const { refunded_amount: _, ...older } = order({ customerId, total: 10000, refunded: 10000 });
      expect(await actionsOf(webhook('order_refunded', 'orders', orderId, older))).toEqual(whole);
      const { refunded_amount: __, ...olderPartial } = order({ customerId, total: 10000, refunded: 100 });
      expect(await actionsOf(webhook('order_refunded', 'orders', orderId, olderPartial))).toEqual([]);
    });

    test('the promotion code is not in the webhook: conversions carry none', async () => {
      const [, conversion] = await actionsOf(orderCreated(nextId(), nextId(), 4900, 'u_code'));
      expect(conversion).toMatchObject({ kind: 'conversion', couponCode: null });
    });
  });
});

describe('not configured', () => {
  test('without LEMONSQUEEZY_WEBHOOK_SECRET the route is 404', async () => {
    const bare = await startService();
    try {
      const res = await deliver(bare.url, orderCreated(nextId(), nextId(), 4900, 'u_none'));
      expect(res.status).toBe(404);
    } finally {
      await bare.stop();
    }
  });
});
