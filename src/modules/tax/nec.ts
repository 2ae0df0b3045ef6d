// The 1099-NEC figures of a calendar year (DESIGN.md): per W-9 payee, the USD payouts paid in that
// year (by paid_at, UTC), for those at 600.00 USD or more. The admin page's totals and the CSV read
// this one query, so they cannot disagree.
import { inTransaction, type Tx } from '../../db';
import { csvCell } from '../../lib/csv';
import { SecretUnreadable, type Keyring } from '../../lib/secrets';
import { formatMinor } from '../../lib/money';
import { AppError } from '../../lib/errors';
import { record } from '../audit/service';
import { openSecret } from './service';

/** The threshold of box 1, in cents: 600.00 USD. */
export const NEC_THRESHOLD_CENTS = 60_000n;

export const NEC_COLUMNS = [
  'partner_id',
  'legal_name',
  'business_name',
  'tin_type',
  'tin',
  'address_line1',
  'address_line2',
  'city',
  'state',
  'postal_code',
  'box1_nonemployee_compensation',
] as const;

/** A payee's year: paid in USD, their form on file (or none), and whether they go in the 1099 file. */
export type NecPayee = {
  partnerId: string;
  partnerName: string;
  paidCents: bigint;
  payoutCount: number;
  form: 'w9' | 'w8ben' | 'w8bene' | null;
  legalName: string | null;
  businessName: string | null;
  tinType: 'ssn' | 'ein' | null;
  tinLast4: string | null;
  tinSealed: string | null;
  address: { line1?: string; line2?: string; city?: string; region?: string; postalCode?: string } | null;
  /** In the 1099-NEC file: a W-9 payee paid at least 600.00 USD. */
  reportable: boolean;
};

/** Every partner paid in USD in `year`, most paid first, with their form on file. */
export async function necPayees(sql: Tx, year: number): Promise<NecPayee[]> {
  const from = new Date(Date.UTC(year, 0, 1));
  const to = new Date(Date.UTC(year + 1, 0, 1));
  const rows = await sql<
    {
      partner_id: string; name: string; paid: bigint; n: number; form: NecPayee['form']; legal_name: string | null; business_name: string | null;
      tin_type: NecPayee['tinType']; tin_last4: string | null; tin_sealed: string | null; address: NecPayee['address'];
    }[]
  >`
    with paid as (
      select partner_id, sum(amount)::bigint as paid, count(*)::int as n from payouts
      where status = 'paid' and currency = 'USD' and paid_at >= ${from} and paid_at < ${to}
      group by partner_id
    )
    select p.id as partner_id, p.name, x.paid, x.n, t.form, t.legal_name, t.business_name, t.tin_type, t.tin_last4, t.tin_sealed, t.address
    from paid x join partners p on p.id = x.partner_id left join tax_profiles t on t.partner_id = x.partner_id
    order by x.paid desc, p.id`;
  return rows.map((r) => ({
    partnerId: r.partner_id,
    partnerName: r.name,
    paidCents: r.paid,
    payoutCount: r.n,
    form: r.form,
    legalName: r.legal_name,
    businessName: r.business_name,
    tinType: r.tin_type,
    tinLast4: r.tin_last4,
    tinSealed: r.tin_sealed,
    address: r.address,
    reportable: r.form === 'w9' && r.paid >= NEC_THRESHOLD_CENTS,
  }));
}

/**
 * The CSV's rows for `year`: the reportable payees with their full TIN, opened with `ring`. A TIN
 * that no key of the ring opens stops the export (409) naming the partners whose form to collect again.
 */
export async function necRows(sql: Tx, ring: Keyring, year: number): Promise<string[][]> {
  const payees = (await necPayees(sql, year)).filter((p) => p.reportable);
  const unreadable: string[] = [];
  const rows = payees.map((p) => {
    let tin = '';
    try {
      tin = openSecret(ring, p.tinSealed!, p.partnerId, 'tin');
    } catch (error) {
      if (!(error instanceof SecretUnreadable)) throw error;
      unreadable.push(p.partnerId);
    }
    const a = p.address ?? {};
    return [p.partnerId, p.legalName ?? '', p.businessName ?? '', p.tinType ?? '', tin, a.line1 ?? '', a.line2 ?? '', a.city ?? '', a.region ?? '', a.postalCode ?? '', formatMinor(p.paidCents, 'USD')];
  });
  if (unreadable.length > 0) {
    throw new AppError('conflict', `the TINs of ${unreadable.join(', ')} cannot be decrypted with ENCRYPTION_KEY or ENCRYPTION_KEY_PREVIOUS: restore the key that sealed them, or collect their W-9 again`, { partnerIds: unreadable });
  }
  return rows;
}

/**
 * The year's 1099-NEC file as CSV text (header row, CRLF line ends), and its `tax.exported` audit
 * entry (who, which year, how many rows; never a TIN) written in the same transaction: a download
 * that is answered is a download that is logged. The API and the admin's Tax page both call this.
 */
export async function exportNecCsv(sql: Tx, ring: Keyring, year: number): Promise<{ csv: string; rows: number }> {
  return inTransaction(sql, async (tx) => {
    const rows = await necRows(tx, ring, year);
    await record(tx, { action: 'tax.exported', target: { type: 'tax_year', id: `1099-nec-${year}` }, changes: { form: [null, '1099-nec'], year: [null, year], rows: [null, rows.length] } });
    return { csv: [NEC_COLUMNS, ...rows].map((r) => r.map(csvCell).join(',')).join('\r\n') + '\r\n', rows: rows.length };
  });
}
