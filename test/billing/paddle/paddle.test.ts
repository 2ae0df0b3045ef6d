// The Paddle Billing adapter end to end: signed notifications posted over HTTP, through attribution
// to commissions, against a real service and database.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createPaddlePlugin } from '../../../plugins/paddle';
import { referredUser } from '../../support/chain';
import { outbox, startService, type TestService } from '../../support/service';
import {
  adjustment,
  customer,
  deliver,
  notification,
  OTHER_SECRET,
  paddleId,
  paddleKit,
  post,
  signature,
  subscription,
  transaction,
  WEBHOOK_SECRET,
} from './kit';

let svc: TestService;
beforeAll(async () => {
  svc = await startService({ PADDLE_WEBHOOK_SECRET: WEBHOOK_SECRET });
});
afterAll(() => svc.stop());

const RULES = [
  { eventType: 'invoice_paid', kind: 'percent', percent: 20 },
  { eventType: 'signup', kind: 'flat', amount: '5.00' },
  { eventType: 'trial_started', kind: 'flat', amount: '1.00' },
  { eventType: 'subscription_created', kind: 'flat', amount: '10.00' },
];

const send = (body: object, options?: Parameters<typeof deliver>[2]) => deliver(svc.url, { body }, options);
const eventsOf = (userId: string) =>
  svc.sql`select id, type, amount, currency, attribution_status, metadata, source, idempotency_key from events where user_id = ${userId} order by id`;
const commissionsOf = (userId: string) =>
  svc.sql`select id, amount, currency, status, event_type, reversal_reason from commissions where user_id = ${userId} order by id`;
const counts = async () =>
  (
    await svc.sql`select (select count(*)::int from events) as events, (select count(*)::int from billing_customers) as links,
      (select count(*)::int from billing_refunds) as refunds, (select count(*)::int from commissions where status = 'reversed') as reversed`
  )[0];

/** A referred user whose Paddle customer is linked (customer.updated with custom data). */
async function linkedUser(userId: string) {
  const chain = await referredUser(svc, { rules: RULES, userId });
  const customerId = paddleId('ctm');
  expect((await send(notification('customer.updated', customer(customerId, userId)))).status).toBe(200);
  return { ...chain, customerId };
}

