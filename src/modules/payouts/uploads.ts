// Paying by upload: the pending payouts of a rail as the file its provider takes. Wise's batch
// payment file (GET /v1/payouts.csv?format=wise) and PayPal's payouts upload file (format=paypal),
// one row per pending payout of that rail, the payout id as the payment's reference, so the settle
// call (POST /v1/payouts/settle) can name each one afterwards.
import type { Sql } from '../../db';
import { csvStream } from '../../lib/csv';
import { formatMinor } from '../../lib/money';

export const UPLOAD_FORMATS = ['wise', 'paypal'] as const;
export type UploadFormat = (typeof UPLOAD_FORMATS)[number];

export const WISE_COLUMNS = ['name', 'recipientEmail', 'paymentReference', 'receiverType', 'amountCurrency', 'amount', 'sourceCurrency', 'targetCurrency'] as const;
export const PAYPAL_COLUMNS = ['recipient', 'amount', 'currency', 'reference_id', 'note', 'wallet'] as const;

type Row = { id: string; partner_name: string; destination: string | null; currency: string; amount: bigint };

export function uploadCsv(sql: Sql, format: UploadFormat, filter: { partnerId?: string; currency?: string }): ReadableStream<Uint8Array> {
  return csvStream<Row>({
    header: format === 'wise' ? WISE_COLUMNS : PAYPAL_COLUMNS,
    page: (after, limit) => sql<Row[]>`
      select p.id, pt.name as partner_name, p.destination, p.currency, p.amount
      from payouts p join partners pt on pt.id = p.partner_id
      where p.provider = ${format} and p.status = 'pending'
        ${filter.partnerId ? sql`and p.partner_id = ${filter.partnerId}` : sql``}
        ${filter.currency ? sql`and p.currency = ${filter.currency}` : sql``}
        ${after ? sql`and p.id > ${after.id}` : sql``}
      order by p.id
      limit ${limit}`,
    cells: (r) => {
      const amount = formatMinor(r.amount, r.currency);
      return format === 'wise'
        ? [r.partner_name, r.destination, r.id, 'PERSON', 'source', amount, r.currency, r.currency]
        : [r.destination, amount, r.currency, r.id, `Partner payout ${r.id}`, 'PayPal'];
    },
  });
}
