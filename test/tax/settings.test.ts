// The taxForms setting and the program's legal details: refused without ENCRYPTION_KEY, kept with it.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { randomBytes } from 'node:crypto';
import { startService, type TestService } from '../support/service';

let plain: TestService;
let keyed: TestService;
beforeAll(async () => {
  [plain, keyed] = await Promise.all([startService(), startService({ ENCRYPTION_KEY: randomBytes(32).toString('base64') })]);
}, 60_000);
afterAll(() => Promise.all([plain.stop(), keyed.stop()]));

describe('taxForms setting', () => {
  test('off by default, with no legal details', async () => {
    const res = await plain.api('GET', '/v1/settings');
    expect(res.body).toMatchObject({ taxForms: 'off', legalName: null, legalAddress: null, vatId: null });
  });

  test.each(['collect', 'require'])('%s without ENCRYPTION_KEY is a 400 naming the variable, and nothing changes', async (value) => {
    const res = await plain.api('PATCH', '/v1/settings', { body: { taxForms: value, legalName: 'Acme GmbH' } });
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([{ field: 'taxForms', message: expect.stringContaining('ENCRYPTION_KEY') }]);
    const [row] = await plain.sql`select tax_forms, legal_name from settings`;
    expect(row).toEqual({ tax_forms: 'off', legal_name: null });
  });

  test('with ENCRYPTION_KEY: require and the legal details are kept', async () => {
    const res = await keyed.api('PATCH', '/v1/settings', {
      body: { taxForms: 'require', legalName: ' Acme GmbH ', legalAddress: 'Hauptstr. 1\n10115 Berlin\nGermany', vatId: 'DE123456789' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ taxForms: 'require', legalName: 'Acme GmbH', legalAddress: 'Hauptstr. 1\n10115 Berlin\nGermany', vatId: 'DE123456789' });
    const [row] = await keyed.sql`select tax_forms, legal_name, vat_id from settings`;
    expect(row).toEqual({ tax_forms: 'require', legal_name: 'Acme GmbH', vat_id: 'DE123456789' });
    expect((await keyed.api('PATCH', '/v1/settings', { body: { vatId: null, taxForms: 'off' } })).body).toMatchObject({ vatId: null, taxForms: 'off', legalName: 'Acme GmbH' });
  });

  test.each([
    [{ taxForms: 'always' }, 'taxForms'],
    [{ vatId: '123' }, 'vatId'],
    [{ legalName: '' }, 'legalName'],
  ])('%j is a 400 naming the field', async (body, field) => {
    const res = await keyed.api('PATCH', '/v1/settings', { body });
    expect(res.status).toBe(400);
    expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
  });
});
