// GET /v1/payouts/:id/invoice.pdf, read back with poppler's pdftotext: the parties, the lines by
// campaign, clawbacks, total, number and the reverse-charge note; who may download it.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { randomBytes } from 'node:crypto';
import { insertCampaign, insertCommission, insertPartner } from '../support/lifecycle-fixtures';
import { startService, type TestService } from '../support/service';
import { W8BEN } from './forms';

let svc: TestService;
const dir = mkdtempSync(`${tmpdir()}/partnerd-invoice-`);
const year = new Date().getUTCFullYear();

beforeAll(async () => {
  svc = await startService({ ENCRYPTION_KEY: randomBytes(32).toString('base64'), INVOICE_PREFIX: 'ACME' });
}, 60_000);
afterAll(() => svc.stop());

/** The PDF's text as pdftotext reads it (layout kept, so a label and its amount share a line). */
function pdfText(bytes: ArrayBuffer, name: string): string {
  const file = `${dir}/${name}.pdf`;
  writeFileSync(file, new Uint8Array(bytes));
  const out = spawnSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
  if (out.status !== 0) throw new Error(`pdftotext: ${out.stderr}`);
  return out.stdout.replace(/[ \t]+/g, ' ');
}

const fetchPdf = (id: string, key = svc.adminKey) => fetch(`${svc.url}/v1/payouts/${id}/invoice.pdf`, { headers: { authorization: `Bearer ${key}` } });

test('a paid payout\'s invoice: parties, commissions by campaign, clawbacks, total, number, reverse charge', async () => {
  expect((await svc.api('PATCH', '/v1/settings', { body: { taxForms: 'collect', legalName: 'Acme Software GmbH', legalAddress: 'Hauptstr. 1\n10115 Berlin\nGermany', vatId: 'DE123456789' } })).status).toBe(200);
  const shoes = await insertCampaign(svc.sql, { currency: 'EUR' });
  const hats = await insertCampaign(svc.sql, { currency: 'EUR' });
  await svc.sql`update campaigns set name = case id when ${shoes} then 'Shoes' else 'Hats' end where id in (${shoes}, ${hats})`;
  const partner = await insertPartner(svc.sql, { name: 'Jean' });
  expect((await svc.api('PUT', `/v1/partners/${partner}/tax-profile`, {
    body: { ...W8BEN, legalName: 'Jean Dupont', citizenship: 'FR', treatyCountry: 'FR', address: { line1: '3 rue de la Paix', city: 'Paris', postalCode: '75002', country: 'FR' }, vatId: 'FR12345678901' },
  })).status).toBe(200);
  for (const [campaignId, amount] of [[shoes, 1250], [shoes, 750], [hats, 3000]] as const) await insertCommission(svc.sql, { partnerId: partner, campaignId, amount, status: 'approved', currency: 'EUR' });
  // a clawback of an earlier paid commission, netted in this payout
  const old = await insertCommission(svc.sql, { partnerId: partner, campaignId: hats, amount: 500, status: 'paid', currency: 'EUR' });
  await svc.sql`insert into clawbacks (commission_id, partner_id, currency, amount, reason) values (${old}, ${partner}, 'EUR', 500, 'refund')`;
  const payout = (await svc.api('POST', '/v1/payouts/run')).body.payouts.find((p: { partnerId: string }) => p.partnerId === partner);
  expect(payout.amount).toBe('45.00');

  expect((await fetchPdf(payout.id)).status).toBe(404); // not paid yet: no invoice
  expect((await svc.api('POST', `/v1/payouts/${payout.id}/mark-paid`, { body: { reference: 'SEPA-77' } })).status).toBe(200);

  const res = await fetchPdf(payout.id);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/pdf');
  expect(res.headers.get('content-disposition')).toBe(`inline; filename="ACME-${year}-000001.pdf"`);
  const bytes = await res.arrayBuffer();
  await Bun.write(`${dir}/invoice.pdf`, bytes);
  const text = pdfText(bytes, 'eu');
  // dated the day it was paid, as stored (the test's own clock may have passed midnight UTC since)
  const [paid] = await svc.sql<{ paidAt: Date }[]>`select paid_at as "paidAt" from payouts where id = ${payout.id}`;
  for (const expected of [
    'Self-billing invoice',
    `Invoice number: ACME-${year}-000001`,
    `Invoice date: ${paid!.paidAt.toISOString().slice(0, 10)}`,
    'Jean Dupont', '3 rue de la Paix', '75002 Paris', 'France', 'VAT id: FR12345678901',
    'Acme Software GmbH', 'Hauptstr. 1', '10115 Berlin', 'VAT id: DE123456789',
    'Commissions, campaign Hats (1 commission) 30.00 EUR',
    'Commissions, campaign Shoes (2 commissions) 20.00 EUR',
    'Clawbacks of earlier paid commissions (1) -5.00 EUR',
    'Total 45.00 EUR',
    'reference SEPA-77',
    'Reverse charge',
  ]) expect(text).toContain(expected);
});

test('no reverse charge within one country or without the partner\'s VAT id; who may download', async () => {
  const usd = await insertCampaign(svc.sql, { currency: 'USD' });
  const de = await insertPartner(svc.sql, { name: 'Klaus' });
  const other = await insertPartner(svc.sql, { name: 'Other' });
  expect((await svc.api('PUT', `/v1/partners/${de}/tax-profile`, { body: { ...W8BEN, vatId: 'DE999999999' } })).status).toBe(200);
  await insertCommission(svc.sql, { partnerId: de, campaignId: usd, amount: 1000, status: 'approved' });
  const payout = (await svc.api('POST', '/v1/payouts/run')).body.payouts.find((p: { partnerId: string }) => p.partnerId === de);
  await svc.api('POST', `/v1/payouts/${payout.id}/mark-paid`, { body: {} });
  const text = pdfText(await (await fetchPdf(payout.id)).arrayBuffer(), 'de');
  expect(text).toContain(`ACME-${year}-000002`);
  expect(text).not.toContain('Reverse charge');

  expect((await fetchPdf(payout.id, await svc.partnerKey(de))).status).toBe(200);
  expect((await fetchPdf(payout.id, await svc.scopedKey(['payouts:read']))).status).toBe(200);
  expect([403, 404]).toContain((await fetchPdf(payout.id, await svc.partnerKey(other))).status);
  expect((await fetchPdf(payout.id, await svc.scopedKey(['partners:read']))).status).toBe(403);
  expect((await fetchPdf('pay_unknown')).status).toBe(404);
});
