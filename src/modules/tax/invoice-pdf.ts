// Draws a self-billing invoice as PDF with pdfkit (docs/tax.md says why pdfkit). The standard
// Helvetica fonts need no font files, and write WinAnsi text: characters outside it become "?".
import PDFDocument from 'pdfkit';
import { formatMinor } from '../../lib/money';
import type { Invoice, InvoiceParty } from './invoice';

// the characters WinAnsi (Windows-1252) has beyond Latin-1
const WIN_ANSI_EXTRA = new Set('€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ');

/** Text the standard fonts can draw: printable Latin-1 and WinAnsi's extras, others as "?". */
export function drawable(text: string): string {
  return [...text].map((ch) => {
    const code = ch.codePointAt(0)!;
    return (code >= 0x20 && code <= 0x7e) || (code >= 0xa0 && code <= 0xff) || WIN_ANSI_EXTRA.has(ch) ? ch : '?';
  }).join('');
}

const day = (d: Date) => d.toISOString().slice(0, 10);
const money = (minor: bigint, currency: string) => `${formatMinor(minor, currency)} ${currency}`;

export const REVERSE_CHARGE_NOTE =
  'Reverse charge: VAT is to be accounted for by the customer (Article 196 of Council Directive 2006/112/EC).';
export const SELF_BILLING_NOTE = 'Self-billing invoice: issued by the customer on behalf of the supplier, as agreed between them.';

/** The invoice as PDF bytes. */
export function invoicePdf(invoice: Invoice): Promise<Buffer> {
  const doc = new PDFDocument({ size: 'A4', margin: 56, info: { Title: `Invoice ${invoice.number}`, Author: drawable(invoice.customer.name) } });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  const left = 56;
  const width = doc.page.width - 112;

  doc.font('Helvetica-Bold').fontSize(20).text('Self-billing invoice', left, 56);
  doc.font('Helvetica').fontSize(10).fillColor('#444');
  doc.text(`Invoice number: ${invoice.number}`, left, 86);
  doc.text(`Invoice date: ${day(invoice.date)}`);
  doc.text(`Payout: ${invoice.payoutId}${invoice.reference ? ` (reference ${drawable(invoice.reference)})` : ''}`);
  doc.fillColor('black');

  const partyTop = 150;
  party(doc, 'Supplier (partner)', invoice.supplier, left, partyTop, width / 2 - 10);
  party(doc, 'Customer (issuer)', invoice.customer, left + width / 2 + 10, partyTop, width / 2 - 10);

  let y = Math.max(doc.y, partyTop + 110) + 20;
  const amountX = left + width - 120;
  doc.font('Helvetica-Bold').fontSize(10);
  doc.text('Description', left, y);
  doc.text('Amount', amountX, y, { width: 120, align: 'right' });
  y += 16;
  doc.moveTo(left, y).lineTo(left + width, y).strokeColor('#999').stroke();
  y += 8;
  doc.font('Helvetica');
  const row = (label: string, amount: string) => {
    doc.text(label, left, y, { width: amountX - left - 10 });
    doc.text(amount, amountX, y, { width: 120, align: 'right' });
    y = Math.max(doc.y, y + 14) + 4;
  };
  for (const line of invoice.lines) {
    row(`Commissions, campaign ${drawable(line.campaign)} (${line.count} ${line.count === 1 ? 'commission' : 'commissions'})`, money(line.amount, invoice.currency));
  }
  if (invoice.clawbacks.count > 0) {
    row(`Clawbacks of earlier paid commissions (${invoice.clawbacks.count})`, `-${money(invoice.clawbacks.amount, invoice.currency)}`);
  }
  doc.moveTo(left, y).lineTo(left + width, y).strokeColor('#999').stroke();
  y += 8;
  doc.font('Helvetica-Bold');
  row('Total', money(invoice.total, invoice.currency));
  doc.font('Helvetica').fontSize(9).fillColor('#444');
  y += 16;
  doc.text(SELF_BILLING_NOTE, left, y, { width });
  if (invoice.reverseCharge) doc.moveDown(0.5).text(REVERSE_CHARGE_NOTE, { width });
  doc.end();
  return done;
}

function party(doc: PDFKit.PDFDocument, title: string, p: InvoiceParty, x: number, y: number, width: number): void {
  doc.font('Helvetica-Bold').fontSize(9).fillColor('#666').text(title.toUpperCase(), x, y, { width });
  doc.fillColor('black').font('Helvetica-Bold').fontSize(11).text(drawable(p.name), x, y + 14, { width });
  doc.font('Helvetica').fontSize(10);
  for (const line of p.addressLines) doc.text(drawable(line), { width });
  if (p.vatId) doc.text(`VAT id: ${drawable(p.vatId)}`, { width });
}
