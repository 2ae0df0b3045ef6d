// Promotion codes through the Stripe plugin: invoice.paid events posted over HTTP, signed as Stripe
// signs them, credit the partner whose code the invoice's discount names.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { campaign, click, identify, partner } from '../support/chain';
import { outbox, startService, type TestService } from '../support/service';
import { customer, deliver, invoice, stripeEvent, WEBHOOK_SECRET } from './fixtures';

let svc: TestService;
let campaignId: string;
let host: string; // the podcaster whose code customers type
let blogger: string; // credited through clicks
let codeId: string;
beforeAll(async () => {
  svc = await startService({ STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET });
  campaignId = await campaign(svc, { rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 20 }] });
  host = await partner(svc, 'host@example.com', [campaignId]);
  blogger = await partner(svc, 'writer@example.com', [campaignId]);
  const res = await svc.api('POST', '/v1/codes', { body: { code: 'SHOW20', partnerId: host, campaignId } });
  expect(res.status).toBe(201);
  codeId = res.body.id;
}, 60_000);
afterAll(() => svc.stop());

/** A discount as Stripe describes one: the coupon applied through a promotion code. */
const discount = (promotionCode: string | { id: string; object: 'promotion_code'; code: string; active: boolean }) => ({
  id: `di_${Math.random().toString(36).slice(2, 10)}`,
  object: 'discount',
  coupon: { id: 'co_show', object: 'coupon', percent_off: 20, duration: 'forever' },
  promotion_code: promotionCode,
  start: Math.floor(Date.now() / 1000),
});

/** A paid invoice of `customerId` with extra fields (its discounts). */
const paidInvoice = (id: string, customerId: string, extra: Record<string, unknown>) => ({ ...invoice(id, customerId, 4000), ...extra });

async function linkedCustomer(customerId: string, userId: string) {
  expect((await deliver(svc.url, stripeEvent('customer.updated', customer(customerId, userId)))).status).toBe(200);
}

const commissionsOf = async (userId: string) => [
  ...(await svc.sql`select c.partner_id, c.amount, a.click_id, a.code_id from commissions c join attributions a on a.id = c.attribution_id where c.user_id = ${userId} order by c.id`),
];

describe('invoice.paid with a promotion code', () => {
  test('an expanded promotion code in discounts credits its partner: commission and webhooks', async () => {
    await linkedCustomer('cus_expanded', 'u_expanded');
    const body = paidInvoice('in_expanded', 'cus_expanded', {
      discounts: [discount({ id: 'promo_ext1', object: 'promotion_code', code: 'show20', active: true })],
    });
    const res = await deliver(svc.url, stripeEvent('invoice.paid', body));
    expect(res.status).toBe(200);
    expect(res.body.actions.join(' ')).toContain('attributed');
    expect(await commissionsOf('u_expanded')).toEqual([{ partner_id: host, amount: 800n, click_id: null, code_id: codeId }]);
    const [event] = await svc.sql`select id, coupon_code, source from events where user_id = 'u_expanded'`;
    expect(event).toMatchObject({ coupon_code: 'show20', source: 'stripe' });
    const created = (await outbox(svc.sql, 'attribution.created')).filter((e) => e.data.eventId === event!.id);
    expect(created.map((e) => e.data)).toEqual([expect.objectContaining({ partnerId: host, clickId: null, couponCode: 'SHOW20', commissionAmount: '8.00' })]);
  });

  test('the code wins over the customer\'s clicks, and later invoices without it stay with the code partner', async () => {
    const { clickId } = await click(svc, campaignId, blogger);
    await identify(svc, 'u_both', [clickId]);
    await linkedCustomer('cus_both', 'u_both');
    const first = paidInvoice('in_both_1', 'cus_both', { discounts: [discount({ id: 'promo_ext2', object: 'promotion_code', code: 'SHOW20', active: true })] });
    expect((await deliver(svc.url, stripeEvent('invoice.paid', first))).status).toBe(200);
    expect((await deliver(svc.url, stripeEvent('invoice.paid', paidInvoice('in_both_2', 'cus_both', { discounts: [] })))).status).toBe(200);
    expect((await commissionsOf('u_both')).map((c) => c.partner_id)).toEqual([host, host]);
  });

  test('a promotion code id (promo_…) credits the code synced under that id (older API versions: invoice.discount)', async () => {
    await svc.sql`update promotion_codes set stripe_promotion_code_id = 'promo_synced_show20' where id = ${codeId}`;
    try {
      await linkedCustomer('cus_legacy', 'u_legacy');
      const body = paidInvoice('in_legacy', 'cus_legacy', { discount: discount('promo_synced_show20'), discounts: ['di_legacy'] });
      expect((await deliver(svc.url, stripeEvent('invoice.paid', body))).status).toBe(200);
      expect(await commissionsOf('u_legacy')).toEqual([{ partner_id: host, amount: 800n, click_id: null, code_id: codeId }]);
    } finally {
      await svc.sql`update promotion_codes set stripe_promotion_code_id = null where id = ${codeId}`;
    }
  });

  test('the same invoice delivered twice, under two event ids, pays once', async () => {
    await linkedCustomer('cus_twice_code', 'u_twice_code');
    const body = paidInvoice('in_twice_code', 'cus_twice_code', { discounts: [discount({ id: 'promo_ext3', object: 'promotion_code', code: 'SHOW20', active: true })] });
    for (const id of ['evt_code_a', 'evt_code_b', 'evt_code_a']) expect((await deliver(svc.url, stripeEvent('invoice.paid', body, id))).status).toBe(200);
    expect(await commissionsOf('u_twice_code')).toHaveLength(1);
  });
});

