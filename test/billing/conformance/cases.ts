// The guarantees every billing plugin gives (DESIGN.md "Billing plugins", "More billing plugins",
// "Refunds"), as one suite each plugin runs with its own kit: signatures, redelivery, out-of-order
// arrival, customers known only later, zero amounts, unknown and malformed events, full and partial
// refunds, chargebacks. Everything goes over HTTP to a real service; the answers, the rows and the
// webhook outbox are what is checked.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { referredUser } from '../../support/chain';
import { outbox, startService, type TestService } from '../../support/service';
import type { Delivery, ProviderKit } from './kit';

const RULES = [
  { eventType: 'invoice_paid', kind: 'percent', percent: 20 },
  { eventType: 'signup', kind: 'flat', amount: '5.00' },
  { eventType: 'trial_started', kind: 'flat', amount: '1.00' },
  { eventType: 'subscription_created', kind: 'flat', amount: '10.00' },
];

let users = 0;

export function runConformance(kit: ProviderKit): void {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startService(kit.env);
  });
  afterAll(() => svc.stop());

  const send = (delivery: Delivery, options?: Parameters<ProviderKit['deliver']>[2]) => kit.deliver(svc.url, delivery, options);
  const ok = async (delivery: Delivery) => {
    const answer = await send(delivery);
    expect({ status: answer.status, body: answer.body }).toMatchObject({ status: 200, body: { received: true } });
    return answer;
  };
  const payments = (userId: string) =>
    svc.sql<{ id: string; amount: bigint; status: string; reversal_reason: string | null }[]>`
      select id, amount, status, reversal_reason from commissions where user_id = ${userId} and event_type = 'invoice_paid' order by id`;
  /** What a rejected delivery must leave untouched. */
  const footprint = async () =>
    (
      await svc.sql`
        select (select count(*) from events)::int as events, (select count(*) from billing_customers)::int as customers,
               (select count(*) from billing_refunds)::int as refunds, (select count(*) from commissions)::int as commissions,
               (select count(*) from webhook_events)::int as envelopes`
    )[0];

  /** A referred user whose customer is linked and who paid `amount` (commission: 20 %). */
  async function paidUser(amount = 10000) {
    const userId = `${kit.name}_u${++users}_${Date.now().toString(36)}`;
    const chain = await referredUser(svc, { rules: RULES, userId });
    const customerId = kit.newCustomerId();
    await ok(kit.link(customerId, userId));
    const paymentId = kit.newPaymentId();
    const payment = kit.payment({ id: paymentId, customerId, amount });
    await ok(payment);
    return { ...chain, customerId, paymentId, payment, paid: amount };
  }
  const reversedEvents = async (commissionId: string) =>
    (await outbox(svc.sql, 'commission.reversed')).filter((e) => e.data.commissionId === commissionId).map((e) => e.data);

  describe(`${kit.name}: signatures`, () => {
    test('a signature made with another secret is 400 and records nothing', async () => {
      const before = await footprint();
      const customerId = kit.newCustomerId();
      const answer = await send(kit.link(customerId, 'u_wrong_secret'), { secrets: [kit.wrongSecret] });
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ code: 'invalid_body' });
      expect(answer.body.message).toContain('signature');
      expect(await footprint()).toEqual(before);
    });

    test('a delivery without a signature is 400 and records nothing', async () => {
      const before = await footprint();
      const delivery = kit.payment({ id: kit.newPaymentId(), customerId: kit.newCustomerId(), amount: 5000 });
      const res = await fetch(`${svc.url}/webhooks/${kit.name}`, {
        method: 'POST',
        headers: kit.unsignedHeaders(delivery),
        body: 'raw' in delivery ? delivery.raw : JSON.stringify(delivery.body),
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as any).code).toBe('invalid_body');
      expect(await footprint()).toEqual(before);
    });

    test('a body changed after signing is 400 and records nothing', async () => {
      const before = await footprint();
      const delivery = kit.payment({ id: kit.newPaymentId(), customerId: kit.newCustomerId(), amount: 5000 });
      const answer = await send(delivery, { tamper: (raw) => raw.replace('5000', '9000') });
      expect(answer.status).toBe(400);
      expect(await footprint()).toEqual(before);
    });

    test('during a secret rotation, one matching signature among several is enough', async () => {
      if (!kit.signsWithSeveralSecrets) return expect(kit.signsWithSeveralSecrets).toBe(false);
      const { userId, customerId } = await paidUser();
      const second = kit.payment({ id: kit.newPaymentId(), customerId, amount: 2000 });
      const configured = Object.values(kit.env)[0]!;
      expect((await send(second, { secrets: [kit.wrongSecret, 'another-old-secret'] })).status).toBe(400);
      expect((await send(second, { secrets: [kit.wrongSecret, configured] })).status).toBe(200);
      expect((await payments(userId)).map((c) => c.amount)).toEqual([2000n, 400n]);
    });

    test('a signature dated more than 300 s away, either way, is 400; within 300 s is accepted', async () => {
      if (!kit.timestamped) return expect(kit.timestamped).toBe(false);
      const { userId, customerId } = await paidUser();
      const before = await footprint();
      // each stamp is taken just before its delivery and sits 10 s from the edge, so a slow request
      // cannot move it across the window by the time the service reads its clock
      const stamp = (offset: number) => Math.floor(Date.now() / 1000) + offset;
      for (const offset of [310, -310]) {
        const answer = await send(kit.payment({ id: kit.newPaymentId(), customerId, amount: 3000 }), { at: stamp(offset) });
        expect(answer.status).toBe(400);
        expect(answer.body.message).toContain('signature');
      }
      expect(await footprint()).toEqual(before);
      for (const offset of [290, -290]) {
        expect((await send(kit.payment({ id: kit.newPaymentId(), customerId, amount: 3000 }), { at: stamp(offset) })).status).toBe(200);
      }
      expect((await payments(userId)).map((c) => c.amount)).toEqual([2000n, 600n, 600n]);
    });
  });

  describe(`${kit.name}: delivery`, () => {
    test('a payment delivered three times records one conversion, one commission, one webhook', async () => {
      const { userId, payment, partnerId } = await paidUser(4900);
      await ok(payment);
      await ok(payment);
      const events = await svc.sql`select id, type, amount, currency, source, attribution_status from events where user_id = ${userId} and type = 'invoice_paid'`;
      expect(events).toMatchObject([{ type: 'invoice_paid', amount: 4900n, currency: 'USD', source: kit.name, attribution_status: 'attributed' }]);
      const commissions = await payments(userId);
      expect(commissions).toMatchObject([{ amount: 980n, status: 'accrued' }]);
      const accrued = (await outbox(svc.sql, 'commission.accrued')).filter((e) => e.data.commissionId === commissions[0]!.id);
      expect(accrued.map((e) => e.data)).toMatchObject([{ partnerId, amount: '9.80', currency: 'USD', eventType: 'invoice_paid' }]);
    });

    test('the same payment under another provider event id records one conversion', async () => {
      const { userId, payment } = await paidUser(3000);
      const again = kit.redelivered(payment);
      if (again === null) return expect(again).toBeNull(); // the provider has no event ids: the key is the object
      const answer = await ok(again);
      expect(answer.body.actions.join(' ')).toContain('already recorded');
      expect(await svc.sql`select 1 from events where user_id = ${userId} and type = 'invoice_paid'`).toHaveLength(1);
      expect((await payments(userId)).map((c) => c.amount)).toEqual([600n]);
    });

    test('a payment of a customer known only later is kept, then credited once when the customer is linked', async () => {
      const userId = `${kit.name}_late_${++users}`;
      await referredUser(svc, { rules: RULES, userId });
      const customerId = kit.newCustomerId();
      await ok(kit.payment({ id: kit.newPaymentId(), customerId, amount: 3000 }));
      const parked = await svc.sql`select attribution_status from events where user_id = ${`${kit.name}:${customerId}`} and type = 'invoice_paid'`;
      expect([...parked]).toEqual([{ attribution_status: 'no_identity' }]);
      const link = kit.link(customerId, userId);
      await ok(link);
      await ok(link);
      expect((await payments(userId)).map((c) => [c.amount, c.status])).toEqual([[600n, 'accrued']]);
    });

    test('a zero payment is acknowledged and records nothing', async () => {
      const { userId, customerId } = await paidUser();
      const before = await footprint();
      const answer = await ok(kit.payment({ id: kit.newPaymentId(), customerId, amount: 0 }));
      expect(answer.body.actions).toEqual([]);
      expect(await footprint()).toEqual(before);
      expect(await payments(userId)).toHaveLength(1);
    });

    test('an unknown event type is acknowledged and ignored', async () => {
      const before = await footprint();
      const answer = await ok(kit.unknown());
      expect(answer.body.actions).toEqual([]);
      expect(await footprint()).toEqual(before);
    });

    test('a well-signed body that is not what the provider documents is refused or ignored, never a 500, nothing written', async () => {
      const cases = kit.malformed();
      expect(cases.length).toBeGreaterThan(2);
      for (const delivery of cases) {
        const before = await footprint();
        const answer = await send(delivery);
        const shown = `${'raw' in delivery ? delivery.raw : JSON.stringify(delivery.body)} -> ${answer.status} ${JSON.stringify(answer.body)}`;
        expect([200, 400], shown).toContain(answer.status);
        if (answer.status === 200) expect(answer.body.actions, shown).toEqual([]);
        else expect(answer.body.code, shown).toBe('invalid_body');
        expect(await footprint(), shown).toEqual(before);
      }
    });
  });

  describe(`${kit.name}: money back`, () => {
    const refund = (p: Awaited<ReturnType<typeof paidUser>>, amount: number, total: number, n: number) =>
      kit.refund({ paymentId: p.paymentId, customerId: p.customerId, userId: p.userId, paid: p.paid, amount, total, n });

    test('a full refund reverses the commission with reason refund, once', async () => {
      const p = await paidUser();
      const back = refund(p, 10000, 10000, 1);
      for (let i = 0; i < 3; i++) await ok(back);
      const [commission] = await payments(p.userId);
      expect(commission).toMatchObject({ amount: 2000n, status: 'reversed', reversal_reason: 'refund' });
      expect(await reversedEvents(commission!.id)).toEqual([
        { commissionId: commission!.id, partnerId: p.partnerId, amount: '20.00', currency: 'USD', reason: 'refund' },
      ]);
    });

    test('a chargeback reverses the commission with reason chargeback', async () => {
      const p = await paidUser();
      const dispute = kit.chargeback({ paymentId: p.paymentId, customerId: p.customerId, userId: p.userId, paid: p.paid });
      if (dispute === null) return expect(dispute).toBeNull(); // the provider reports no disputes
      await ok(dispute);
      expect(await payments(p.userId)).toMatchObject([{ status: 'reversed', reversal_reason: 'chargeback' }]);
    });

    test('a refund that arrives before its payment is applied when the payment comes', async () => {
      const userId = `${kit.name}_ooo_${++users}`;
      await referredUser(svc, { rules: RULES, userId });
      const customerId = kit.newCustomerId();
      await ok(kit.link(customerId, userId));
      const paymentId = kit.newPaymentId();
      const early = await ok(kit.refund({ paymentId, customerId, userId, paid: 2500, amount: 2500, total: 2500, n: 1 }));
      expect(early.body.actions.join(' ')).toContain('waiting for its payment');
      await ok(kit.payment({ id: paymentId, customerId, amount: 2500 }));
      expect(await payments(userId)).toMatchObject([{ amount: 500n, status: 'reversed', reversal_reason: 'refund' }]);
    });

    test('a refund and its payment arriving at the same moment: the refund is never lost', async () => {
      const userId = `${kit.name}_race_${++users}`;
      await referredUser(svc, { rules: RULES, userId });
      const customerId = kit.newCustomerId();
      await ok(kit.link(customerId, userId));
      const ids = Array.from({ length: 8 }, () => kit.newPaymentId());
      await Promise.all(
        ids.flatMap((paymentId) => [
          ok(kit.payment({ id: paymentId, customerId, amount: 1000 })),
          ok(kit.refund({ paymentId, customerId, userId, paid: 1000, amount: 1000, total: 1000, n: 1 })),
        ]),
      );
      const commissions = await payments(userId);
      expect(commissions.map((c) => [c.amount, c.status, c.reversal_reason])).toEqual(ids.map(() => [200n, 'reversed', 'refund']));
    });

    test('partial refunds lower the commission in proportion, add up, and reverse it once all is back', async () => {
      const p = await paidUser();
      const [commission] = await payments(p.userId);
      const first = refund(p, 2500, 2500, 1);
      await ok(first);
      await ok(first); // a redelivery changes nothing
      expect(await payments(p.userId)).toMatchObject([{ amount: 1500n, status: 'accrued', reversal_reason: null }]);
      await ok(refund(p, 2500, 5000, 2));
      expect(await payments(p.userId)).toMatchObject([{ amount: 1000n, status: 'accrued' }]);
      expect(await reversedEvents(commission!.id)).toEqual([
        { commissionId: commission!.id, partnerId: p.partnerId, amount: '15.00', currency: 'USD', reason: 'partial_refund' },
        { commissionId: commission!.id, partnerId: p.partnerId, amount: '10.00', currency: 'USD', reason: 'partial_refund' },
      ]);
      const history = await svc.sql`
        select amount_before, amount_after, reason, actor, detail from commission_adjustments where commission_id = ${commission!.id} order by id`;
      expect([...history]).toEqual([
        { amount_before: 2000n, amount_after: 1500n, reason: 'partial_refund', actor: `provider:${kit.name}`, detail: '25.00 of 100.00 USD refunded' },
        { amount_before: 1500n, amount_after: 1000n, reason: 'partial_refund', actor: `provider:${kit.name}`, detail: '50.00 of 100.00 USD refunded' },
      ]);
      await ok(refund(p, 5000, 10000, 3));
      expect(await payments(p.userId)).toMatchObject([{ amount: 1000n, status: 'reversed', reversal_reason: 'refund' }]);
      expect((await reversedEvents(commission!.id)).map((e) => [e.amount, e.reason])).toEqual([
        ['15.00', 'partial_refund'],
        ['10.00', 'partial_refund'],
        ['10.00', 'refund'],
      ]);
    });

    test('a partial refund of a paid commission opens a clawback for the difference (half-even)', async () => {
      const p = await paidUser();
      const [commission] = await payments(p.userId);
      expect((await svc.api('POST', `/v1/commissions/${commission!.id}/approve`)).status).toBe(200);
      expect((await svc.api('POST', '/v1/payouts/run')).status).toBe(200);
      expect(await payments(p.userId)).toMatchObject([{ status: 'paid', amount: 2000n }]);
      // 33.33 of 100.00 back: 2000 * 0.3333 = 666.6 -> 667 taken back
      await ok(refund(p, 3333, 3333, 1));
      expect(await payments(p.userId)).toMatchObject([{ status: 'paid', amount: 1333n }]);
      const claw = await svc.sql`select amount, reason, status from clawbacks where commission_id = ${commission!.id} order by id`;
      expect([...claw]).toEqual([{ amount: 667n, reason: 'partial_refund', status: 'open' }]);
      // the rest comes back: the commission is reversed and the rest owed back too
      await ok(refund(p, 6667, 10000, 2));
      expect(await payments(p.userId)).toMatchObject([{ status: 'reversed', amount: 1333n }]);
      const owed = await svc.sql`select amount, reason from clawbacks where commission_id = ${commission!.id} order by id`;
      expect([...owed]).toEqual([
        { amount: 667n, reason: 'partial_refund' },
        { amount: 1333n, reason: 'refund' },
      ]);
    });
  });
}
