// The payout-method API: partners choose their own (never another's), admins and partners:write set
// anyone's, others see the email masked; every change emails the partner (and the old address) and
// holds their payouts for PAYOUT_METHOD_HOLD_HOURS, which the run preview shows; bad input is a clear
// 400/409 that changes nothing.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { previewRun } from '../../../src/modules/reports/money';
import { commissionRow, insertCampaign, insertCommission, insertPartner } from '../../support/lifecycle-fixtures';
import { startService, type TestService } from '../../support/service';

let svc: TestService;
let usd: string;

beforeAll(async () => {
  svc = await startService(); // PAYOUT_METHOD_HOLD_HOURS: the default, 24
  usd = await insertCampaign(svc.sql, { currency: 'USD' });
}, 60_000);
afterAll(() => svc.stop());

const method = (partnerId: string, key?: string) => svc.api('GET', `/v1/partners/${partnerId}/payout-method`, { key });
const put = (partnerId: string, body: unknown, key?: string) => svc.api('PUT', `/v1/partners/${partnerId}/payout-method`, { key, body });
const outboxFor = async (partnerId: string) =>
  (await svc.sql`select to_address, data from email_outbox where template = 'payout_method_changed' and partner_id = ${partnerId} order by id`).map((r) => ({ to: r.to_address, data: r.data }));

describe('who may read and change it', () => {
  test('a partner sets its own and sees its email; others see it masked', async () => {
    const a = await insertPartner(svc.sql, { email: `ann-${Date.now()}@example.com` });
    const key = await svc.partnerKey(a);
    expect((await method(a, key)).body).toEqual({ type: null, ready: false, changedAt: null, heldUntil: null });
    const res = await put(a, { type: 'paypal', email: 'Ann.Pays@Example.com' }, key);
    expect(res.status).toBe(200);
    const held = new Date(res.body.heldUntil).getTime() - new Date(res.body.changedAt).getTime();
    expect(held).toBe(24 * 3600 * 1000);
    expect(res.body).toMatchObject({ type: 'paypal', email: 'ann.pays@example.com', ready: true });
    expect((await method(a, key)).body.email).toBe('ann.pays@example.com');
    expect((await method(a)).body.email).toBe('a***@example.com');
    const reader = await svc.scopedKey(['partners:read']);
    expect((await method(a, reader)).body).toMatchObject({ type: 'paypal', email: 'a***@example.com' });
    expect((await put(a, { type: 'manual' }, reader)).status).toBe(403);
    const writer = await svc.scopedKey(['partners:write']);
    expect((await put(a, { type: 'manual' }, writer)).body).toMatchObject({ type: 'manual' });
  });

  test("partner A never sees or changes B's method", async () => {
    const a = await insertPartner(svc.sql);
    const b = await insertPartner(svc.sql);
    const keyA = await svc.partnerKey(a);
    expect((await put(b, { type: 'wise', email: 'b@example.com' })).status).toBe(200);
    const before = await svc.sql`select * from payout_methods where partner_id = ${b}`;
    const read = await method(b, keyA);
    expect(read.status).toBe(403);
    expect(JSON.stringify(read.body)).not.toContain('b@example.com');
    const write = await put(b, { type: 'paypal', email: 'attacker@example.com' }, keyA);
    expect(write.status).toBe(403);
    expect(await svc.sql`select * from payout_methods where partner_id = ${b}`).toEqual(before);
    expect((await outboxFor(b)).some((m) => JSON.stringify(m.data).includes('attacker'))).toBe(false);
  });

  test('an unknown partner is a 404', async () => {
    expect((await method('ptn_00000000000000000000000000')).status).toBe(404);
    expect((await put('ptn_00000000000000000000000000', { type: 'manual' })).status).toBe(404);
  });
});

