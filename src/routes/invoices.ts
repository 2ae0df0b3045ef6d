// GET /v1/payouts/:id/invoice.pdf: the self-billing invoice of a paid payout (admin, payouts:read,
// or the partner for its own). 404 for a payout that is not paid: it has no invoice yet.
import { Elysia } from 'elysia';
import type { AppContext } from '../context';
import { notFound } from '../lib/errors';
import { authPlugin, requirePartner } from '../modules/auth/plugin';
import { readInvoice } from '../modules/tax/invoice';
import { invoicePdf } from '../modules/tax/invoice-pdf';
import { InvoiceParams, InvoicePdfAnswer } from '../modules/tax/model';

export function invoiceRoutes(ctx: AppContext) {
  return new Elysia({ tags: ['Payouts'] })
    .use(authPlugin(ctx))
    .get(
      '/payouts/:id/invoice.pdf',
      async ({ params, principal }) => {
        const invoice = await readInvoice(ctx.sql, params.id);
        if (!invoice) throw notFound('invoice (the payout is unknown or not paid)');
        requirePartner(principal, invoice.partnerId);
        return new Response(new Uint8Array(await invoicePdf(invoice)), {
          headers: {
            'content-type': 'application/pdf',
            'content-disposition': `inline; filename="${invoice.number}.pdf"`,
            'cache-control': 'private, no-store',
          },
        });
      },
      { auth: { scope: 'payouts:read', partner: true }, params: InvoiceParams, detail: { summary: "A paid payout's self-billing invoice, as PDF", responses: InvoicePdfAnswer } },
    );
}
