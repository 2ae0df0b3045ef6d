// Paying by hand: the payout stays pending until an operator pays it (GET /v1/payouts.csv) and says
// so (POST /v1/payouts/:id/mark-paid, /mark-failed or /v1/payouts/settle).
import type { PayoutRail, RailOutcome, RailPayout } from '../../payouts';

/** A rail that leaves its payouts pending for an operator; `name` says which upload pays them. */
export function uploadRail(name: 'manual' | 'wise' | 'paypal'): PayoutRail {
  return {
    name,
    batchLimit: 100_000,
    async send(payouts: RailPayout[]) {
      return new Map<string, RailOutcome>(payouts.map((p) => [p.id, { status: 'pending' }]));
    },
  };
}

export const manualRail: PayoutRail = uploadRail('manual');
