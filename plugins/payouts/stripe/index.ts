// Stripe Connect: Express accounts for partners, their onboarding links, and one transfer per payout
// to the partner's account with the payout id as the idempotency key, so a repeated call (a retry, a
// hand-over after a crash) answers the same transfer instead of paying twice.
import Stripe from 'stripe';
import type { PayoutRail, RailOutcome, RailPayout, StripeConnect } from '../../payouts';

/** Transfers in flight at once. */
const CONCURRENCY = 16;

/** Stripe's words on an error: its code (or type) and message. */
export function stripeReason(error: unknown): string {
  if (error instanceof Stripe.errors.StripeError) return `${error.code ?? error.type}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

/** Whether an error means Stripe was not reached or did not answer (the call may be repeated). */
function unreachable(error: unknown): boolean {
  return error instanceof Stripe.errors.StripeConnectionError || (error instanceof Stripe.errors.StripeAPIError && (error.statusCode ?? 500) >= 500);
}

async function transfer(client: Stripe, payout: RailPayout): Promise<RailOutcome> {
  if (!payout.destination) return { status: 'failed', reason: 'no Stripe account to pay' };
  try {
    const made = await client.transfers.create(
      {
        amount: Number(payout.amountMinor),
        currency: payout.currency.toLowerCase(),
        destination: payout.destination,
        transfer_group: payout.id,
        metadata: { payoutId: payout.id, partnerId: payout.partnerId },
      },
      { idempotencyKey: payout.id },
    );
    return { status: 'paid', reference: made.id, answer: `transfer ${made.id} to ${payout.destination}` };
  } catch (error) {
    if (unreachable(error)) throw error;
    const reason = stripeReason(error);
    return { status: 'failed', reason, answer: reason };
  }
}

export function stripeRail(client: Stripe): PayoutRail {
  return {
    name: 'stripe',
    batchLimit: 1000,
    async send(payouts) {
      const outcomes = new Map<string, RailOutcome>();
      let next = 0;
      let unreached: unknown = null;
      const worker = async () => {
        while (next < payouts.length && unreached === null) {
          const payout = payouts[next++]!;
          try {
            outcomes.set(payout.id, await transfer(client, payout));
          } catch (error) {
            unreached = error; // the rest stay pending and are handed over again
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(CONCURRENCY, payouts.length) }, worker));
      for (const p of payouts) if (!outcomes.has(p.id)) outcomes.set(p.id, { status: 'pending' });
      return outcomes;
    },
  };
}

export function stripeConnect(client: Stripe): StripeConnect {
  return {
    async createAccount({ partnerId, email }) {
      const account = await client.accounts.create(
        { type: 'express', email, metadata: { partnerId }, capabilities: { transfers: { requested: true } } },
        { idempotencyKey: `account-${partnerId}` },
      );
      return account.id;
    },
    async onboardingLink({ accountId, returnUrl, refreshUrl }) {
      const link = await client.accountLinks.create({ account: accountId, type: 'account_onboarding', return_url: returnUrl, refresh_url: refreshUrl });
      return link.url;
    },
    async payoutsEnabled(accountId) {
      const account = await client.accounts.retrieve(accountId);
      return account.payouts_enabled === true;
    },
  };
}
