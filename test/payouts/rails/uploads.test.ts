// Paying by upload: Wise's and PayPal's files of the pending payouts of their rail, then the bulk
// settle, all or nothing.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { commissionRow, insertCampaign, insertCommission, insertPartner } from '../../support/lifecycle-fixtures';
import { startService, type TestService } from '../../support/service';

let svc: TestService;
let usd: string;
let eur: string;
const made: Record<string, any> = {};

beforeAll(async () => {
  svc = await startService({ PAYOUT_METHOD_HOLD_HOURS: '0' }); // no PayPal API: PayPal payouts are paid by upload
  usd = await insertCampaign(svc.sql, { currency: 'USD' });
  eur = await insertCampaign(svc.sql, { currency: 'EUR' });
  const setUp = async (name: string, body: unknown, campaignId: string, cents: number) => {
    const partnerId = await insertPartner(svc.sql, { name });
    expect((await svc.api('PUT', `/v1/partners/${partnerId}/payout-method`, { body })).status).toBe(200);
    const commissionId = await insertCommission(svc.sql, { partnerId, campaignId, amount: cents, currency: campaignId === eur ? 'EUR' : 'USD', status: 'approved' });
    return { partnerId, commissionId };
  };
  const people = {
    wiseA: await setUp('Wanda "W" Wise', { type: 'wise', email: 'wanda@example.com' }, eur, 12345),
    wiseB: await setUp('=cmd|calc', { type: 'wise', email: 'will@example.com' }, usd, 500),
    paypal: await setUp('Pat Pal', { type: 'paypal', email: 'pat@example.com' }, usd, 2000),
    manual: await setUp('Manny', { type: 'manual' }, usd, 700),
  };
  const run = await svc.api('POST', '/v1/payouts/run');
  for (const [name, who] of Object.entries(people)) {
    made[name] = { ...who, payout: run.body.payouts.find((p: { partnerId: string }) => p.partnerId === who.partnerId) };
    expect(made[name].payout.status).toBe('pending');
  }
}, 60_000);
afterAll(() => svc.stop());

const csv = async (query: string) => {
  const res = await fetch(`${svc.url}/v1/payouts.csv?${query}`, { headers: { authorization: `Bearer ${svc.adminKey}` } });
  return { status: res.status, disposition: res.headers.get('content-disposition'), lines: (await res.text()).split('\r\n').filter(Boolean) };
};

describe('upload files', () => {
  test("format=wise: Wise's batch payment file of the pending wise payouts", async () => {
    const file = await csv('format=wise');
    expect(file.status).toBe(200);
    expect(file.disposition).toBe('attachment; filename="payouts-wise.csv"');
    const [a, b] = [made.wiseA.payout, made.wiseB.payout].sort((x, y) => (x.id < y.id ? -1 : 1));
    const row = (p: any) =>
      p.id === made.wiseA.payout.id
        ? `"Wanda ""W"" Wise",wanda@example.com,${p.id},PERSON,source,123.45,EUR,EUR`
        : `'=cmd|calc,will@example.com,${p.id},PERSON,source,5.00,USD,USD`;
    expect(file.lines).toEqual(['name,recipientEmail,paymentReference,receiverType,amountCurrency,amount,sourceCurrency,targetCurrency', row(a), row(b)]);
  });

  test("format=paypal: PayPal's payouts upload file", async () => {
    const file = await csv('format=paypal');
    const p = made.paypal.payout;
    expect(file.lines).toEqual(['recipient,amount,currency,reference_id,note,wallet', `pat@example.com,20.00,USD,${p.id},Partner payout ${p.id},PayPal`]);
    expect((await csv('format=bitcoin')).status).toBe(400);
  });
});

describe('bulk settle', () => {
  test('a payout not pending: 409 naming it, nothing changes', async () => {
    const res = await svc.api('POST', '/v1/payouts/settle', {
      body: { payouts: [{ id: made.wiseA.payout.id, status: 'paid' }, { id: made.manual.payout.id, status: 'paid' }] },
    });
    expect(res.status).toBe(200);
    const again = await svc.api('POST', '/v1/payouts/settle', {
      body: { payouts: [{ id: made.wiseB.payout.id, status: 'paid', reference: 'wise-1' }, { id: made.manual.payout.id, status: 'failed', reason: 'x' }] },
    });
    expect(again.status).toBe(409);
    expect(again.body.message).toContain(made.manual.payout.id);
    expect(again.body.details).toEqual({ payoutId: made.manual.payout.id, status: 'paid' });
    expect((await svc.api('GET', `/v1/payouts/${made.wiseB.payout.id}`)).body.status).toBe('pending');
  });

  test('bad lists are a 400 or 404 and change nothing', async () => {
    const id = made.wiseB.payout.id;
    const cases: [unknown, number, string][] = [
      [{ payouts: [] }, 400, 'payouts'],
      [{ payouts: [{ id, status: 'failed' }] }, 400, 'payouts/0/reason'],
      [{ payouts: [{ id, status: 'done' }] }, 400, 'status'],
      [{ payouts: [{ id, status: 'paid' }, { id, status: 'paid' }] }, 400, 'payouts/1/id'],
      [{ payouts: [{ id, status: 'paid' }, { id: 'pay_00000000000000000000000000', status: 'paid' }] }, 404, 'pay_00000000000000000000000000'],
    ];
    for (const [body, status, names] of cases) {
      const res = await svc.api('POST', '/v1/payouts/settle', { body });
      expect(res.status).toBe(status);
      expect(res.body.message).toContain(names);
    }
    expect((await svc.api('POST', '/v1/payouts/settle', { body: { payouts: Array.from({ length: 1001 }, () => ({ id, status: 'paid' })) } })).status).toBe(400);
    expect((await svc.api('GET', `/v1/payouts/${id}`)).body.status).toBe('pending');
    const reader = await svc.scopedKey(['payouts:read']);
    expect((await svc.api('POST', '/v1/payouts/settle', { key: reader, body: { payouts: [{ id, status: 'paid' }] } })).status).toBe(403);
  });

  test('paid and failed in one call; failed releases the commissions; the files no longer list them', async () => {
    const res = await svc.api('POST', '/v1/payouts/settle', {
      body: {
        payouts: [
          { id: made.wiseB.payout.id, status: 'paid', reference: 'wise-transfer-9' },
          { id: made.paypal.payout.id, status: 'failed', reason: 'PayPal account closed' },
        ],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.payouts.map((p: any) => [p.id, p.status, p.providerReference ?? p.failureReason])).toEqual([
      [made.wiseB.payout.id, 'paid', 'wise-transfer-9'],
      [made.paypal.payout.id, 'failed', 'PayPal account closed'],
    ]);
    expect(await commissionRow(svc.sql, made.paypal.commissionId)).toMatchObject({ status: 'approved', payout_id: null });
    const types = await svc.sql`select type, data->>'payoutId' as id from webhook_events where type in ('payout.paid', 'payout.failed') order by id`;
    expect(types.map((t) => `${t.type} ${t.id}`)).toEqual(expect.arrayContaining([`payout.paid ${made.wiseB.payout.id}`, `payout.failed ${made.paypal.payout.id}`]));
    expect((await csv('format=wise')).lines).toHaveLength(1);
    expect((await csv('format=paypal')).lines).toHaveLength(1);
  });
});
