// A first read of the commissions file, before anything is written: what the customers and the
// paid payouts need to know ahead of the commissions themselves. Only two maps are kept, never the
// rows, so memory stays flat whatever the file's size.
//
// - Each customer's first sale, the time of its earliest commission. The imported referral starts
//   there, so that sale is the customer's conversion, as a referral started by a sale here makes it
//   (docs/analytics.md, "Conversions"); started when the old platform created the referral, no
//   imported sale would ever be one.
// - The time of each partner's last paid commission in each currency. It names (is the time of) the
//   paid payout those commissions go into, so the payout's id is minted before its commissions are
//   written and each commission is written paid and in its payout, not updated afterwards.
import { readCsv } from './csv';
import { RowProblem, type ImportedCommission } from './rows';
import type { FileSpec } from './sources';

export type CommissionsAhead = {
  /** customer source id -> its first sale (ms since the epoch) */
  firstSales: Map<string, number>;
  /** payoutKey(partner source id, currency) -> its last paid commission's payment (ms) */
  lastPaid: Map<string, number>;
};

export const payoutKey = (partnerSourceId: string, currency: string): string => `${partnerSourceId}\u0000${currency}`;

/**
 * Reads `stream` as the commissions file once. A row the real read will report (RowProblem) is
 * passed over here; a file it cannot read at all throws its CsvFileError now, before any write.
 * `clock` stands in for a missing creation time, as it does when the commission is written.
 */
export async function readCommissionsAhead(spec: FileSpec<ImportedCommission>, stream: ReadableStream<Uint8Array>, clock: Date): Promise<CommissionsAhead> {
  const firstSales = new Map<string, number>();
  const lastPaid = new Map<string, number>();
  for await (const { cells } of readCsv(spec.file, stream, spec.required)) {
    let row: ImportedCommission;
    try {
      row = spec.read(cells);
    } catch (error) {
      if (error instanceof RowProblem) continue;
      throw error;
    }
    const at = (row.createdAt ?? clock).getTime();
    if (row.customerSourceId !== null) {
      const first = firstSales.get(row.customerSourceId);
      if (first === undefined || at < first) firstSales.set(row.customerSourceId, at);
    }
    if (row.status === 'paid') {
      const key = payoutKey(row.partnerSourceId, row.currency);
      const paid = row.paidAt?.getTime() ?? at;
      const last = lastPaid.get(key);
      if (last === undefined || paid > last) lastPaid.set(key, paid);
    }
  }
  return { firstSales, lastPaid };
}