describe('signature and routing', () => {
  test('a wrong secret, a missing header or a mangled header is 400 and records nothing', async () => {
    const before = await counts();
    const body = notification('customer.created', customer(paddleId('ctm'), 'u_bad'));
    const raw = JSON.stringify(body);
    const answers = [
      await send(body, { secrets: [OTHER_SECRET] }),
      await post(svc.url, raw, {}),
      await post(svc.url, raw, { 'paddle-signature': signature(raw, [WEBHOOK_SECRET]).replace(/h1=[0-9a-f]{64}/, 'h1=zz') }),
      await post(svc.url, raw, { 'paddle-signature': signature(raw, [WEBHOOK_SECRET]).replace(/^ts=\d+;/, '') }),
      await post(svc.url, raw, { 'paddle-signature': `ts=${Math.floor(Date.now() / 1000)}` }),
      await post(svc.url, raw, { 'paddle-signature': `${signature(raw, [WEBHOOK_SECRET])};ts=1` }),
    ];
    for (const res of answers) {
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('invalid_body');
      expect(res.body.message).toContain('signature verification failed');
    }
    expect(await counts()).toEqual(before);
  });

  test('a body altered after signing is refused', async () => {
    const { customerId, userId } = await linkedUser('u_tamper');
    const body = notification('transaction.completed', transaction({ id: paddleId('txn'), customerId, total: '100' }));
    const res = await send(body, { tamper: (raw) => raw.replaceAll('"100"', '"999999"') });
    expect(res.status).toBe(400);
    expect(await eventsOf(userId)).toHaveLength(0);
  });

  test('during a secret rotation either h1 may match (Paddle sends one per secret)', async () => {
    const { customerId, userId } = await linkedUser('u_rotate');
    const first = await send(notification('transaction.completed', transaction({ id: paddleId('txn'), customerId, total: '1000' })), {
      secrets: [OTHER_SECRET, WEBHOOK_SECRET],
    });
    const second = await send(notification('transaction.completed', transaction({ id: paddleId('txn'), customerId, total: '2000' })), {
      secrets: [WEBHOOK_SECRET, OTHER_SECRET],
    });
    expect([first.status, second.status]).toEqual([200, 200]);
    expect((await commissionsOf(userId)).map((c) => c.amount)).toEqual([200n, 400n]);
  });

  test('a ts more than 300 s away, in the past or the future, is 400; within 300 s is accepted', async () => {
    const { customerId, userId } = await linkedUser('u_clock');
    // each ts is taken just before its delivery and sits 10 s from the edge, so a slow request cannot
    // move it across the window by the time the service reads its clock
    const at = (offset: number) => Math.floor(Date.now() / 1000) + offset;
    for (const offset of [310, -310]) {
      const res = await send(notification('transaction.completed', transaction({ id: paddleId('txn'), customerId, total: '1000' })), { at: at(offset) });
      expect(res.status).toBe(400);
      expect(res.body.message).toContain('300 s');
    }
    expect(await eventsOf(userId)).toHaveLength(0);
    for (const offset of [290, -290]) {
      const res = await send(notification('transaction.completed', transaction({ id: paddleId('txn'), customerId, total: '1000' })), { at: at(offset) });
      expect(res.status).toBe(200);
    }
    expect(await commissionsOf(userId)).toHaveLength(2);
  });

  test('a signed body that is not a Paddle notification is 400; a malformed object in a valid one is acknowledged and ignored', async () => {
    const before = await counts();
    for (const delivery of paddleKit.malformed()) {
      const res = await deliver(svc.url, delivery);
      expect([200, 400]).toContain(res.status);
      if (res.status === 200) expect(res.body.actions).toEqual([]);
      else expect(res.body.message).toContain('malformed Paddle notification');
    }
    expect((await deliver(svc.url, { raw: 'not json at all' })).status).toBe(400);
    expect((await deliver(svc.url, { raw: '{"event_type":"transaction.completed"}' })).status).toBe(400);
    expect(await counts()).toEqual(before);
  });

  test('each field the adapter reads, replaced by odd values in a well-signed notification, never gives a 500', async () => {
    const customerId = paddleId('ctm');
    const transactionId = paddleId('txn');
    const samples: [string, Record<string, any>, string[]][] = [
      ['customer.created', customer(customerId, 'u_fuzz'), ['id', 'created_at', 'custom_data', 'custom_data.service_user_id']],
      [
        'subscription.created',
        subscription(paddleId('sub'), customerId, 'active', { userId: 'u_fuzz' }),
        ['id', 'customer_id', 'status', 'started_at', 'created_at', 'custom_data.service_user_id'],
      ],
      [
        'transaction.completed',
        transaction({ id: transactionId, customerId, total: '100', userId: 'u_fuzz' }),
        ['id', 'customer_id', 'subscription_id', 'currency_code', 'discount_id', 'origin', 'details', 'details.totals', 'details.totals.total', 'custom_data'],
      ],
      [
        'adjustment.updated',
        adjustment({ transactionId, customerId, action: 'refund', status: 'approved', type: 'partial', total: '50' }),
        ['id', 'transaction_id', 'action', 'status', 'type', 'totals', 'totals.total'],
      ],
    ];
    const odd = [null, 0, -1, 1e308, '', 'x'.repeat(5000), '\u0000', '\ud800', [], {}, [1], { service_user_id: { a: 1 } }, true];
    const failures: string[] = [];
    for (const [type, data, keys] of samples) {
      for (const key of keys) {
        for (const value of odd) {
          const copy = structuredClone(data);
          const path = key.split('.');
          let at: any = copy;
          for (const step of path.slice(0, -1)) at = at[step] ??= {};
          at[path.at(-1)!] = value;
          const res = await send(notification(type, copy));
          if (res.status !== 200 && res.status !== 400) failures.push(`${type} ${key}=${JSON.stringify(value)?.slice(0, 20)} -> ${res.status} ${JSON.stringify(res.body)}`);
        }
      }
    }
    expect(failures).toEqual([]);
  }, 60_000);

  test('unknown event types are acknowledged and ignored', async () => {
    const res = await deliver(svc.url, paddleKit.unknown());
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ received: true, type: 'address.created', actions: [] });
  });

  test('other providers are 404', async () => {
    const res = await fetch(`${svc.url}/webhooks/lemonsqueezy`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(404);
  });
});