test('a change emails the partner and the address the money used to go to', async () => {
  const email = `cara-${Date.now()}@example.com`;
  const c = await insertPartner(svc.sql, { email, name: 'Cara' });
  await put(c, { type: 'paypal', email: 'cara.old@example.com' });
  await put(c, { type: 'wise', email: 'cara.new@example.com' });
  await put(c, { type: 'wise', email: 'cara.new@example.com' }); // the same again: no change, no email
  await svc.deliverEmails();
  const first = await svc.mail.waitFor(email, (m) => m.text.includes('Before') && m.text.includes('cara.old@example.com') && m.text.includes('cara.new'));
  expect(first.subject).toContain('payout method changed');
  expect(first.text).toContain('Wise (cara.new@example.com)');
  expect(first.text).toContain('PayPal (cara.old@example.com)');
  const old = await svc.mail.waitFor('cara.old@example.com');
  expect(old.text).toContain('Wise (cara.new@example.com)');
  expect((await outboxFor(c)).map((m) => m.to).sort()).toEqual([email, email, 'cara.old@example.com'].sort());
});

test('a change holds the payouts: the run leaves them approved, the preview says why, then they go by the new rail', async () => {
  const d = await insertPartner(svc.sql, { name: 'Dora' });
  const commissionId = await insertCommission(svc.sql, { partnerId: d, campaignId: usd, amount: 4200, status: 'approved' });
  const res = await put(d, { type: 'wise', email: 'dora@example.com' }, await svc.partnerKey(d));
  const preview = await previewRun(svc.sql, '0');
  expect(preview.lines.find((l) => l.partnerId === d)).toBeUndefined();
  expect(preview.held.find((h) => h.partnerId === d)).toMatchObject({ partnerName: 'Dora', amount: 4200n, currency: 'USD', reason: `payout method changed; held until ${res.body.heldUntil.slice(0, 16).replace('T', ' ')} UTC` });
  const run = await svc.api('POST', '/v1/payouts/run');
  expect(run.body.payouts.find((p: { partnerId: string }) => p.partnerId === d)).toBeUndefined();
  expect(await commissionRow(svc.sql, commissionId)).toMatchObject({ status: 'approved', payout_id: null });

  await svc.sql`update payout_methods set held_until = now() - interval '1 second' where partner_id = ${d}`;
  expect((await method(d)).body.heldUntil).toBeNull();
  const after = await previewRun(svc.sql, '0');
  expect(after.lines.find((l) => l.partnerId === d)).toMatchObject({ rail: 'wise', amount: 4200n });
  expect(after.byRail.find((r) => r.rail === 'wise' && r.currency === 'USD')!.amount).toBeGreaterThanOrEqual(4200n);
  const paid = (await svc.api('POST', '/v1/payouts/run')).body.payouts.find((p: { partnerId: string }) => p.partnerId === d);
  expect(paid).toMatchObject({ provider: 'wise', status: 'pending', amount: '42.00' });
});

describe('bad input changes nothing', () => {
  let e: string;
  let key: string;
  beforeAll(async () => {
    e = await insertPartner(svc.sql);
    key = await svc.partnerKey(e);
    await put(e, { type: 'paypal', email: 'erin@example.com' }, key);
  });

  const cases: [string, unknown, number, string][] = [
    ['an unknown type', { type: 'bitcoin' }, 400, 'type'],
    ['an invalid email', { type: 'paypal', email: 'not-an-email' }, 400, 'email'],
    ['paypal without an email', { type: 'paypal' }, 400, 'email'],
    ['wise without an email', { type: 'wise' }, 400, 'email'],
    ['an email for manual', { type: 'manual', email: 'x@example.com' }, 400, 'email'],
    ['stripe while Stripe Connect is off', { type: 'stripe' }, 409, 'STRIPE_SECRET_KEY'],
  ];
  for (const [name, body, status, names] of cases) {
    test(`${name}: ${status} naming ${names}`, async () => {
      const before = await svc.sql`select * from payout_methods where partner_id = ${e}`;
      const emails = (await outboxFor(e)).length;
      const res = await put(e, body, key);
      expect(res.status).toBe(status);
      expect(res.body.message).toContain(names);
      expect(await svc.sql`select * from payout_methods where partner_id = ${e}`).toEqual(before);
      expect((await outboxFor(e)).length).toBe(emails);
    });
  }
});
