// The rules of a tax form (DESIGN.md "Tax profiles"): which fields each form takes and needs, SSN
// and EIN rules, ISO country codes, a real date of birth. Used by the API and the portal's form, so
// both name the same problems; the portal's script (src/web/assets/tax-form.js) mirrors these
// rules and messages for as-you-type hints (test/web/portal-tax.test.ts holds it to them), but this
// file decides.
import type { FieldProblem } from '../../lib/errors';
import { isCountry } from './countries';
import type { PutTaxProfileInput, TaxFormKind } from './model';

/** What is stored after the rules passed: trimmed text, the TIN in its dashed form. */
export type CheckedTaxForm = PutTaxProfileInput & { tinDigits?: string };

// the fields each form takes beyond the common ones (legalName, address, vatId, signature)
const FORM_FIELDS: Record<TaxFormKind, string[]> = {
  w9: ['businessName', 'taxClassification', 'tinType', 'tin'],
  w8ben: ['citizenship', 'dateOfBirth', 'treatyCountry', 'foreignTin'],
  w8bene: ['incorporationCountry', 'foreignTin'],
};
const NEEDED: Record<TaxFormKind, string[]> = {
  w9: ['taxClassification', 'tinType', 'tin'],
  w8ben: ['citizenship', 'dateOfBirth'],
  w8bene: ['incorporationCountry'],
};
const FORM_LABEL: Record<TaxFormKind, string> = { w9: 'a W-9', w8ben: 'a W-8BEN', w8bene: 'a W-8BEN-E' };

/** An SSN's problem, or null: NNN-NN-NNNN, no area 000, 666 or 9xx, no group 00, no serial 0000. */
export function ssnProblem(text: string): string | null {
  const m = /^(\d{3})-?(\d{2})-?(\d{4})$/.exec(text);
  if (!m) return 'must be an SSN, NNN-NN-NNNN';
  const [, area, group, serial] = m;
  if (area === '000' || area === '666' || area!.startsWith('9')) return 'is not a valid SSN: it cannot start with 000, 666 or 9';
  if (group === '00') return 'is not a valid SSN: its middle two digits cannot be 00';
  if (serial === '0000') return 'is not a valid SSN: its last four digits cannot be 0000';
  return null;
}

// EIN prefixes the IRS has never assigned
const UNUSED_EIN_PREFIXES = new Set(['00', '07', '08', '09', '17', '18', '19', '28', '29', '49', '69', '70', '78', '79', '89', '96', '97']);

/** An EIN's problem, or null: NN-NNNNNNN with a prefix the IRS assigns. */
export function einProblem(text: string): string | null {
  const m = /^(\d{2})-?(\d{7})$/.exec(text);
  if (!m) return 'must be an EIN, NN-NNNNNNN';
  if (UNUSED_EIN_PREFIXES.has(m[1]!)) return `is not a valid EIN: no EIN starts with ${m[1]}`;
  return null;
}

/** A date of birth's problem, or null: a real YYYY-MM-DD day, in the past, after 1900. */
export function birthDateProblem(text: string, today = new Date()): string | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return 'must be a date, YYYY-MM-DD';
  const date = new Date(`${text}T00:00:00Z`);
  if (Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== text) return 'is not a real date';
  if (text < '1900-01-01' || date > today) return 'must be a date in the past, after 1900';
  return null;
}

const blank = (v: string | undefined) => v === undefined || v.trim() === '';
const digitsOf = (v: string) => v.replace(/-/g, '');

/**
 * Checks a form against its rules. Answers every problem, each naming its field, or the form with
 * its text trimmed and the TIN written NNN-NN-NNNN / NN-NNNNNNN.
 */
