// How a payout's money moves. The runner creates payouts (status pending) and hands each to the
// provider after its transaction commits; the provider answers whether it settled at once, failed, or
// is still under way. Manual: an operator pays by hand (GET /v1/payouts.csv) and then calls
// POST /v1/payouts/:id/mark-paid or /mark-failed. A billing plugin that can pay (Stripe Connect) plugs in here.
import type { AppContext } from '../../context';
import type { PayoutView } from './service';

export type PayoutOutcome =
  | { status: 'pending'; reference?: string }
  | { status: 'paid'; reference?: string }
  | { status: 'failed'; reason: string };

export interface PayoutProvider {
  /** Stored on the payout (`provider`) and in the actor of what it settles (`provider:<name>`). */
  readonly name: string;
  /**
   * Starts paying one payout. Called once per new payout, after the run committed it; must be safe
   * to call again for the same payout (use the payout id as the idempotency key at the provider).
   */
  send(payout: PayoutView): Promise<PayoutOutcome>;
}

export const manualProvider: PayoutProvider = {
  name: 'manual',
  async send() {
    return { status: 'pending' };
  },
};

/** The provider this installation pays through (chosen once, in createContext). */
export function payoutProvider(ctx: AppContext): PayoutProvider {
  return ctx.payoutProvider;
}
