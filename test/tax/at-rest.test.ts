// A dump of the database shows neither a TIN nor a date of birth: they are sealed before they are
// written (docs/tax.md, "Keys and rotation"). pg_dump of the test's own database, as a backup would be.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { startService, type TestService } from '../support/service';
import { W9 } from './forms';

let svc: TestService;
beforeAll(async () => {
  svc = await startService({ ENCRYPTION_KEY: randomBytes(32).toString('base64') });
}, 60_000);
afterAll(() => svc.stop());

/** The database as pg_dump writes it; COPY of every table when this pg_dump is older than the server. */
async function dump(): Promise<string> {
  const out = spawnSync('pg_dump', ['--no-owner', '--data-only', svc.config.databaseUrl!], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (out.status === 0) return out.stdout;
  if (!/server version mismatch/.test(out.stderr)) throw new Error(`pg_dump failed: ${out.stderr}`);
  const tables = await svc.sql<{ name: string }[]>`select quote_ident(tablename) as name from pg_tables where schemaname = 'public'`;
  const parts: string[] = [];
  for (const { name } of tables) {
    // a header naming the table, as pg_dump's COPY lines do; the select form reads partitioned tables (clicks) too
    parts.push(`\n-- ${name}\n`);
    for await (const chunk of await svc.sql.unsafe(`copy (select * from ${name}) to stdout`).readable()) parts.push(chunk.toString());
  }
  return parts.join('');
}

test('a dump of the database holds neither TINs nor dates of birth, in any spelling', async () => {
  const ids: string[] = [];
  for (const email of ['us@example.com', 'de@example.com']) ids.push((await svc.api('POST', '/v1/partners', { body: { email, name: 'Payee', sendInvite: false } })).body.id);
  expect((await svc.api('PUT', `/v1/partners/${ids[0]}/tax-profile`, { body: { ...W9, tin: '287-65-4321' } })).status).toBe(200);
  const w8 = {
    form: 'w8ben', legalName: 'Grace Hopper', citizenship: 'DE', dateOfBirth: '1979-08-23', foreignTin: '81872495633',
    address: { line1: 'Hauptstr. 1', city: 'Berlin', country: 'DE' }, signature: { name: 'Grace Hopper', agreed: true },
  };
  expect((await svc.api('PUT', `/v1/partners/${ids[1]}/tax-profile`, { body: w8 })).status).toBe(200);
  const text = await dump();
  expect(text).toContain('tax_profiles');
  expect(text).toContain('Grace Hopper'); // the dump has the rows: what is missing is missing for a reason
  for (const secret of ['287-65-4321', '287654321', '1979-08-23', '19790823', '81872495633']) expect(text).not.toContain(secret);
  expect(text).toContain('4321'); // the last four, kept readable for the pages
});
