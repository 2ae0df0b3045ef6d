// What a self-billing invoice says (DESIGN.md): the program as the customer who issues it, the
// partner as the supplier, the paid payout's commissions by campaign, the clawbacks it netted, the
// total, and the reverse-charge note for cross-border EU B2B. Drawn by invoice-pdf.ts.
import type { Tx } from '../../db';
import { countryName, euVatCountry } from './countries';

export type InvoiceParty = { name: string; addressLines: string[]; vatId: string | null };

export type Invoice = {
  number: string;
  date: Date;
  payoutId: string;
  partnerId: string;
  currency: string;
  customer: InvoiceParty;
  supplier: InvoiceParty;
  lines: { campaign: string; count: number; amount: bigint }[];
  clawbacks: { count: number; amount: bigint };
  total: bigint;
  reference: string | null;
  reverseCharge: boolean;
};

/** Whether the reverse-charge note applies: both VAT ids are EU ones, of different member states. */
export function reverseChargeApplies(customerVat: string | null, supplierVat: string | null): boolean {
  const a = euVatCountry(customerVat);
  const b = euVatCountry(supplierVat);
  return a !== null && b !== null && a !== b;
}

type AddressJson = { line1?: string; line2?: string; city?: string; region?: string; postalCode?: string; country?: string };

const addressLines = (a: AddressJson | null) =>
  a ? [a.line1, a.line2, [a.postalCode, a.city, a.region].filter(Boolean).join(' '), a.country ? countryName(a.country) : undefined].filter((l): l is string => !!l && l.trim() !== '') : [];

/** The invoice of a paid payout; null when the payout is unknown or not paid (it has no invoice). */
export async function readInvoice(sql: Tx, payoutId: string): Promise<Invoice | null> {
  const [p] = await sql<
    {
      id: string; partner_id: string; currency: string; amount: bigint; clawbacks_amount: bigint; clawback_count: number; invoice_number: string | null;
      paid_at: Date | null; provider_reference: string | null; partner_name: string; legal_name: string | null; address: AddressJson | null;
      partner_vat: string | null; program_name: string; program_legal_name: string | null; program_address: string | null; program_vat: string | null;
    }[]
  >`
    select y.id, y.partner_id, y.currency, y.amount, y.clawbacks_amount, y.clawback_count, y.invoice_number, y.paid_at, y.provider_reference,
      p.name as partner_name, t.legal_name, t.address, t.vat_id as partner_vat,
      s.program_name, s.legal_name as program_legal_name, s.legal_address as program_address, s.vat_id as program_vat
    from payouts y join partners p on p.id = y.partner_id left join tax_profiles t on t.partner_id = y.partner_id cross join settings s
    where y.id = ${payoutId} and y.status = 'paid'`;
  if (!p || !p.invoice_number || !p.paid_at) return null;
  const lines = await sql<{ campaign: string; n: number; amount: bigint }[]>`
    select coalesce(c.name, k.campaign_id) as campaign, count(*)::int as n, sum(k.amount)::bigint as amount
    from commissions k left join campaigns c on c.id = k.campaign_id
    where k.payout_id = ${payoutId}
    group by 1 order by 1`;
  return {
    number: p.invoice_number,
    date: p.paid_at,
    payoutId: p.id,
    partnerId: p.partner_id,
    currency: p.currency,
    customer: { name: p.program_legal_name ?? p.program_name, addressLines: (p.program_address ?? '').split('\n').map((l) => l.trim()).filter(Boolean), vatId: p.program_vat },
    supplier: { name: p.legal_name ?? p.partner_name, addressLines: addressLines(p.address), vatId: p.partner_vat },
    lines: lines.map((l) => ({ campaign: l.campaign, count: l.n, amount: l.amount })),
    clawbacks: { count: p.clawback_count, amount: p.clawbacks_amount },
    total: p.amount,
    reference: p.provider_reference,
    reverseCharge: reverseChargeApplies(p.program_vat, p.partner_vat),
  };
}
