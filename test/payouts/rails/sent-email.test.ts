// "Payout sent": the partner gets one email per payout when it becomes paid, whatever paid it (a
// Stripe transfer, PayPal's webhook, mark-paid, bulk settle) and however often the answer repeats
// (a redelivered webhook, a retried settle, the rails job handing payouts over again). Read from the
// in-process SMTP server: amount, currency, the rail and its reference.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { deliver, stripeEvent, WEBHOOK_SECRET } from '../../billing/fixtures';
import { insertCampaign, insertCommission, insertPartner } from '../../support/lifecycle-fixtures';
import type { CaughtMail } from '../../support/mail';
import { startPayPalStandIn, type PayPalStandIn } from '../../support/paypal-standin';
import { startService, type TestService } from '../../support/service';
import { startStripeStandIn, type StripeStandIn } from '../../support/stripe-standin';
import { runPayoutRailsJob } from '../../../src/scheduler/payout-rails';

let svc: TestService;
let paypal: PayPalStandIn;
let stripe: StripeStandIn;
let usd: string;
let eur: string;

beforeAll(async () => {
  paypal = await startPayPalStandIn();
  stripe = await startStripeStandIn();
  svc = await startService({
    PAYPAL_CLIENT_ID: paypal.clientId,
    PAYPAL_CLIENT_SECRET: paypal.clientSecret,
    PAYPAL_API_URL: paypal.url,
    PAYPAL_WEBHOOK_ID: paypal.webhookId,
    STRIPE_SECRET_KEY: 'sk_test_sent_email',
    STRIPE_API_URL: stripe.url,
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    PAYOUT_METHOD_HOLD_HOURS: '0',
  });
  usd = await insertCampaign(svc.sql, { currency: 'USD' });
  eur = await insertCampaign(svc.sql, { currency: 'EUR' });
}, 60_000);
afterAll(async () => {
  await svc.stop();
  paypal.stop();
  stripe.stop();
});

/** A partner paid through `body`'s method with one approved commission of `cents` in `currency`. */
async function partnerWith(body: Record<string, string>, cents: number, currency = 'USD') {
  const partnerId = await insertPartner(svc.sql);
  const key = await svc.partnerKey(partnerId);
  const put = await svc.api('PUT', `/v1/partners/${partnerId}/payout-method`, { key, body });
  expect(put.status).toBe(200);
  await insertCommission(svc.sql, { partnerId, campaignId: currency === 'EUR' ? eur : usd, amount: cents, currency, status: 'approved' });
  return { partnerId, email: `${partnerId}@example.com` };
}

/** Runs payouts and answers this partner's payout. */
async function runFor(partnerId: string) {
  const res = await svc.api('POST', '/v1/payouts/run');
  expect(res.status).toBe(200);
  const payout = (res.body.payouts as any[]).find((p) => p.partnerId === partnerId);
  expect(payout).toBeDefined();
  return payout;
}

/** Every "Payout sent" email the partner received, after the outbox had every chance to send more. */
async function sentMails(to: string): Promise<CaughtMail[]> {
  await svc.deliverEmails();
  await svc.mail.waitFor(to, (m) => m.subject.startsWith('Payout sent'));
  await svc.deliverEmails();
  return svc.mail.messages.filter((m) => m.to === to && m.subject.startsWith('Payout sent'));
}

function expectFacts(mail: CaughtMail, facts: { amount: string; rail: string; reference: string }) {
  expect(mail.subject).toBe(`Payout sent: ${facts.amount}`);
  expect(mail.text).toContain(`Amount: ${facts.amount}`);
  expect(mail.text).toContain(`Sent by: ${facts.rail}`);
  expect(mail.text).toContain(`Reference: ${facts.reference}`);
  expect(String(mail.raw.html)).toContain(facts.reference);
}