describe('mapping Paddle events to conversions', () => {
  test('customer.created links the customer and records an attributed signup, keyed paddle:<event_id>', async () => {
    const chain = await referredUser(svc, { rules: RULES, userId: 'u_signup' });
    const customerId = paddleId('ctm');
    const event = notification('customer.created', customer(customerId, 'u_signup'));
    const res = await send(event);
    expect(res.status).toBe(200);
    expect(res.body.eventId).toBe(event.event_id);
    const [link] = await svc.sql`select user_id from billing_customers where provider = 'paddle' and customer_id = ${customerId}`;
    expect(link!.user_id).toBe('u_signup');
    const events = await eventsOf('u_signup');
    expect(events).toMatchObject([
      { type: 'signup', amount: null, attribution_status: 'attributed', source: 'paddle', idempotency_key: `paddle:${event.event_id}`, metadata: { paddleCustomerId: customerId } },
    ]);
    expect(await commissionsOf('u_signup')).toMatchObject([{ amount: 500n, currency: 'USD', status: 'accrued', event_type: 'signup' }]);
    const accrued = await outbox(svc.sql, 'commission.accrued');
    expect(accrued.at(-1)!.data).toMatchObject({ partnerId: chain.partnerId, amount: '5.00', eventType: 'signup' });
  });

  test('customer.updated links without recording anything; a customer without custom data changes nothing', async () => {
    await referredUser(svc, { rules: RULES, userId: 'u_update' });
    const customerId = paddleId('ctm');
    const res = await send(notification('customer.updated', customer(customerId, 'u_update')));
    expect(res.body.actions).toEqual([`linked ${customerId}`]);
    expect(await eventsOf('u_update')).toHaveLength(0);

    const anonymous = paddleId('ctm');
    const none = await send(notification('customer.created', customer(anonymous, null)));
    expect(none.status).toBe(200);
    expect(none.body.actions).toEqual([]);
    expect(await svc.sql`select 1 from billing_customers where customer_id = ${anonymous}`).toHaveLength(0);
  });

  test('subscription.created: trialing is trial_started, otherwise subscription_created', async () => {
    const { customerId, userId } = await linkedUser('u_sub');
    const trial = paddleId('sub');
    await send(notification('subscription.created', subscription(trial, customerId, 'trialing')));
    await send(notification('subscription.created', subscription(paddleId('sub'), customerId, 'active')));
    const events = await eventsOf(userId);
    expect(events.map((e) => e.type)).toEqual(['trial_started', 'subscription_created']);
    expect(events[0]!.metadata).toMatchObject({ paddleCustomerId: customerId, paddleSubscriptionId: trial, paddleStatus: 'trialing' });
    expect((await commissionsOf(userId)).map((c) => c.amount)).toEqual([100n, 1000n]);
  });

  test('transaction.completed is invoice_paid with details.totals.total in currency_code; references the transaction and subscription', async () => {
    const { customerId, userId } = await linkedUser('u_txn');
    const txn = transaction({ id: paddleId('txn'), customerId, total: '4900', discountId: paddleId('dsc') });
    const res = await send(notification('transaction.completed', txn));
    expect(res.status).toBe(200);
    const events = await eventsOf(userId);
    expect(events).toMatchObject([{ type: 'invoice_paid', amount: 4900n, currency: 'USD', attribution_status: 'attributed', source: 'paddle' }]);
    expect(events[0]!.metadata).toEqual({
      paddleCustomerId: customerId,
      paddleTransactionId: txn.id,
      paddleSubscriptionId: txn.subscription_id,
      paddleDiscountId: txn.discount_id,
      paddleOrigin: 'web',
    });
    const refs = await svc.sql`select reference from billing_references where provider = 'paddle' and event_id = ${events[0]!.id} order by reference`;
    expect(refs.map((r) => r.reference).sort()).toEqual([txn.subscription_id!, txn.id].sort());
    expect(await commissionsOf(userId)).toMatchObject([{ amount: 980n, currency: 'USD', status: 'accrued' }]);
  });

  test('the user id in the transaction custom data wins over the linked customer, and links an unknown customer', async () => {
    const { customerId } = await linkedUser('u_linked');
    await referredUser(svc, { rules: RULES, userId: 'u_custom' });
    await send(notification('transaction.completed', transaction({ id: paddleId('txn'), customerId, total: '1000', userId: 'u_custom' })));
    expect(await commissionsOf('u_custom')).toMatchObject([{ amount: 200n }]);

    // checkout creates customers without custom data: the transaction's names their user
    await referredUser(svc, { rules: RULES, userId: 'u_checkout' });
    const fresh = paddleId('ctm');
    await send(notification('transaction.completed', transaction({ id: paddleId('txn'), customerId: fresh, total: '3000', userId: 'u_checkout' })));
    await send(notification('transaction.completed', transaction({ id: paddleId('txn'), customerId: fresh, total: '1500' })));
    expect((await commissionsOf('u_checkout')).map((c) => c.amount)).toEqual([600n, 300n]);
  });

  test('a user id Partnerd cannot store (not text, NUL, empty) counts as none: the linked customer decides', async () => {
    const { customerId, userId } = await linkedUser('u_badcustom');
    for (const bad of [42, 'a\u0000b', '   ']) {
      const txn = { ...transaction({ id: paddleId('txn'), customerId, total: '500' }), custom_data: { service_user_id: bad } };
      expect((await send(notification('transaction.completed', txn))).status).toBe(200);
    }
    expect((await commissionsOf(userId)).map((c) => c.amount)).toEqual([100n, 100n, 100n]);
  });

  test('zero totals are skipped; redeliveries and a second event id for one transaction record it once', async () => {
    const { customerId, userId } = await linkedUser('u_once');
    const zero = await send(notification('transaction.completed', transaction({ id: paddleId('txn'), customerId, total: '0' })));
    expect(zero.body.actions).toEqual([]);
    const txn = transaction({ id: paddleId('txn'), customerId, total: '2500' });
    const event = notification('transaction.completed', txn);
    for (let i = 0; i < 3; i++) expect((await send(event)).status).toBe(200);
    const again = await send(notification('transaction.completed', txn));
    const events = await eventsOf(userId);
    expect(events).toHaveLength(1);
    expect(again.body.actions).toContain(`invoice_paid ${events[0]!.id} (already recorded)`);
    expect(await commissionsOf(userId)).toMatchObject([{ amount: 500n, status: 'accrued' }]);
  });

  test('a JPY transaction keeps zero decimals', async () => {
    const { customerId, userId } = await linkedUser('u_jpy');
    await send(notification('transaction.completed', transaction({ id: paddleId('txn'), customerId, total: '5000', currency: 'JPY' })));
    expect(await eventsOf(userId)).toMatchObject([{ amount: 5000n, currency: 'JPY' }]);
    expect(await commissionsOf(userId)).toMatchObject([{ amount: 1000n, currency: 'JPY' }]);
  });

  test('a payment of a customer nobody linked yet is kept as no_identity, then attributed once linked', async () => {
    await referredUser(svc, { rules: RULES, userId: 'u_late' });
    const customerId = paddleId('ctm');
    await send(notification('transaction.completed', transaction({ id: paddleId('txn'), customerId, total: '3000' })));
    const parked = await svc.sql`select attribution_status from events where user_id = ${`paddle:${customerId}`}`;
    expect(parked.map((e) => e.attribution_status)).toEqual(['no_identity']);
    const link = notification('customer.updated', customer(customerId, 'u_late'));
    await send(link);
    await send(link);
    expect(await eventsOf('u_late')).toMatchObject([{ type: 'invoice_paid', amount: 3000n, attribution_status: 'attributed' }]);
    expect(await commissionsOf('u_late')).toMatchObject([{ amount: 600n, status: 'accrued' }]);
  });
});

