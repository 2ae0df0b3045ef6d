// Tax profiles: a partner's form on file, its secrets sealed (src/lib/secrets.ts) before they are
// written, and read back without them. SQL of the tax_profiles table lives here.
import type { JSONValue } from 'postgres';
import type { Sql, Tx } from '../../db';
import { changesOf, record, type Changes } from '../audit/service';
import { throwFieldProblems } from '../../lib/errors';
import { open, seal, type Keyring } from '../../lib/secrets';
import { iso } from '../../lib/time';
import type { PutTaxProfileInput, TaxFormKind, TaxProfile } from './model';
import { checkTaxForm } from './validate';

/** What binds a sealed value to its row and field (a value copied elsewhere does not open). */
export const sealContext = (partnerId: string, field: 'tin' | 'dateOfBirth' | 'foreignTin') => `${partnerId}:${field}`;

type ProfileRow = {
  partner_id: string;
  form: TaxFormKind;
  legal_name: string;
  business_name: string | null;
  tax_classification: string | null;
  address: { line1: string; line2?: string; city: string; region?: string; postalCode?: string; country: string };
  tin_type: 'ssn' | 'ein' | null;
  tin_last4: string | null;
  citizenship: string | null;
  treaty_country: string | null;
  incorporation_country: string | null;
  has_foreign_tin: boolean;
  vat_id: string | null;
  signature_name: string;
  signed_at: Date;
  signed_ip: string | null;
  valid: boolean;
};

// never the sealed columns: a read model cannot leak what it does not select
const VIEW_COLUMNS = (sql: Tx) => sql`
  partner_id, form, legal_name, business_name, tax_classification, address, tin_type, tin_last4, citizenship,
  treaty_country, incorporation_country, foreign_tin_sealed is not null as has_foreign_tin, vat_id, signature_name,
  signed_at, signed_ip, tax_form_valid(form, signed_at) as valid`;

/** The last day a form is valid: W-8 forms to the end of the third calendar year after signing. */
export function validUntil(form: TaxFormKind, signedAt: Date): string | null {
  return form === 'w9' ? null : `${signedAt.getUTCFullYear() + 3}-12-31`;
}

function toProfile(row: ProfileRow): TaxProfile {
  const a = row.address;
  return {
    partnerId: row.partner_id,
    form: row.form,
    legalName: row.legal_name,
    businessName: row.business_name,
    taxClassification: row.tax_classification,
    address: { line1: a.line1, line2: a.line2 ?? null, city: a.city, region: a.region ?? null, postalCode: a.postalCode ?? null, country: a.country },
    tinType: row.tin_type,
    tinLast4: row.tin_last4,
    citizenship: row.citizenship,
    treatyCountry: row.treaty_country,
    incorporationCountry: row.incorporation_country,
    hasForeignTin: row.has_foreign_tin,
    vatId: row.vat_id,
    signatureName: row.signature_name,
    signedAt: iso(row.signed_at)!,
    signedIp: row.signed_ip,
    valid: row.valid,
    validUntil: validUntil(row.form, row.signed_at),
  };
}

/** The partner's form on file, without its secrets; null when there is none. */
export async function readTaxProfile(sql: Tx, partnerId: string): Promise<TaxProfile | null> {
  const [row] = await sql<ProfileRow[]>`select ${VIEW_COLUMNS(sql)} from tax_profiles where partner_id = ${partnerId}`;
  return row ? toProfile(row) : null;
}

/**
 * Checks a form (each bad field a 400 naming it, nothing stored) and puts it on file in place of
 * the partner's earlier one, its TIN, date of birth and foreign TIN sealed under `ring`.
 */
export async function saveTaxProfile(db: Sql, input: { partnerId: string; body: PutTaxProfileInput; ring: Keyring; ip: string | null }): Promise<TaxProfile> {
  const { problems, form: f } = checkTaxForm(input.body);
  throwFieldProblems(problems);
  const id = input.partnerId;
  const sealed = (value: string | undefined, field: 'tin' | 'dateOfBirth' | 'foreignTin') => (value ? seal(input.ring, value, sealContext(id, field)) : null);
  const address = Object.fromEntries(Object.entries(f.address).filter(([, v]) => v !== undefined));
  const row = {
    partner_id: id,
    form: f.form,
    legal_name: f.legalName,
    business_name: f.form === 'w9' ? (f.businessName ?? null) : null,
    tax_classification: f.form === 'w9' ? (f.taxClassification ?? null) : null,
    address: db.json(address as JSONValue),
    tin_type: f.form === 'w9' ? (f.tinType ?? null) : null,
    tin_sealed: f.form === 'w9' ? sealed(f.tin, 'tin') : null,
    tin_last4: f.form === 'w9' ? (f.tinDigits?.slice(-4) ?? null) : null,
    citizenship: f.form === 'w8ben' ? (f.citizenship ?? null) : null,
    date_of_birth_sealed: f.form === 'w8ben' ? sealed(f.dateOfBirth?.trim(), 'dateOfBirth') : null,
    treaty_country: f.form === 'w8ben' ? (f.treatyCountry ?? null) : null,
    incorporation_country: f.form === 'w8bene' ? (f.incorporationCountry ?? null) : null,
    foreign_tin_sealed: f.form === 'w9' ? null : sealed(f.foreignTin, 'foreignTin'),
    vat_id: f.vatId ?? null,
    signature_name: f.signature.name,
    signed_ip: input.ip,
  };
  const columns = Object.keys(row) as (keyof typeof row)[];
  return db.begin(async (sql) => {
    const before = await readTaxProfile(sql, id);
    await sql`
      insert into tax_profiles ${sql(row, columns)}
      on conflict (partner_id) do update set ${sql(row, columns.filter((c) => c !== 'partner_id'))}, signed_at = now()`;
    const after = (await readTaxProfile(sql, id))!;
    await record(sql, { action: before ? 'tax_profile.updated' : 'tax_profile.created', target: { type: 'partner', id }, changes: taxChanges(before, after, f) });
    return after;
  });
}