describe('payout sent email', () => {
  test('Stripe: paid by the transfer; the rails job and a second run send nothing more', async () => {
    const p = await partnerWith({ type: 'stripe' }, 2500);
    const accountId = [...stripe.accounts].find(([, a]) => a.metadata.partnerId === p.partnerId)![0];
    stripe.accounts.get(accountId)!.payoutsEnabled = true;
    expect((await deliver(svc.url, stripeEvent('account.updated', { id: accountId, object: 'account', payouts_enabled: true }))).status).toBe(200);
    const payout = await runFor(p.partnerId);
    expect(payout).toMatchObject({ status: 'paid', provider: 'stripe' });
    await runPayoutRailsJob(svc.ctx);
    expect((await svc.api('POST', '/v1/payouts/run')).status).toBe(200);
    const mails = await sentMails(p.email);
    expect(mails).toHaveLength(1);
    expectFacts(mails[0]!, { amount: '25.00 USD', rail: 'Stripe', reference: payout.providerReference });
  });

  test('PayPal: paid by the webhook; a redelivered webhook sends nothing more', async () => {
    const p = await partnerWith({ type: 'paypal', email: `pp-${crypto.randomUUID().slice(0, 8)}@example.com` }, 1234, 'EUR');
    const payout = await runFor(p.partnerId);
    expect(payout).toMatchObject({ status: 'processing', provider: 'paypal' });
    await svc.deliverEmails();
    expect(svc.mail.messages.filter((m) => m.to === p.email && m.subject.startsWith('Payout sent'))).toHaveLength(0);
    for (let i = 0; i < 3; i++) {
      const { body, headers } = paypal.signedWebhook(payout.id, 'SUCCEEDED');
      expect((await fetch(`${svc.url}/webhooks/paypal`, { method: 'POST', headers, body })).status).toBe(200);
    }
    const mails = await sentMails(p.email);
    expect(mails).toHaveLength(1);
    expectFacts(mails[0]!, { amount: '12.34 EUR', rail: 'PayPal', reference: payout.providerReference });
  });

  test('by hand: mark-paid once; a repeated mark-paid is a 409 and sends nothing', async () => {
    const p = await partnerWith({ type: 'manual' }, 990);
    const payout = await runFor(p.partnerId);
    expect((await svc.api('POST', `/v1/payouts/${payout.id}/mark-paid`, { body: { reference: 'bank-0042' } })).status).toBe(200);
    expect((await svc.api('POST', `/v1/payouts/${payout.id}/mark-paid`, { body: { reference: 'bank-0042' } })).status).toBe(409);
    const mails = await sentMails(p.email);
    expect(mails).toHaveLength(1);
    expectFacts(mails[0]!, { amount: '9.90 USD', rail: 'Direct payment from the program', reference: 'bank-0042' });
  });

  test('bulk settle: one email per payout; the settle retried is a 409 and sends nothing', async () => {
    const a = await partnerWith({ type: 'wise', email: `wise-${crypto.randomUUID().slice(0, 8)}@example.com` }, 4000);
    const b = await partnerWith({ type: 'manual' }, 1500);
    const res = await svc.api('POST', '/v1/payouts/run');
    const made = (res.body.payouts as any[]).filter((x) => x.partnerId === a.partnerId || x.partnerId === b.partnerId);
    expect(made).toHaveLength(2);
    const body = { payouts: made.map((x) => ({ id: x.id, status: 'paid', reference: `wise-${x.id.slice(-6)}` })) };
    expect((await svc.api('POST', '/v1/payouts/settle', { body })).status).toBe(200);
    expect((await svc.api('POST', '/v1/payouts/settle', { body })).status).toBe(409);
    const pa = made.find((x) => x.partnerId === a.partnerId);
    const pb = made.find((x) => x.partnerId === b.partnerId);
    const mailsA = await sentMails(a.email);
    const mailsB = await sentMails(b.email);
    expect(mailsA).toHaveLength(1);
    expect(mailsB).toHaveLength(1);
    expectFacts(mailsA[0]!, { amount: '40.00 USD', rail: 'Wise', reference: `wise-${pa.id.slice(-6)}` });
    expectFacts(mailsB[0]!, { amount: '15.00 USD', rail: 'Direct payment from the program', reference: `wise-${pb.id.slice(-6)}` });
    const rows = await svc.sql`select count(*)::int as n from email_outbox where template = 'payout_sent' and data ->> 'payoutId' = any(${made.map((x) => x.id)}::text[])`;
    expect(rows[0]!.n).toBe(2);
  });

  test('a failed payout sends no "payout sent" email', async () => {
    const p = await partnerWith({ type: 'manual' }, 700);
    const payout = await runFor(p.partnerId);
    expect((await svc.api('POST', `/v1/payouts/${payout.id}/mark-failed`, { body: { reason: 'bounced' } })).status).toBe(200);
    await svc.deliverEmails();
    const rows = await svc.sql`select count(*)::int as n from email_outbox where template = 'payout_sent' and data ->> 'payoutId' = ${payout.id}`;
    expect(rows[0]!.n).toBe(0);
    expect(svc.mail.messages.filter((m) => m.to === p.email && m.subject.startsWith('Payout sent'))).toHaveLength(0);
  });
});
