// A payout as stored (PayoutRow, its columns) and as the API answers it (payoutView).
import type { RailName } from '../../../plugins/payouts';
import { iso } from '../../lib/time';
import { formatMinor } from '../../lib/money';
import { PAYOUT_STATUSES, type PayoutRecord } from './model';

export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

/** A payout as the API answers it; amounts in major units as decimal strings. */
export type PayoutView = typeof PayoutRecord.static;

/** What a failed payout held when it failed (payouts.failed_lines); amounts in minor units. */
type FailedLines = {
  commissions: { id: string; amount: number; status: string }[];
  clawbacks: { commissionId: string; amount: number; reason: string }[];
};

/** The columns a PayoutRow holds, for `select ${sql(PAYOUT_COLUMNS)}`. */
export const PAYOUT_COLUMNS = [
  'id', 'partner_id', 'currency', 'amount', 'commissions_amount', 'clawbacks_amount', 'commission_count', 'clawback_count',
  'status', 'provider', 'provider_reference', 'failure_reason', 'failed_lines', 'created_at', 'paid_at', 'failed_at',
  'destination', 'rail_batch', 'provider_answer', 'processing_at', 'invoice_number',
] as const;

export type PayoutRow = {
  id: string;
  partner_id: string;
  currency: string;
  amount: bigint;
  commissions_amount: bigint;
  clawbacks_amount: bigint;
  commission_count: number;
  clawback_count: number;
  status: PayoutStatus;
  provider: string;
  provider_reference: string | null;
  failure_reason: string | null;
  failed_lines: FailedLines | null;
  created_at: Date;
  paid_at: Date | null;
  failed_at: Date | null;
  destination: string | null;
  rail_batch: string | null;
  provider_answer: string | null;
  processing_at: Date | null;
  /** The self-billing invoice number, given when it became paid (docs/tax.md). */
  invoice_number: string | null;
};

export function payoutView(row: Omit<PayoutRow, 'failed_lines' | 'destination' | 'rail_batch'>): PayoutView {
  const currency = row.currency;
  return {
    id: row.id,
    partnerId: row.partner_id,
    currency,
    amount: formatMinor(row.amount, currency),
    commissionsAmount: formatMinor(row.commissions_amount, currency),
    clawbacksAmount: formatMinor(row.clawbacks_amount, currency),
    commissionCount: row.commission_count,
    clawbackCount: row.clawback_count,
    status: row.status,
    provider: row.provider as RailName,
    providerReference: row.provider_reference ?? null,
    failureReason: row.failure_reason ?? null,
    providerAnswer: row.provider_answer ?? null,
    createdAt: iso(row.created_at)!,
    processingAt: iso(row.processing_at),
    paidAt: iso(row.paid_at),
    failedAt: iso(row.failed_at),
    invoiceNumber: row.invoice_number ?? null,
  };
}