describe('adjustments: refunds and chargebacks', () => {
  async function paid(userId: string, total = '10000') {
    const { customerId } = await linkedUser(userId);
    const transactionId = paddleId('txn');
    await send(notification('transaction.completed', transaction({ id: transactionId, customerId, total })));
    return { customerId, transactionId };
  }

  test('a refund pending approval does nothing; once approved it reverses the commission (reason refund), once', async () => {
    const { customerId, transactionId } = await paid('u_refund');
    const id = paddleId('adj');
    const pending = await send(
      notification('adjustment.created', adjustment({ id, transactionId, customerId, action: 'refund', status: 'pending_approval', type: 'full', total: '10000' })),
    );
    expect(pending.body.actions).toEqual([]);
    expect(await commissionsOf('u_refund')).toMatchObject([{ status: 'accrued' }]);
    expect(await svc.sql`select 1 from billing_refunds where refund_key = ${id}`).toHaveLength(0);

    const approved = notification('adjustment.updated', adjustment({ id, transactionId, customerId, action: 'refund', status: 'approved', type: 'full', total: '10000' }));
    for (let i = 0; i < 3; i++) expect((await send(approved)).status).toBe(200);
    const [commission] = await commissionsOf('u_refund');
    expect(commission).toMatchObject({ status: 'reversed', reversal_reason: 'refund' });
    const reversed = (await outbox(svc.sql, 'commission.reversed')).filter((e) => e.data.commissionId === commission!.id);
    expect(reversed).toHaveLength(1);
    expect(reversed[0]!.data).toMatchObject({ amount: '20.00', currency: 'USD', reason: 'refund' });
  });

  test('a partial refund counts once approved, once for its created and updated events, and several add up', async () => {
    const { customerId, transactionId } = await paid('u_partial');
    const [commission] = await commissionsOf('u_partial');
    const first = paddleId('adj');
    const partial = (id: string, status: 'pending_approval' | 'approved', total: string) =>
      notification(status === 'approved' ? 'adjustment.updated' : 'adjustment.created', adjustment({ id, transactionId, customerId, action: 'refund', status, type: 'partial', total }));
    await send(partial(first, 'pending_approval', '2500'));
    expect(await commissionsOf('u_partial')).toMatchObject([{ amount: 2000n, status: 'accrued' }]);
    await send(partial(first, 'approved', '2500'));
    await send({ ...partial(first, 'approved', '2500'), event_type: 'adjustment.created' });
    expect(await commissionsOf('u_partial')).toMatchObject([{ amount: 1500n, status: 'accrued' }]);
    await send(partial(paddleId('adj'), 'approved', '7500'));
    expect(await commissionsOf('u_partial')).toMatchObject([{ amount: 1500n, status: 'reversed', reversal_reason: 'refund' }]);
    const reasons = (await outbox(svc.sql, 'commission.reversed')).filter((e) => e.data.commissionId === commission!.id).map((e) => [e.data.amount, e.data.reason]);
    expect(reasons).toEqual([
      ['15.00', 'partial_refund'],
      ['15.00', 'refund'],
    ]);
  });

  test('a rejected refund and a credit change nothing', async () => {
    const { customerId, transactionId } = await paid('u_rejected');
    for (const [action, status] of [['refund', 'rejected'], ['refund', 'reversed'], ['credit', 'approved']] as const) {
      const res = await send(notification('adjustment.updated', adjustment({ transactionId, customerId, action, status, type: 'full', total: '10000' })));
      expect(res.body.actions).toEqual([]);
    }
    expect(await commissionsOf('u_rejected')).toMatchObject([{ status: 'accrued' }]);
  });

  test('a chargeback reverses with reason chargeback unless Paddle rejected it', async () => {
    const { customerId, transactionId } = await paid('u_chargeback');
    const rejected = await send(
      notification('adjustment.created', adjustment({ transactionId, customerId, action: 'chargeback', status: 'rejected', type: 'full', total: '10000' })),
    );
    expect(rejected.body.actions).toEqual([]);
    expect(await commissionsOf('u_chargeback')).toMatchObject([{ status: 'accrued' }]);
    await send(notification('adjustment.created', adjustment({ transactionId, customerId, action: 'chargeback', status: 'pending_approval', type: 'full', total: '10000' })));
    expect(await commissionsOf('u_chargeback')).toMatchObject([{ status: 'reversed', reversal_reason: 'chargeback' }]);
  });

  test('a refund that arrives before its transaction reverses the commission when the transaction comes', async () => {
    const { customerId } = await linkedUser('u_ooo');
    const transactionId = paddleId('txn');
    const early = await send(
      notification('adjustment.updated', adjustment({ transactionId, customerId, action: 'refund', status: 'approved', type: 'full', total: '2500' })),
    );
    expect(early.body.actions).toEqual(['refund waiting for its payment']);
    await send(notification('transaction.completed', transaction({ id: transactionId, customerId, total: '2500' })));
    expect(await commissionsOf('u_ooo')).toMatchObject([{ amount: 500n, status: 'reversed', reversal_reason: 'refund' }]);
  });

  test('a refund of one transaction leaves the other transactions of its subscription alone', async () => {
    const { customerId } = await linkedUser('u_subrefund');
    const subscriptionId = paddleId('sub');
    const [first, second] = [paddleId('txn'), paddleId('txn')];
    await send(notification('transaction.completed', transaction({ id: first, customerId, total: '1000', subscriptionId })));
    await send(notification('transaction.completed', transaction({ id: second, customerId, total: '1000', subscriptionId })));
    await send(notification('adjustment.updated', adjustment({ transactionId: second, customerId, action: 'refund', status: 'approved', type: 'full', total: '1000' })));
    expect((await commissionsOf('u_subrefund')).map((c) => c.status)).toEqual(['accrued', 'reversed']);
  });
});