describe('falling back to clicks', () => {
  test('discount ids only (di_…), an unknown promotion code id, an unknown code: the clicks decide', async () => {
    const cases: [string, Record<string, unknown>][] = [
      ['ids', { discounts: ['di_only_ids'] }],
      ['promo', { discounts: [discount('promo_nobody_synced')] }],
      ['code', { discounts: [discount({ id: 'promo_x', object: 'promotion_code', code: 'NOT-OURS', active: true })] }],
    ];
    for (const [label, extra] of cases) {
      const userId = `u_fallback_${label}`;
      const { clickId } = await click(svc, campaignId, blogger);
      await identify(svc, userId, [clickId]);
      await linkedCustomer(`cus_fallback_${label}`, userId);
      expect((await deliver(svc.url, stripeEvent('invoice.paid', paidInvoice(`in_fallback_${label}`, `cus_fallback_${label}`, extra)))).status).toBe(200);
      expect(await commissionsOf(userId)).toEqual([{ partner_id: blogger, amount: 800n, click_id: clickId, code_id: null }]);
    }
  });

  test('an invoice of a customer nobody linked yet keeps the code but credits no stand-in user', async () => {
    const body = paidInvoice('in_unlinked', 'cus_unlinked', { discounts: [discount({ id: 'promo_ext4', object: 'promotion_code', code: 'SHOW20', active: true })] });
    expect((await deliver(svc.url, stripeEvent('invoice.paid', body))).status).toBe(200);
    const [event] = await svc.sql`select user_id, attribution_status, coupon_code from events where metadata->>'invoiceId' = 'in_unlinked'`;
    expect(event).toEqual({ user_id: 'stripe:cus_unlinked', attribution_status: 'no_identity', coupon_code: 'SHOW20' });
    expect(await svc.sql`select 1 from referrals where user_id = 'stripe:cus_unlinked'`).toHaveLength(0);
    expect(await svc.sql`select 1 from commissions where user_id = 'stripe:cus_unlinked'`).toHaveLength(0);

    // once the customer is linked, the replayed invoice carries its code: the code's partner is credited
    await linkedCustomer('cus_unlinked', 'u_unlinked_later');
    expect(await commissionsOf('u_unlinked_later')).toEqual([{ partner_id: host, amount: 800n, click_id: null, code_id: codeId }]);
  });
});
