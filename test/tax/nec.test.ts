// GET /v1/tax/1099-nec.csv: one row per W-9 payee paid at least 600.00 USD in the calendar year, with
// the full TIN (the only place it leaves the service), for the admin key or tax:read only.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { randomBytes } from 'node:crypto';
import { insertCampaign, insertCommission, insertPartner } from '../support/lifecycle-fixtures';
import { startService, type TestService } from '../support/service';
import { W8BEN, W9 } from './forms';

let svc: TestService;
const year = new Date().getUTCFullYear();

beforeAll(async () => {
  svc = await startService({ ENCRYPTION_KEY: randomBytes(32).toString('base64') });
}, 60_000);
afterAll(() => svc.stop());

/** Pays `cents` to the partner in `currency` through a run and mark-paid, dated `paidAt`. */
async function pay(partnerId: string, campaignId: string, cents: number, paidAt: string, currency = 'USD') {
  await insertCommission(svc.sql, { partnerId, campaignId, amount: cents, status: 'approved', currency });
  const run = await svc.api('POST', '/v1/payouts/run');
  const payout = run.body.payouts.find((p: { partnerId: string }) => p.partnerId === partnerId);
  expect((await svc.api('POST', `/v1/payouts/${payout.id}/mark-paid`, { body: {} })).status).toBe(200);
  await svc.sql`update payouts set paid_at = ${paidAt} where id = ${payout.id}`;
}

test('the year file: W-9 payees at 600.00 USD or more, full TIN and address, other payees and years left out', async () => {
  const usd = await insertCampaign(svc.sql, { currency: 'USD' });
  const eur = await insertCampaign(svc.sql, { currency: 'EUR' });
  const [ada, bob, cy, dee, eve] = await Promise.all(['Ada', 'Bob', 'Cy', 'Dee', 'Eve'].map((name) => insertPartner(svc.sql, { name })));
  const put = (id: string, body: unknown) => svc.api('PUT', `/v1/partners/${id}/tax-profile`, { body });
  expect((await put(ada!, { ...W9, legalName: 'Ada Lovelace', businessName: 'Ada, Inc.', address: { ...W9.address, line2: 'Suite 5' } })).status).toBe(200);
  expect((await put(bob!, { ...W9, legalName: 'Bob Under', tin: '234-56-7890' })).status).toBe(200);
  expect((await put(cy!, { ...W9, legalName: 'Cy Corp', taxClassification: 'c_corporation', tinType: 'ein', tin: '12-3456789' })).status).toBe(200);
  expect((await put(dee!, W8BEN)).status).toBe(200);
  // ada: 400 + 250 this year (two payouts add up) and 900 last year; bob: 599.99; cy: exactly 600.00,
  // and EUR that does not count; dee: a W-8BEN payee; eve: no form
  await pay(ada!, usd, 40_000, `${year}-01-01T00:00:00Z`);
  await pay(ada!, usd, 25_000, `${year}-03-01T00:00:00Z`);
  await pay(ada!, usd, 90_000, `${year - 1}-12-31T23:59:59Z`);
  await pay(bob!, usd, 59_999, `${year}-02-01T00:00:00Z`);
  await pay(cy!, usd, 60_000, `${year}-02-01T00:00:00Z`);
  await pay(cy!, eur, 90_000, `${year}-02-01T00:00:00Z`, 'EUR');
  await pay(dee!, usd, 100_000, `${year}-02-01T00:00:00Z`);
  await pay(eve!, usd, 100_000, `${year}-02-01T00:00:00Z`);

  const res = await svc.api('GET', `/v1/tax/1099-nec.csv?year=${year}`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
  expect(res.headers.get('content-disposition')).toBe(`attachment; filename="1099-nec-${year}.csv"`);
  expect(res.body).toBe(
    [
      'partner_id,legal_name,business_name,tin_type,tin,address_line1,address_line2,city,state,postal_code,box1_nonemployee_compensation',
      `${ada},Ada Lovelace,"Ada, Inc.",ssn,123-45-6789,1 Main St,Suite 5,Springfield,IL,62701,650.00`,
      `${cy},Cy Corp,,ein,12-3456789,1 Main St,,Springfield,IL,62701,600.00`,
      '',
    ].join('\r\n'),
  );
  const last = await svc.api('GET', `/v1/tax/1099-nec.csv?year=${year - 1}`);
  expect(last.body.split('\r\n')[1]).toBe(`${ada},Ada Lovelace,"Ada, Inc.",ssn,123-45-6789,1 Main St,Suite 5,Springfield,IL,62701,900.00`);
  expect((await svc.api('GET', '/v1/tax/1099-nec.csv?year=2000')).body.split('\r\n')).toHaveLength(2);
});

test('who may download it, and bad years', async () => {
  const path = `/v1/tax/1099-nec.csv?year=${year}`;
  expect((await svc.api('GET', path, { key: await svc.scopedKey(['tax:read']) })).status).toBe(200);
  expect((await svc.api('GET', path, { key: await svc.scopedKey(['partners:read', 'payouts:read']) })).status).toBe(403);
  const partner = await insertPartner(svc.sql, { name: 'Nosy' });
  expect((await svc.api('GET', path, { key: await svc.partnerKey(partner) })).status).toBe(403);
  expect((await svc.api('GET', path, { key: null })).status).toBe(401);
  for (const bad of ['', 'year=26', 'year=abcd', `year=${year + 1}`, 'year=1999', 'year=1999x']) {
    const res = await svc.api('GET', `/v1/tax/1099-nec.csv?${bad}`);
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain('year');
  }
});

test('each download is in the audit log as tax.exported: who, which year, how many rows, never a TIN', async () => {
  const key = await svc.scopedKey(['tax:read']);
  const before = await svc.sql`select count(*)::int as n from audit_log where action = 'tax.exported'`;
  const res = await svc.api('GET', `/v1/tax/1099-nec.csv?year=${year}`, { key });
  expect(res.status).toBe(200);
  const rows = res.body.trim().split('\r\n').length - 1;
  const entries = await svc.sql`select actor_type, actor_id, target_type, target_id, changes from audit_log where action = 'tax.exported' order by at desc, id desc`;
  expect(entries).toHaveLength(before[0]!.n + 1);
  expect(entries[0]).toMatchObject({ actor_type: 'key', target_type: 'tax_year', target_id: `1099-nec-${year}`, changes: { form: [null, '1099-nec'], year: [null, year], rows: [null, rows] } });
  expect(entries[0]!.actor_id).toMatch(/^key_/);
  const log = JSON.stringify(await svc.sql`select * from audit_log`);
  expect(log).not.toContain('123-45-6789');
  expect(log).not.toContain('12-3456789');
  // a refused download (a bad year) is not an export and writes nothing
  expect((await svc.api('GET', '/v1/tax/1099-nec.csv?year=1999', { key })).status).toBe(400);
  expect(await svc.sql`select 1 from audit_log where action = 'tax.exported'`).toHaveLength(entries.length);
});
