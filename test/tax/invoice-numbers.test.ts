// Self-billing invoice numbers: given when a payout becomes paid, INVOICE_PREFIX (default PD)-year-6 digits,
// gapless per year with two replicas paying at once, and a payment that rolls back gives its number back.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { insertCampaign, insertCommission, insertPartner } from '../support/lifecycle-fixtures';
import { startReplica, startService, type Replica, type TestService } from '../support/service';

let svc: TestService;
let replica: Replica;
let usd: string;
const year = new Date().getUTCFullYear();

beforeAll(async () => {
  svc = await startService();
  replica = await startReplica(svc);
  usd = await insertCampaign(svc.sql, { currency: 'USD' });
}, 60_000);
afterAll(async () => {
  await replica.stop();
  await svc.stop();
});

/** `n` pending payouts, one partner each. */
async function pendingPayouts(n: number): Promise<string[]> {
  const partners = await Promise.all(Array.from({ length: n }, () => insertPartner(svc.sql, {})));
  for (const partnerId of partners) await insertCommission(svc.sql, { partnerId, campaignId: usd, amount: 1000, status: 'approved' });
  const run = await svc.api('POST', '/v1/payouts/run');
  return run.body.payouts.filter((p: { partnerId: string }) => partners.includes(p.partnerId)).map((p: { id: string }) => p.id);
}

const numbers = async () => (await svc.sql<{ invoice_number: string }[]>`select invoice_number from payouts where invoice_number is not null order by invoice_number`).map((r) => r.invoice_number);
const expected = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `PD-${year}-${String(from + i).padStart(6, '0')}`);

test('a pending payout has no number; paid, it gets the first of the year', async () => {
  const [id] = await pendingPayouts(1);
  expect((await svc.api('GET', `/v1/payouts/${id}`)).body.invoiceNumber).toBeNull();
  const paid = await svc.api('POST', `/v1/payouts/${id}/mark-paid`, { body: { reference: 'wire-1' } });
  expect(paid.body.invoiceNumber).toBe(`PD-${year}-000001`);
  expect(await numbers()).toEqual(expected(1, 1));
});

test('two replicas paying 40 payouts at once: numbers 2 to 41, none twice, none missing', async () => {
  const ids = await pendingPayouts(40);
  expect(ids).toHaveLength(40);
  const answers = await Promise.all(
    ids.map((id, i) => (i % 2 === 0 ? svc.api : replica.api)('POST', `/v1/payouts/${id}/mark-paid`, { body: {} })),
  );
  expect(answers.map((a) => a.status)).toEqual(ids.map(() => 200));
  expect(await numbers()).toEqual(expected(1, 41));
});

test('a bulk settlement refused part-way numbers nothing, and the next payment takes the next number', async () => {
  const [a, b] = await pendingPayouts(2);
  const refused = await svc.api('POST', '/v1/payouts/settle', { body: { payouts: [{ id: a, status: 'paid' }, { id: 'pay_missing', status: 'paid' }] } });
  expect(refused.status).toBe(404);
  expect(await numbers()).toEqual(expected(1, 41));
  const settled = await svc.api('POST', '/v1/payouts/settle', { body: { payouts: [{ id: a, status: 'paid' }, { id: b, status: 'paid' }] } });
  expect(settled.body.payouts.map((p: { invoiceNumber: string }) => p.invoiceNumber)).toEqual(expected(42, 43));
  const [row] = await svc.sql`select last_number from invoice_counters where year = ${year}`;
  expect(row!.last_number).toBe(43);
});

test('a failed payout gets no number', async () => {
  const [id] = await pendingPayouts(1);
  const failed = await svc.api('POST', `/v1/payouts/${id}/mark-failed`, { body: { reason: 'bounced' } });
  expect(failed.body).toMatchObject({ status: 'failed', invoiceNumber: null });
});
