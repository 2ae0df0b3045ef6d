// The admin pages' "Money in" choice after a payout run: a currency whose commissions are all paid
// is still offered (paid commissions are found through their payouts' currencies).
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { moneyCurrencies } from '../../src/modules/reports/partners';
import { startService, type TestService } from '../support/service';
import { insertCampaign, insertCommission, insertPartner } from '../support/lifecycle-fixtures';

let svc: TestService;

beforeAll(async () => {
  svc = await startService({ MIN_PAYOUT: '0' });
}, 60_000);
afterAll(() => svc.stop());

test('a currency only paid commissions are in stays in the money choice, after the campaigns\' currencies', async () => {
  const usd = await insertCampaign(svc.sql, { currency: 'USD' });
  const partnerId = await insertPartner(svc.sql);
  // a percent rule pays in the event's currency: CHF and JPY here, on a USD campaign
  await insertCommission(svc.sql, { partnerId, campaignId: usd, amount: 1500, currency: 'CHF', status: 'approved' });
  await insertCommission(svc.sql, { partnerId, campaignId: usd, amount: 700, currency: 'JPY', status: 'accrued' });
  expect(await moneyCurrencies(svc.sql)).toEqual(['USD', 'CHF', 'JPY']);

  const res = await svc.api('POST', '/v1/payouts/run');
  expect(res.status).toBe(200);
  expect(res.body.payouts.map((p: { currency: string }) => p.currency)).toEqual(['CHF']);
  const [paid] = await svc.sql`select count(*)::int as n from commissions where currency = 'CHF' and status = 'paid'`;
  expect(paid!.n).toBe(1);
  expect(await moneyCurrencies(svc.sql)).toEqual(['USD', 'CHF', 'JPY']);
});