export function checkTaxForm(input: PutTaxProfileInput, today = new Date()): { problems: FieldProblem[]; form: CheckedTaxForm } {
  const problems: FieldProblem[] = [];
  const add = (field: string, message: string) => problems.push({ field, message });
  const form = input.form;
  const record = input as Record<string, unknown>;
  for (const [other, fields] of Object.entries(FORM_FIELDS)) {
    if (other === form) continue;
    for (const f of fields) if (record[f] !== undefined && !FORM_FIELDS[form].includes(f)) add(f, `is not part of ${FORM_LABEL[form]}`);
  }
  for (const f of NEEDED[form]) if (record[f] === undefined || (typeof record[f] === 'string' && blank(record[f] as string))) add(f, `is needed for ${FORM_LABEL[form]}`);

  const text = (field: string, value: string | undefined, needed: boolean) => {
    if (value === undefined) return undefined;
    const trimmed = value.trim();
    if (needed && trimmed === '') add(field, 'must not be empty');
    return trimmed === '' ? undefined : trimmed;
  };
  const out: CheckedTaxForm = {
    ...input,
    legalName: text('legalName', input.legalName, true) ?? '',
    businessName: text('businessName', input.businessName, false),
    foreignTin: text('foreignTin', input.foreignTin, false),
    signature: { name: text('signature.name', input.signature.name, true) ?? '', agreed: input.signature.agreed },
    address: {
      line1: text('address.line1', input.address.line1, true) ?? '',
      line2: text('address.line2', input.address.line2, false),
      city: text('address.city', input.address.city, true) ?? '',
      region: text('address.region', input.address.region, false),
      postalCode: text('address.postalCode', input.address.postalCode, false),
      country: input.address.country.toUpperCase(),
    },
  };
  if (input.signature.agreed !== true) add('signature.agreed', 'must be true: the form is signed by agreeing to its certification under penalties of perjury');

  const country = out.address.country;
  if (!isCountry(country)) add('address.country', 'must be an ISO 3166-1 alpha-2 country code, such as US or DE');
  else if (form === 'w9' && country !== 'US') add('address.country', 'must be US for a W-9 (persons outside the US use a W-8BEN or W-8BEN-E)');
  else if (form !== 'w9' && country === 'US') add('address.country', `cannot be US for ${FORM_LABEL[form]}: US persons use a W-9`);
  if (form === 'w9') {
    if (!out.address.region || !/^[A-Za-z]{2}$/.test(out.address.region)) add('address.region', 'must be the two-letter state code for a US address, such as CA');
    else out.address.region = out.address.region.toUpperCase();
    if (!out.address.postalCode || !/^\d{5}(-\d{4})?$/.test(out.address.postalCode)) add('address.postalCode', 'must be a ZIP code, 12345 or 12345-6789');
  }
  for (const f of ['citizenship', 'treatyCountry', 'incorporationCountry'] as const) {
    const value = input[f];
    if (value === undefined || !FORM_FIELDS[form].includes(f)) continue;
    const code = value.toUpperCase();
    if (!isCountry(code)) add(f, 'must be an ISO 3166-1 alpha-2 country code, such as DE');
    else out[f] = code;
  }
  // the API's schema checks it too; the portal's form reaches these rules without that schema
  if (input.vatId !== undefined && !/^[A-Z]{2}[A-Za-z0-9+*.]{2,13}$/.test(input.vatId.trim())) add('vatId', 'must be a VAT id with its country prefix, such as DE123456789');
  if (form === 'w8ben' && out.treatyCountry === 'US') add('treatyCountry', 'must be the other country of the treaty, not US');

  if (form === 'w9' && input.tin !== undefined && !blank(input.tin) && input.tinType !== undefined) {
    const tin = input.tin.trim();
    const problem = input.tinType === 'ssn' ? ssnProblem(tin) : einProblem(tin);
    if (problem) add('tin', problem);
    else {
      const digits = digitsOf(tin);
      out.tin = input.tinType === 'ssn' ? `${digits.slice(0, 3)}-${digits.slice(3, 5)}-${digits.slice(5)}` : `${digits.slice(0, 2)}-${digits.slice(2)}`;
      out.tinDigits = digits;
    }
  }
  if (form === 'w8ben' && input.dateOfBirth !== undefined && !blank(input.dateOfBirth)) {
    const problem = birthDateProblem(input.dateOfBirth.trim(), today);
    if (problem) add('dateOfBirth', problem);
  }
  // one problem per field, the first
  const seen = new Set<string>();
  return { problems: problems.filter((p) => !seen.has(p.field) && seen.add(p.field)), form: out };
}
