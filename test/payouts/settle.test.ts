// Settling payouts (mark-paid, mark-failed), listing, and the CSV export. Rails: test/payouts/rails/.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startService, type TestService } from '../support/service';
import { clawbacksOf, commissionRow, eventsFor, insertCampaign, insertCommission, insertPartner, transitionsOf } from '../support/lifecycle-fixtures';

let svc: TestService;
let usd: string;

beforeAll(async () => {
  svc = await startService();
  usd = await insertCampaign(svc.sql, { currency: 'USD' });
}, 60_000);
afterAll(() => svc.stop());

async function payoutFor(partnerId: string) {
  const res = await svc.api('POST', '/v1/payouts/run');
  expect(res.status).toBe(200);
  return res.body.payouts.find((p: any) => p.partnerId === partnerId);
}

describe('mark-paid', () => {
  test('pending -> paid once; again is a 409', async () => {
    const partnerId = await insertPartner(svc.sql);
    await insertCommission(svc.sql, { partnerId, campaignId: usd, amount: 1234, status: 'approved' });
    const payout = await payoutFor(partnerId);
    const res = await svc.api('POST', `/v1/payouts/${payout.id}/mark-paid`, { body: { reference: 'bank-ref-42' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: payout.id, status: 'paid', providerReference: 'bank-ref-42', amount: '12.34' });
    expect(new Date(res.body.paidAt).toISOString()).toBe(res.body.paidAt);
    const [admin] = await svc.sql`select id from api_keys where kind = 'admin'`;
    const [row] = await svc.sql`select status, settled_by from payouts where id = ${payout.id}`;
    expect({ ...row }).toEqual({ status: 'paid', settled_by: `key:${admin!.id}` });

    const again = await svc.api('POST', `/v1/payouts/${payout.id}/mark-paid`);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('conflict');
    const fail = await svc.api('POST', `/v1/payouts/${payout.id}/mark-failed`, { body: { reason: 'bounced' } });
    expect(fail.status).toBe(409);
    expect((await svc.api('GET', `/v1/payouts/${payout.id}`)).body.status).toBe('paid');
  });

  test('unknown payout: 404', async () => {
    expect((await svc.api('POST', '/v1/payouts/pay_00000000000000000000000000/mark-paid')).status).toBe(404);
    expect((await svc.api('GET', '/v1/payouts/pay_00000000000000000000000000')).status).toBe(404);
  });
});

describe('a failed payout', () => {
  test('releases its commissions and clawbacks; the next run pays them again', async () => {
    const partnerId = await insertPartner(svc.sql);
    const a = await insertCommission(svc.sql, { partnerId, campaignId: usd, amount: 5000, status: 'approved' });
    const b = await insertCommission(svc.sql, { partnerId, campaignId: usd, amount: 3000, status: 'approved' });
    const owed = await insertCommission(svc.sql, { partnerId, campaignId: usd, amount: 1000, status: 'paid' });
    await svc.api('POST', `/v1/commissions/${owed}/reverse`, { body: { reason: 'refund' } });
    const first = await payoutFor(partnerId);
    expect(first).toMatchObject({ amount: '70.00', commissionCount: 2, clawbacksAmount: '10.00' });
    // reversed while the payout is pending: its clawback would claw back money that never left
    await svc.api('POST', `/v1/commissions/${b}/reverse`, { body: { reason: 'chargeback' } });
    expect(await clawbacksOf(svc.sql, b)).toMatchObject([{ status: 'open', amount: 3000n }]);

    const res = await svc.api('POST', `/v1/payouts/${first.id}/mark-failed`, { body: { reason: 'account closed' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'failed', failureReason: 'account closed' });

    expect(await commissionRow(svc.sql, a)).toMatchObject({ status: 'approved', payout_id: null, paid_at: null });
    expect((await transitionsOf(svc.sql, a)).at(-1)).toMatchObject({
      from_status: 'paid',
      to_status: 'approved',
      reason: `payout ${first.id} failed: account closed`,
    });
    expect((await commissionRow(svc.sql, b)).status).toBe('reversed');
    expect(await clawbacksOf(svc.sql, b)).toMatchObject([{ status: 'cancelled', payout_id: null }]);
    expect(await clawbacksOf(svc.sql, owed)).toMatchObject([{ status: 'open', payout_id: null }]);

    const detail = await svc.api('GET', `/v1/payouts/${first.id}`);
    expect(detail.body.commissions).toEqual([
      { id: a, amount: '50.00' },
      { id: b, amount: '30.00' },
    ]);
    expect(detail.body.clawbacks).toEqual([{ commissionId: owed, amount: '-10.00', reason: 'refund' }]);

    const second = await payoutFor(partnerId);
    expect(second).toMatchObject({ amount: '40.00', commissionCount: 1, clawbacksAmount: '10.00' });
    expect(second.id).not.toBe(first.id);
    expect(await commissionRow(svc.sql, a)).toMatchObject({ status: 'paid', payout_id: second.id });
    expect((await eventsFor(svc.sql, 'commission.paid', a)).map((e) => e.data.payoutId)).toEqual([first.id, second.id]);
  });
});

describe('listing and export', () => {
  let ann: string;
  let bob: string;
  let annKey: string;

  beforeAll(async () => {
    ann = await insertPartner(svc.sql, { name: '=HYPERLINK("http://evil.example","click")', email: 'ann@example.com' });
    bob = await insertPartner(svc.sql, { name: 'Bob, "the builder"', email: 'bob@example.com' });
    await insertCommission(svc.sql, { partnerId: ann, campaignId: usd, amount: 1000, status: 'approved' });
    await insertCommission(svc.sql, { partnerId: ann, campaignId: await insertCampaign(svc.sql, { currency: 'JPY' }), amount: 700, currency: 'JPY', status: 'approved' });
    await insertCommission(svc.sql, { partnerId: bob, campaignId: usd, amount: 2000, status: 'approved' });
    await svc.api('POST', '/v1/payouts/run');
    annKey = await svc.partnerKey(ann);
  });

  test('filters by partner, status and currency; pages newest first', async () => {
    const byPartner = await svc.api('GET', `/v1/payouts?partnerId=${ann}`);
    expect(byPartner.body.payouts.map((p: any) => p.currency).sort()).toEqual(['JPY', 'USD']);
    const jpy = await svc.api('GET', `/v1/payouts?partnerId=${ann}&currency=jpy`);
    expect(jpy.body.payouts.map((p: any) => p.amount)).toEqual(['700']);
    const pending = await svc.api('GET', '/v1/payouts?status=pending&limit=200');
    expect(pending.body.payouts.every((p: any) => p.status === 'pending')).toBe(true);
    const [counts] = await svc.sql`select count(*)::int as total, count(*) filter (where status = 'pending')::int as pending from payouts`;
    expect(pending.body.payouts).toHaveLength(counts!.pending);
    // no status filter: every status
    expect((await svc.api('GET', '/v1/payouts?limit=200')).body.payouts).toHaveLength(counts!.total);
    expect(counts!.total).toBeGreaterThan(counts!.pending);
    const failed = await svc.api('GET', '/v1/payouts?status=failed');
    expect(failed.body.payouts.every((p: any) => p.status === 'failed')).toBe(true);
    expect(failed.body.payouts.length).toBeGreaterThan(0);

    const all = (await svc.api('GET', '/v1/payouts?limit=200')).body.payouts.map((p: any) => p.id);
    expect(all).toEqual([...all].sort().reverse());
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await svc.api('GET', `/v1/payouts?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...page.body.payouts.map((p: any) => p.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual(all);
  });

  test('bad filters are a 400', async () => {
    for (const q of ['status=done', 'currency=dollars', 'limit=0', 'cursor=nope']) {
      const res = await svc.api('GET', `/v1/payouts?${q}`);
      expect({ q, status: res.status, code: res.body.code }).toEqual({ q, status: 400, code: 'invalid_query' });
    }
  });

  test('a partner key sees its own payouts only', async () => {
    const own = await svc.api('GET', '/v1/payouts', { key: annKey });
    expect(own.status).toBe(200);
    expect(new Set(own.body.payouts.map((p: any) => p.partnerId))).toEqual(new Set([ann]));
    expect((await svc.api('GET', `/v1/payouts?partnerId=${bob}`, { key: annKey })).status).toBe(403);
    const bobs = (await svc.api('GET', `/v1/payouts?partnerId=${bob}`)).body.payouts[0];
    expect((await svc.api('GET', `/v1/payouts/${bobs.id}`, { key: annKey })).status).toBe(403);
    const csv = await svc.api('GET', '/v1/payouts.csv', { key: annKey });
    expect(csv.status).toBe(200);
    expect(csv.body).not.toContain(bob);
    expect(csv.body).toContain(ann);
  });

  test('CSV: one row per payout, formula cells defused, commas and quotes quoted', async () => {
    const res = await svc.api('GET', '/v1/payouts.csv');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/csv');
    expect(res.headers.get('content-disposition')).toContain('payouts.csv');
    const lines = (res.body as string).trimEnd().split("\r\n");
    expect(lines[0]).toBe(
      'payout_id,partner_id,partner_name,partner_email,billing_connect_account_id,currency,amount,commissions_amount,clawbacks_amount,commission_count,status,created_at,paid_at',
    );
    const [count] = await svc.sql`select count(*)::int as n from payouts`;
    expect(lines).toHaveLength(count!.n + 1);
    const annUsd = lines.find((l) => l.includes(ann) && l.includes(',USD,'))!;
    expect(annUsd).toContain(`,"'=HYPERLINK(""http://evil.example"",""click"")",ann@example.com,,USD,10.00,10.00,0.00,1,pending,`);
    const bobLine = lines.find((l) => l.includes(bob))!;
    expect(bobLine).toContain(',"Bob, ""the builder""",bob@example.com,');
    const filtered = await svc.api('GET', `/v1/payouts.csv?partnerId=${ann}&currency=JPY`);
    expect((filtered.body as string).trimEnd().split('\r\n')).toHaveLength(2);
  });
});
