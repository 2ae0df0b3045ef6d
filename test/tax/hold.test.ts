// taxForms require: a partner without a valid tax form is held by the payout run, the run's preview
// says why, and once a form is on file the next run pays them.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { randomBytes } from 'node:crypto';
import { previewRun } from '../../src/modules/reports/money';
import { TAX_FORM_HOLD } from '../../src/modules/payouts/routing';
import { commissionRow, insertCampaign, insertCommission, insertPartner } from '../support/lifecycle-fixtures';
import { startService, type TestService } from '../support/service';
import { W8BEN, W9 } from './forms';

let svc: TestService;
let usd: string;
beforeAll(async () => {
  svc = await startService({ ENCRYPTION_KEY: randomBytes(32).toString('base64') });
  usd = await insertCampaign(svc.sql, { currency: 'USD' });
}, 60_000);
afterAll(() => svc.stop());

const paidTo = async (partnerId: string) => (await svc.api('POST', '/v1/payouts/run')).body.payouts.find((p: { partnerId: string }) => p.partnerId === partnerId);

test('collect does not hold; require holds partners without a valid form, says why, and pays once one is on file', async () => {
  const a = await insertPartner(svc.sql, { name: 'Formless' });
  const b = await insertPartner(svc.sql, { name: 'Expired' });
  expect((await svc.api('PATCH', '/v1/settings', { body: { taxForms: 'collect' } })).status).toBe(200);
  await insertCommission(svc.sql, { partnerId: a, campaignId: usd, amount: 1500, status: 'approved' });
  expect(await paidTo(a)).toMatchObject({ amount: '15.00' });

  expect((await svc.api('PATCH', '/v1/settings', { body: { taxForms: 'require' } })).status).toBe(200);
  const first = await insertCommission(svc.sql, { partnerId: a, campaignId: usd, amount: 2500, status: 'approved' });
  await insertCommission(svc.sql, { partnerId: b, campaignId: usd, amount: 700, status: 'approved' });
  expect((await svc.api('PUT', `/v1/partners/${b}/tax-profile`, { body: W8BEN })).status).toBe(200);
  await svc.sql`update tax_profiles set signed_at = now() - interval '5 years' where partner_id = ${b}`;

  const preview = await previewRun(svc.sql, '0');
  expect(preview.held).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ partnerId: a, partnerName: 'Formless', amount: 2500n, reason: TAX_FORM_HOLD }),
      expect.objectContaining({ partnerId: b, partnerName: 'Expired', amount: 700n, reason: TAX_FORM_HOLD }),
    ]),
  );
  expect(TAX_FORM_HOLD).toContain('tax form');
  expect(await paidTo(a)).toBeUndefined();
  expect(await commissionRow(svc.sql, first)).toMatchObject({ status: 'approved', payout_id: null });

  expect((await svc.api('PUT', `/v1/partners/${a}/tax-profile`, { body: W9 })).status).toBe(200);
  expect((await previewRun(svc.sql, '0')).held.map((h) => h.partnerId)).toEqual([b]);
  expect(await paidTo(a)).toMatchObject({ amount: '25.00' });
  expect(await paidTo(b)).toBeUndefined();

  expect((await svc.api('PATCH', '/v1/settings', { body: { taxForms: 'off' } })).status).toBe(200);
  expect(await paidTo(b)).toMatchObject({ amount: '7.00' });
});
