// Stripe's side of the conformance suite: its events in the shapes Stripe sends them (the fixtures
// of test/billing/fixtures.ts), signed the way Stripe signs (`t=…,v1=…`, one v1 per secret).
import { createHmac, randomBytes } from 'node:crypto';
import type { Delivery, ProviderKit } from '../conformance/kit';
import { charge, customer, dispute, invoice, stripeEvent, WEBHOOK_SECRET } from '../fixtures';

const rand = () => randomBytes(6).toString('hex');
const raw = (delivery: Delivery) => ('raw' in delivery ? delivery.raw : JSON.stringify(delivery.body));
const sign = (payload: string, secret: string, at: number) => createHmac('sha256', secret).update(`${at}.${payload}`).digest('hex');

export const stripeKit: ProviderKit = {
  name: 'stripe',
  env: { STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET },
  wrongSecret: 'whsec_not_the_configured_one',
  timestamped: true,
  signsWithSeveralSecrets: true,

  async deliver(baseUrl, delivery, options = {}) {
    const payload = raw(delivery);
    const at = options.at ?? Math.floor(Date.now() / 1000);
    const header = [`t=${at}`, ...(options.secrets ?? [WEBHOOK_SECRET]).map((s) => `v1=${sign(payload, s, at)}`)].join(',');
    const res = await fetch(`${baseUrl}/webhooks/stripe`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': header },
      body: options.tamper ? options.tamper(payload) : payload,
    });
    return { status: res.status, body: await res.json() };
  },
  unsignedHeaders: () => ({ 'content-type': 'application/json' }),

  newCustomerId: () => `cus_${rand()}`,
  newPaymentId: () => `in_${rand()}`,

  link: (customerId, userId) => ({ body: stripeEvent('customer.updated', customer(customerId, userId)) }),
  payment: ({ id, customerId, amount, currency }) => ({
    body: stripeEvent('invoice.paid', invoice(id, customerId, amount, { paymentIntent: `pi_${id}`, currency: currency?.toLowerCase() })),
  }),
  redelivered: (delivery) => ({ body: { ...(delivery as { body: object }).body, id: `evt_again_${rand()}` } }),
  // Stripe reports the charge with the total refunded so far
  refund: ({ paymentId, paid, total }) => ({ body: stripeEvent('charge.refunded', charge(`ch_${paymentId}`, `pi_${paymentId}`, paid, total)) }),
  chargeback: ({ paymentId, paid }) => ({ body: stripeEvent('charge.dispute.created', dispute(`dp_${paymentId}`, `ch_${paymentId}`, `pi_${paymentId}`, paid)) }),
  unknown: () => ({ body: stripeEvent('payment_method.attached', { id: `pm_${rand()}`, object: 'payment_method', type: 'card' }) }),
  malformed: () => [
    { raw: 'not json at all' },
    { raw: '[]' },
    { body: { id: `evt_${rand()}`, object: 'event', type: 'invoice.paid', created: Math.floor(Date.now() / 1000) } },
    { body: stripeEvent('invoice.paid', { ...invoice(`in_${rand()}`, `cus_${rand()}`, 1000), amount_paid: '10.00' }) },
    { body: stripeEvent('invoice.paid', { ...invoice(`in_${rand()}`, `cus_${rand()}`, 1000), currency: null }) },
    { body: stripeEvent('customer.created', { id: `cus_${rand()}`, object: 'customer', metadata: { service_user_id: 42 } }) },
    { body: stripeEvent('charge.refunded', { id: `ch_${rand()}`, object: 'charge' }) },
    { body: stripeEvent('customer.updated', customer(`cus_${rand()}`, 'u_\u0000_nul')) },
    { body: stripeEvent('customer.updated', customer(`cus_${rand()}`, 'u'.repeat(256))) },
    { body: { ...stripeEvent('invoice.paid', invoice(`in_${rand()}`, `cus_${rand()}`, 1000)), id: '' } },
  ],
};