describe('what map() hands the core for partial refunds', () => {
  const plugin = createPaddlePlugin({ webhookSecret: WEBHOOK_SECRET });
  const event = (data: object) => ({ id: paddleId('evt'), type: 'adjustment.updated', createdAt: new Date(), object: data });

  test('a partial refund carries its own amount keyed by the adjustment; a full one all of it', () => {
    const transactionId = paddleId('txn');
    const customerId = paddleId('ctm');
    const partial = adjustment({ transactionId, customerId, action: 'refund', status: 'approved', type: 'partial', total: '2500' });
    expect(plugin.map(event(partial))).toEqual([
      { kind: 'reversal', references: [transactionId], reason: 'refund', refunded: { key: partial.id, amount: 2500n } },
    ]);
    const full = adjustment({ transactionId, customerId, action: 'refund', status: 'approved', type: 'full', total: '10000' });
    expect(plugin.map(event(full))).toEqual([{ kind: 'reversal', references: [transactionId], reason: 'refund' }]);
    const nothing = adjustment({ transactionId, customerId, action: 'refund', status: 'approved', type: 'partial', total: '0' });
    expect(plugin.map(event(nothing))).toEqual([]);
  });

  test('a transaction reports no promotion code (Paddle sends only the discount id)', () => {
    const txn = transaction({ id: paddleId('txn'), customerId: paddleId('ctm'), total: '100', discountId: paddleId('dsc') });
    const [conversion] = plugin.map({ id: paddleId('evt'), type: 'transaction.completed', createdAt: new Date(), object: txn });
    expect(conversion).toMatchObject({ kind: 'conversion', couponCode: null, metadata: { paddleDiscountId: txn.discount_id } });
  });
});

describe('not configured', () => {
  test('without PADDLE_WEBHOOK_SECRET the route is 404', async () => {
    const bare = await startService();
    try {
      const res = await deliver(bare.url, { body: notification('customer.created', customer(paddleId('ctm'), 'u_none')) });
      expect(res.status).toBe(404);
    } finally {
      await bare.stop();
    }
  });
});
