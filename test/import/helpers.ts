// Posting an export folder to POST /v1/imports, and reading back what an import wrote.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestService } from '../support/service';

export const FIXTURES = join(import.meta.dir, 'fixtures');

/** The export folder's files (every file in it, or the ones named) as a multipart form with `fields`. */
export function formOf(dir: string, fields: Record<string, string>, only?: string[]): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  for (const name of only ?? readdirSync(dir)) form.set(name, new Blob([readFileSync(join(dir, name))]), name);
  return form;
}

export type Report = {
  dryRun: boolean;
  counts: { partners: number; links: number; customers: number; commissions: number; payouts: number };
  skipped: number;
  problems: { file: string; line: number; reason: string }[];
  problemCount: number;
};

export async function postImport(svc: TestService, form: FormData, key = svc.adminKey): Promise<{ status: number; body: any }> {
  const res = await fetch(`${svc.url}/v1/imports`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
  return { status: res.status, body: await res.json() };
}

/** How many rows each table an import writes holds: a dry run or a repeated import must leave them as they were. */
type Counts = { partners: number; links: number; referrals: number; billing_customers: number; events: number; attributions: number; commissions: number; payouts: number; refs: number };

export async function tableCounts(svc: TestService): Promise<Counts> {
  const [row] = await svc.sql<Counts[]>`
    select (select count(*)::int from partners) as partners, (select count(*)::int from links) as links,
           (select count(*)::int from referrals) as referrals, (select count(*)::int from billing_customers) as billing_customers,
           (select count(*)::int from events) as events, (select count(*)::int from attributions) as attributions,
           (select count(*)::int from commissions) as commissions, (select count(*)::int from payouts) as payouts,
           (select count(*)::int from import_refs) as refs`;
  return row!;
}
