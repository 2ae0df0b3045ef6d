// Request and response schemas of the payout routes (the CSV export is documented by hand).
import { t } from 'elysia';
import { ErrorResponse, errors, listOf, PageQuery, QueryEnum, Timestamp } from '../../lib/http';
import { PAYPAL_COLUMNS, UPLOAD_FORMATS, WISE_COLUMNS } from './uploads';

export const PAYOUT_STATUSES = ['pending', 'processing', 'paid', 'failed'] as const;

export const PayoutParams = t.Object({ id: t.String({ maxLength: 64 }) });

const FilterQuery = {
  partnerId: t.Optional(t.String({ maxLength: 64 })),
  status: QueryEnum(PAYOUT_STATUSES),
  currency: t.Optional(t.String({ pattern: '^[A-Za-z]{3}$', description: 'ISO 4217 code.' })),
};

export const ListPayoutsQuery = t.Object({ ...FilterQuery, ...PageQuery });
export const CsvQuery = t.Object({
  ...FilterQuery,
  format: QueryEnum(UPLOAD_FORMATS, {
    description: "`wise`: Wise's batch payment file, `paypal`: PayPal's payouts upload file, each of that rail's pending payouts (status is then ignored); unset: the export of every payout.",
  }),
});

/** POST /v1/payouts/settle: 1-1,000 payouts settled at once, all or nothing. */
export const SettleBody = t.Object({
  payouts: t.Array(
    t.Object({
      id: t.String({ maxLength: 64 }),
      status: t.UnionEnum(['paid', 'failed']),
      reference: t.Optional(t.String({ minLength: 1, maxLength: 255, description: 'paid: the transfer at the provider, e.g. the Wise or PayPal transaction id.' })),
      reason: t.Optional(t.String({ minLength: 1, maxLength: 500, pattern: '\\S', description: 'failed: why (required).' })),
    }),
    { minItems: 1, maxItems: 1000 },
  ),
});

export const FailBody = t.Object({ reason: t.String({ minLength: 1, maxLength: 500, pattern: '\\S' }) });
export const PaidBody = t.Optional(t.Object({ reference: t.Optional(t.String({ minLength: 1, maxLength: 255 })) }));

// ---- answers

const Amount = t.String({ pattern: '^-?[0-9]+(\\.[0-9]+)?$', description: 'Decimal string in major units, e.g. "12.50".', examples: ['12.50'] });
const Count = t.Number({ multipleOf: 1, minimum: 0 });

/** A payout: per partner and currency, the approved commissions minus the clawbacks it netted. */
export const PayoutRecord = t.Object({
  id: t.String({ examples: ['pay_01jd8x0000000000000000000a'] }),
  partnerId: t.String(),
  currency: t.String({ description: 'ISO 4217 code.', examples: ['USD'] }),
  amount: Amount,
  commissionsAmount: Amount,
  clawbacksAmount: Amount,
  commissionCount: Count,
  clawbackCount: Count,
  status: t.UnionEnum(PAYOUT_STATUSES),
  provider: t.UnionEnum(['stripe', 'paypal', 'wise', 'manual'], { description: "The rail that pays it, from the partner's payout method when it was made." }),
  providerReference: t.Nullable(
    t.String({ description: 'The rail\'s reference: a Stripe transfer id, a PayPal batch id, or the reference given when it was settled by hand.' }),
  ),
  failureReason: t.Nullable(t.String()),
  providerAnswer: t.Nullable(t.String({ description: "The rail's last word on it, in the rail's own terms (an error, a PayPal item status)." })),
  createdAt: Timestamp,
  processingAt: t.Nullable(t.String({ format: 'date-time', description: 'When a rail took it (status processing); null when it never did.' })),
  paidAt: t.Nullable(Timestamp),
  failedAt: t.Nullable(Timestamp),
  invoiceNumber: t.Nullable(t.String({ description: 'The self-billing invoice number, given when the payout became paid: INVOICE_PREFIX-year-sequence, gapless per year. GET /v1/payouts/:id/invoice.pdf draws it.', examples: ['PD-2026-000042'] })),
});

const FAILED_ONLY = 'Absent on the lines of a failed payout (kept as they were when it failed).';

/** A commission the payout paid (or held, when it failed). */
const CommissionLine = t.Object({
  id: t.String(),
  amount: Amount,
  campaignId: t.Optional(t.String({ description: FAILED_ONLY })),
  eventType: t.Optional(t.String({ description: FAILED_ONLY })),
  status: t.Optional(t.String({ description: FAILED_ONLY })),
  createdAt: t.Optional(Timestamp),
  approvedAt: t.Optional(t.Nullable(Timestamp)),
  paidAt: t.Optional(t.Nullable(Timestamp)),
});

/** A clawback the payout netted: a negative line. */
const ClawbackLine = t.Object({
  commissionId: t.String(),
  amount: Amount,
  reason: t.String(),
  createdAt: t.Optional(Timestamp),
});

export const PayoutDetail = t.Composite([
  PayoutRecord,
  t.Object({ commissions: t.Array(CommissionLine), clawbacks: t.Array(ClawbackLine) }),
]);

export const PayoutList = listOf('payouts', PayoutRecord);

export const PayoutRun = t.Object({ payouts: t.Array(PayoutRecord, { description: 'The payouts this run created, by id.' }) });

/** The CSV export answers text/csv, which the generator cannot see: documented here. */
export const CSV_COLUMNS = [
  'payout_id', 'partner_id', 'partner_name', 'partner_email', 'billing_connect_account_id', 'currency', 'amount',
  'commissions_amount', 'clawbacks_amount', 'commission_count', 'status', 'created_at', 'paid_at',
] as const;

/**
 * The OpenAPI responses of GET /v1/payouts.csv, written out: the route answers a Response (a
 * stream), which passes by Elysia's answer schemas, and the generator drops `detail.responses` of a
 * route that declares `response`. So the route declares none and this lists its errors too.
 */
export const CsvAnswer = {
  200: {
    description:
      `One row per payout, newest first, after a header row: ${CSV_COLUMNS.join(', ')}. Amounts in major units; CRLF line ends. ` +
      `With format=wise, Wise's batch payment file (${WISE_COLUMNS.join(', ')}); with format=paypal, PayPal's payouts upload file ` +
      `(${PAYPAL_COLUMNS.join(', ')}): the rail's pending payouts, oldest first, the payout id as the payment reference.`,
    content: { 'text/csv': { schema: { type: 'string' as const }, example: `${CSV_COLUMNS.join(',')}\r\n` } },
    headers: { 'content-disposition': { description: 'attachment; filename="payouts.csv"', schema: { type: 'string' as const } } },
  },
  ...Object.fromEntries(
    [400, 401, 403, 500].map((status) => [status, { description: ErrorResponse.description, content: { 'application/json': { schema: ErrorResponse } } }]),
  ),
};

export const PayoutResponses = {
  run: { 200: PayoutRun, ...errors(400, 401, 403, 409, 413) },
  list: { 200: PayoutList, ...errors(400, 401, 403) },
  get: { 200: PayoutDetail, ...errors(400, 401, 403, 404) },
  markPaid: { 200: PayoutRecord, ...errors(400, 401, 403, 404, 409, 413) },
  markFailed: { 200: PayoutRecord, ...errors(400, 401, 403, 404, 409, 413) },
  settle: { 200: t.Object({ payouts: t.Array(PayoutRecord, { description: 'The payouts settled, in the order given.' }) }), ...errors(400, 401, 403, 404, 409, 413) },
};