/** The fields of the form that the audit log shows as they are (never a TIN, date of birth or foreign TIN). */
const TAX_AUDITED = ['form', 'legalName', 'businessName', 'taxClassification', 'address', 'citizenship', 'treatyCountry', 'incorporationCountry', 'vatId', 'signatureName'] as const;

/**
 * What a filed form changed: the plain fields before and after, and for the sealed ones only that
 * a new value was given (they read "[redacted]" in the log; the values never reach it).
 */
function taxChanges(before: TaxProfile | null, after: TaxProfile, given: PutTaxProfileInput): Changes {
  const changes: Changes = { ...changesOf(before as Record<string, unknown> | null, after as Record<string, unknown>, TAX_AUDITED) };
  if (given.form === 'w9' && given.tin) changes.tin = [before?.tinLast4 ? 'on file' : null, 'given'];
  if (given.form === 'w8ben' && given.dateOfBirth) changes.dateOfBirth = [before?.form === 'w8ben' ? 'on file' : null, 'given'];
  if (given.form !== 'w9' && given.foreignTin) changes.foreignTin = [before?.hasForeignTin ? 'on file' : null, 'given'];
  changes.signedAt = [before?.signedAt ?? null, after.signedAt];
  return changes;
}

/** Opens a sealed value of a partner's form (the 1099 export only). */
export function openSecret(ring: Keyring, sealed: string, partnerId: string, field: 'tin' | 'dateOfBirth' | 'foreignTin'): string {
  return open(ring, sealed, sealContext(partnerId, field));
}

/** What the admin pages show about a partner's form: none, valid (until when) or expired. */
export type TaxFormStatus = { form: TaxFormKind; valid: boolean; validUntil: string | null; signedAt: Date; tinLast4: string | null } | null;

/** The form status of each of these partners, by partner id (absent: no form on file). */
export async function taxFormStatuses(sql: Tx, partnerIds: string[]): Promise<Map<string, NonNullable<TaxFormStatus>>> {
  const rows = await sql<{ partner_id: string; form: TaxFormKind; valid: boolean; signed_at: Date; tin_last4: string | null }[]>`
    select partner_id, form, tax_form_valid(form, signed_at) as valid, signed_at, tin_last4
    from tax_profiles where partner_id = any(${partnerIds}::text[])`;
  return new Map(rows.map((r) => [r.partner_id, { form: r.form, valid: r.valid, validUntil: validUntil(r.form, r.signed_at), signedAt: r.signed_at, tinLast4: r.tin_last4 }]));
}

/** The program's taxForms setting. */
export async function taxFormsSetting(sql: Tx): Promise<'off' | 'collect' | 'require'> {
  const [row] = await sql<{ tax_forms: 'off' | 'collect' | 'require' }[]>`select tax_forms from settings`;
  return row?.tax_forms ?? 'off';
}

/**
 * What the portal shows about tax forms for a partner: the setting (the Tax form page is offered
 * unless it is off) and whether their payouts are held for want of a valid form (require, and none
 * valid on file: the rule of the payout run's hold, modules/payouts/routing.ts).
 */
export async function partnerTaxState(sql: Tx, partnerId: string): Promise<{ setting: 'off' | 'collect' | 'require'; held: boolean }> {
  const [row] = await sql<{ tax_forms: 'off' | 'collect' | 'require'; valid: boolean }[]>`
    select s.tax_forms, coalesce(tax_form_valid(t.form, t.signed_at), false) as valid
    from settings s left join tax_profiles t on t.partner_id = ${partnerId}`;
  const setting = row?.tax_forms ?? 'off';
  return { setting, held: setting === 'require' && !row?.valid };
}
