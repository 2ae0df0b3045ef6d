// Request and response schemas of the tax-profile API and the 1099-NEC export (docs/tax.md).
// One body schema for the three forms: which fields a form takes and needs is checked by
// validate.ts, so that each problem names its field.
import { t } from 'elysia';
import { ErrorResponse, errors, Timestamp } from '../../lib/http';
import { VatId } from '../settings/model';

export const TAX_CLASSIFICATIONS = ['individual', 'c_corporation', 's_corporation', 'partnership', 'trust_estate', 'llc', 'other'] as const;
export const TAX_FORMS = ['w9', 'w8ben', 'w8bene'] as const;
export type TaxFormKind = (typeof TAX_FORMS)[number];

const Country = (description: string) => t.String({ minLength: 2, maxLength: 2, description: `${description} (ISO 3166-1 alpha-2).`, examples: ['DE'] });
const Text = (max: number, description: string) => t.String({ maxLength: max, description });

export const TaxAddress = t.Object({
  line1: Text(200, 'Street and number.'),
  line2: t.Optional(Text(200, 'Apartment, suite.')),
  city: Text(100, 'City or town.'),
  region: t.Optional(Text(100, 'State (US: the two-letter code, needed), province or region.')),
  postalCode: t.Optional(Text(20, 'ZIP (US: needed, 12345 or 12345-6789) or postal code.')),
  country: Country('w9: US; the W-8 forms: the country of residence, not US'),
});

export const PutTaxProfileBody = t.Object({
  form: t.Union([t.Literal('w9'), t.Literal('w8ben'), t.Literal('w8bene')], { description: 'w9: a US person; w8ben: a foreign individual; w8bene: a foreign entity.' }),
  legalName: Text(200, 'The name on the tax return (w9, w8ben) or of the organisation (w8bene).'),
  businessName: t.Optional(Text(200, 'w9: business name or disregarded entity name, when different.')),
  taxClassification: t.Optional(
    t.Union(TAX_CLASSIFICATIONS.map((c) => t.Literal(c)), { description: 'w9 (needed): the federal tax classification.' }),
  ),
  address: TaxAddress,
  tinType: t.Optional(t.Union([t.Literal('ssn'), t.Literal('ein')], { description: 'w9 (needed).' })),
  tin: t.Optional(t.String({ maxLength: 20, description: 'w9 (needed): SSN NNN-NN-NNNN or EIN NN-NNNNNNN. Stored encrypted; never answered.' })),
  citizenship: t.Optional(Country('w8ben (needed): country of citizenship')),
  dateOfBirth: t.Optional(t.String({ maxLength: 10, description: 'w8ben (needed): YYYY-MM-DD. Stored encrypted; never answered.' })),
  treatyCountry: t.Optional(Country('w8ben: the country whose tax treaty with the US is claimed')),
  incorporationCountry: t.Optional(Country('w8bene (needed): country of incorporation or organisation')),
  foreignTin: t.Optional(t.String({ maxLength: 50, description: 'w8ben, w8bene: the tax id at home. Stored encrypted; never answered.' })),
  vatId: t.Optional(VatId),
  signature: t.Object({
    name: Text(200, 'The signer\'s full name, typed.'),
    agreed: t.Boolean({ description: 'Must be true: the signer agrees to the form\'s certification under penalties of perjury.' }),
  }),
});
export type PutTaxProfileInput = typeof PutTaxProfileBody.static;

export const TaxProfileView = t.Object({
  partnerId: t.String(),
  form: t.Union([t.Literal('w9'), t.Literal('w8ben'), t.Literal('w8bene')]),
  legalName: t.String(),
  businessName: t.Nullable(t.String()),
  taxClassification: t.Nullable(t.String()),
  address: t.Object({
    line1: t.String(),
    line2: t.Nullable(t.String()),
    city: t.String(),
    region: t.Nullable(t.String()),
    postalCode: t.Nullable(t.String()),
    country: t.String(),
  }),
  tinType: t.Union([t.Literal('ssn'), t.Literal('ein'), t.Null()]),
  tinLast4: t.Nullable(t.String({ description: 'w9: the last four digits of the TIN; the TIN itself is never answered.', examples: ['6789'] })),
  citizenship: t.Nullable(t.String()),
  treatyCountry: t.Nullable(t.String()),
  incorporationCountry: t.Nullable(t.String()),
  hasForeignTin: t.Boolean({ description: 'Whether a foreign tax id is on file (it is never answered).' }),
  vatId: t.Nullable(t.String()),
  signatureName: t.String(),
  signedAt: Timestamp,
  signedIp: t.Nullable(t.String({ description: 'The address the form was signed from.' })),
  valid: t.Boolean({ description: 'w9: until replaced; w8ben/w8bene: until the end of the third calendar year after signing.' }),
  validUntil: t.Nullable(t.String({ format: 'date', description: 'W-8 forms: the last day they are valid; null for a W-9.' })),
});
export type TaxProfile = typeof TaxProfileView.static;

export const NecQuery = t.Object({ year: t.String({ pattern: '^[0-9]{4}$', description: 'The calendar year (by payout paidAt, UTC).', examples: ['2026'] }) });

export const TaxResponses = {
  get: { 200: TaxProfileView, ...errors(400, 401, 403, 404) },
  put: { 200: TaxProfileView, ...errors(400, 401, 403, 404, 409, 413) },
};

/** The 1099-NEC CSV's answers, written out by hand (a Response passes by the answer schemas). */
export const NecCsvAnswer = {
  200: {
    description:
      'One row per W-9 payee paid at least 600.00 USD in the year (USD payouts by paidAt, UTC), most paid first, after a header row: ' +
      'partner_id, legal_name, business_name, tin_type, tin, address_line1, address_line2, city, state, postal_code, box1_nonemployee_compensation ' +
      '(dollars, two decimals). The only answer that carries full TINs; each download is logged (`tax.exported`). CRLF line ends.',
    content: { 'text/csv': { schema: { type: 'string' as const }, example: 'partner_id,legal_name,business_name,tin_type,tin,address_line1,address_line2,city,state,postal_code,box1_nonemployee_compensation\r\n' } },
    headers: { 'content-disposition': { description: 'attachment; filename="1099-nec-<year>.csv"', schema: { type: 'string' as const } } },
  },
  ...Object.fromEntries(
    [400, 401, 403, 409, 500].map((status) => [status, { description: ErrorResponse.description, content: { 'application/json': { schema: ErrorResponse } } }]),
  ),
};

export const InvoiceParams = t.Object({ id: t.String({ maxLength: 64 }) });

/** The invoice PDF's answers. */
export const InvoicePdfAnswer = {
  200: {
    description: 'The self-billing invoice of a paid payout, as PDF: its number and date, the program (customer) and partner (supplier) with addresses and VAT ids, commissions by campaign, clawbacks, total and currency, and the reverse-charge note for cross-border EU B2B.',
    content: { 'application/pdf': { schema: { type: 'string' as const, format: 'binary' } } },
    headers: { 'content-disposition': { description: 'inline; filename="<invoice number>.pdf"', schema: { type: 'string' as const } } },
  },
  ...Object.fromEntries(
    [400, 401, 403, 404, 500].map((status) => [status, { description: ErrorResponse.description, content: { 'application/json': { schema: ErrorResponse } } }]),
  ),
};
