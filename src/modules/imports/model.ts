// Request and response schemas of POST /v1/imports (DESIGN.md "Moving in from another platform").
import { t } from 'elysia';
import { errors } from '../../lib/http';
import { IMPORT_SOURCES } from './rows';

const file = (description: string) => t.Optional(t.String({ format: 'binary', description }));

/** The multipart form: the source, the switches, and the source's files under their own names. */
export const ImportForm = t.Object({
  source: t.Union(IMPORT_SOURCES.map((s) => t.Literal(s)), { description: 'The platform the files were exported from.' }),
  dryRun: t.Optional(t.Union([t.Literal('true'), t.Literal('false')], { description: '"true": check and count everything, write nothing. Default "false".' })),
  campaignId: t.Optional(t.String({ maxLength: 64, description: 'The campaign the partners join; default: the only current campaign.' })),
  invite: t.Optional(t.Union([t.Literal('true'), t.Literal('false')], { description: '"true": new partners get the magic-link invite (pending until they accept); default: active, no email.' })),
  'affiliates.csv': file('rewardful'),
  'promoters.csv': file('firstpromoter'),
  'partners.csv': file('tolt, partnerstack'),
  'referrals.csv': file('rewardful, firstpromoter'),
  'customers.csv': file('tolt, partnerstack'),
  'commissions.csv': file('rewardful, firstpromoter, tolt'),
  'rewards.csv': file('partnerstack'),
});

export const ImportRequestBody = { required: true, content: { 'multipart/form-data': { schema: ImportForm } } };

const Count = (what: string) => t.Integer({ minimum: 0, description: what });

export const ImportReportRecord = t.Object({
  dryRun: t.Boolean({ description: 'True: nothing was written; the counts are what the import would create.' }),
  counts: t.Object({
    partners: Count('Partners created (an email already here joins that partner, not counted).'),
    links: Count('Share links made from the old referral tokens.'),
    customers: Count('Customers attributed to their partner (sticky referrals).'),
    commissions: Count('Commissions written, in their mapped state.'),
    payouts: Count('Paid payouts (provider "import") holding the paid history, one per partner and currency.'),
  }),
  skipped: Count('Rows an earlier import of this source already brought: nothing written for them.'),
  problems: t.Array(
    t.Object({ file: t.String(), line: t.Integer({ minimum: 0 }), reason: t.String() }),
    { description: 'Every row not imported, with its file, line and why (at most 10,000 listed); the other rows were imported.' },
  ),
  problemCount: Count('How many problem rows there were in all.'),
});

export const ImportResponses = { create: { 200: ImportReportRecord, ...errors(400, 401, 403, 413, 415) } };
