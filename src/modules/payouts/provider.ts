// How a payout's money moves. The runner creates payouts (status pending) and hands each to the
// provider after its transaction commits; the provider answers whether it settled at once, failed, or
// is still under way. Manual: an operator pays by hand (GET /v1/payouts.csv) and then calls
// POST /v1/payouts/:id/mark-paid or /mark-failed. A billing plugin that can pay (Stripe Connect) plugs in here;
// the interface is part of the plugin contract (plugins/billing.ts).
import type { PayoutProvider } from '../../../plugins/billing';

export const manualProvider: PayoutProvider = {
  name: 'manual',
  async send() {
    return { status: 'pending' };
  },
};
