// PUT/GET /v1/partners/:id/tax-profile: the three forms, their rules (each bad field a 400 naming it,
// nothing stored), who may call, and the TIN and date of birth never answered nor readable at rest.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { randomBytes } from 'node:crypto';
import { startService, type TestService } from '../support/service';
import { W8BEN, W8BENE, W9 } from './forms';

let svc: TestService;
let partnerId: string;
let otherId: string;

beforeAll(async () => {
  svc = await startService({ ENCRYPTION_KEY: randomBytes(32).toString('base64') });
  partnerId = (await svc.api('POST', '/v1/partners', { body: { email: 'tax@example.com', name: 'Tax', sendInvite: false } })).body.id;
  otherId = (await svc.api('POST', '/v1/partners', { body: { email: 'other@example.com', name: 'Other', sendInvite: false } })).body.id;
}, 60_000);
afterAll(() => svc.stop());

const put = (body: unknown, key?: string) => svc.api('PUT', `/v1/partners/${partnerId}/tax-profile`, { body, key });

describe('tax profile', () => {
  test('no form on file: 404', async () => {
    expect((await svc.api('GET', `/v1/partners/${partnerId}/tax-profile`)).status).toBe(404);
  });

  test('a W-9 is kept with the TIN as its last four digits, the signer and the address it came from', async () => {
    const res = await put(W9);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      partnerId,
      form: 'w9',
      legalName: 'Ada Lovelace',
      tinType: 'ssn',
      tinLast4: '6789',
      address: { region: 'IL', country: 'US', line2: null },
      signatureName: 'Ada Lovelace',
      signedIp: '127.0.0.1',
      valid: true,
      validUntil: null,
    });
    expect(JSON.stringify(res.body)).not.toContain('123-45');
    expect(Date.now() - Date.parse(res.body.signedAt)).toBeLessThan(60_000);
    const got = await svc.api('GET', `/v1/partners/${partnerId}/tax-profile`);
    expect(got.body).toEqual(res.body);
    const [row] = await svc.sql`select tin_sealed, tin_last4 from tax_profiles where partner_id = ${partnerId}`;
    expect(row!.tin_sealed).toMatch(/^v1:[0-9a-f]{8}:/);
    expect(row!.tin_sealed).not.toContain('6789');
  });

  test('an EIN without dashes is accepted and kept in its dashed form', async () => {
    const res = await put({ ...W9, taxClassification: 'llc', tinType: 'ein', tin: '123456789', businessName: 'Ada LLC' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ tinType: 'ein', tinLast4: '6789', businessName: 'Ada LLC', taxClassification: 'llc' });
  });

  test('a W-8BEN replaces it: citizenship, treaty country, valid to the end of the third year after; no DOB or foreign TIN answered', async () => {
    const res = await put(W8BEN);
    expect(res.status).toBe(200);
    const year = new Date().getUTCFullYear();
    expect(res.body).toMatchObject({ form: 'w8ben', citizenship: 'DE', treatyCountry: 'DE', tinLast4: null, tinType: null, hasForeignTin: true, vatId: 'DE123456789', valid: true, validUntil: `${year + 3}-12-31` });
    expect(JSON.stringify(res.body)).not.toContain('1986');
    expect(JSON.stringify(res.body)).not.toContain('55555');
    const rows = await svc.sql`select form, tin_sealed, date_of_birth_sealed from tax_profiles where partner_id = ${partnerId}`;
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ form: 'w8ben', tin_sealed: null });
    expect(rows[0]!.date_of_birth_sealed).toMatch(/^v1:/);
  });

  test('a W-8BEN-E for a foreign entity', async () => {
    const res = await put(W8BENE);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ form: 'w8bene', incorporationCountry: 'AT', citizenship: null, hasForeignTin: false });
  });

  test('a W-8 signed four years ago is no longer valid', async () => {
    await put(W8BEN);
    await svc.sql`update tax_profiles set signed_at = now() - interval '4 years' - interval '1 day' where partner_id = ${partnerId}`;
    const res = await svc.api('GET', `/v1/partners/${partnerId}/tax-profile`);
    expect(res.body.valid).toBe(false);
    await put(W9);
  });

  const bad: [string, unknown, string][] = [
    ['SSN with area 000', { ...W9, tin: '000-12-3456' }, 'tin'],
    ['SSN with area 666', { ...W9, tin: '666-12-3456' }, 'tin'],
    ['SSN with area 9xx', { ...W9, tin: '912-12-3456' }, 'tin'],
    ['SSN with group 00', { ...W9, tin: '123-00-3456' }, 'tin'],
    ['SSN with serial 0000', { ...W9, tin: '123-45-0000' }, 'tin'],
    ['SSN of eight digits', { ...W9, tin: '123-45-678' }, 'tin'],
    ['EIN in SSN shape', { ...W9, tinType: 'ein', tin: '123-45-6789' }, 'tin'],
    ['EIN with an unassigned prefix', { ...W9, tinType: 'ein', tin: '07-1234567' }, 'tin'],
    ['W-9 without a TIN', { ...W9, tin: undefined }, 'tin'],
    ['W-9 without a classification', { ...W9, taxClassification: undefined }, 'taxClassification'],
    ['W-9 with a classification not on the form', { ...W9, taxClassification: 'sole_trader' }, 'taxClassification'],
    ['W-9 outside the US', { ...W9, address: { ...W9.address, country: 'CA' } }, 'address.country'],
    ['W-9 without a state', { ...W9, address: { ...W9.address, region: undefined } }, 'address.region'],
    ['W-9 with a bad ZIP', { ...W9, address: { ...W9.address, postalCode: '6270' } }, 'address.postalCode'],
    ['W-9 with a W-8 field', { ...W9, citizenship: 'US' }, 'citizenship'],
    ['W-8BEN with a US address', { ...W8BEN, address: { ...W8BEN.address, country: 'US' } }, 'address.country'],
    ['W-8BEN with an unknown country', { ...W8BEN, citizenship: 'XX' }, 'citizenship'],
    ['W-8BEN with a three-letter country', { ...W8BEN, citizenship: 'DEU' }, 'citizenship'],
    ['W-8BEN without a date of birth', { ...W8BEN, dateOfBirth: undefined }, 'dateOfBirth'],
    ['W-8BEN with 31 February', { ...W8BEN, dateOfBirth: '1990-02-31' }, 'dateOfBirth'],
    ['W-8BEN born tomorrow', { ...W8BEN, dateOfBirth: '2999-01-01' }, 'dateOfBirth'],
    ['W-8BEN with a TIN', { ...W8BEN, tin: '123-45-6789' }, 'tin'],
    ['W-8BEN-E without a country of incorporation', { ...W8BENE, incorporationCountry: undefined }, 'incorporationCountry'],
    ['unsigned', { ...W9, signature: { name: 'Ada', agreed: false } }, 'signature.agreed'],
    ['signed without a name', { ...W9, signature: { name: '  ', agreed: true } }, 'signature.name'],
    ['an empty legal name', { ...W9, legalName: ' ' }, 'legalName'],
    ['an unknown form', { ...W9, form: 'w4' }, 'form'],
    ['a bad VAT id', { ...W8BEN, vatId: 'nope' }, 'vatId'],
    ['an unknown field', { ...W9, ssn: '123-45-6789' }, 'ssn'],
  ];
  test.each(bad)('%s: a 400 naming the field, nothing changed, no TIN echoed', async (_, body, field) => {
    const before = await svc.sql`select * from tax_profiles where partner_id = ${partnerId}`;
    const res = await put(body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_body');
    expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
    expect(JSON.stringify(res.body)).not.toMatch(/\d{3}-\d{2}-\d{4}/);
    expect(await svc.sql`select * from tax_profiles where partner_id = ${partnerId}`).toEqual(before);
  });

  test('the partner reads and replaces its own; another partner is refused; partners:read reads, partners:write writes', async () => {
    const own = await svc.partnerKey(partnerId);
    const other = await svc.partnerKey(otherId);
    expect((await put(W9, own)).status).toBe(200);
    expect((await svc.api('GET', `/v1/partners/${partnerId}/tax-profile`, { key: own })).status).toBe(200);
    expect((await svc.api('GET', `/v1/partners/${partnerId}/tax-profile`, { key: other })).status).toBe(403);
    expect((await put(W9, other)).status).toBe(403);
    const reader = await svc.scopedKey(['partners:read']);
    expect((await svc.api('GET', `/v1/partners/${partnerId}/tax-profile`, { key: reader })).status).toBe(200);
    expect((await put(W9, reader)).status).toBe(403);
    expect((await put(W9, await svc.scopedKey(['partners:write']))).status).toBe(200);
    expect((await svc.api('PUT', '/v1/partners/ptn_nope/tax-profile', { body: W9 })).status).toBe(404);
  });
});

describe('without ENCRYPTION_KEY', () => {
  test('a form is refused with 409 naming the variable', async () => {
    const plain = await startService();
    try {
      const id = (await plain.api('POST', '/v1/partners', { body: { email: 'p@example.com', name: 'P', sendInvite: false } })).body.id;
      const res = await plain.api('PUT', `/v1/partners/${id}/tax-profile`, { body: W9 });
      expect(res.status).toBe(409);
      expect(res.body.message).toContain('ENCRYPTION_KEY');
      expect(await plain.sql`select 1 from tax_profiles`).toHaveLength(0);
    } finally {
      await plain.stop();
    }
  });
});
