// The payout rails this installation has: manual and Wise always (paid by upload), Stripe Connect
// with STRIPE_SECRET_KEY, PayPal's API with PAYPAL_CLIENT_ID and PAYPAL_CLIENT_SECRET (without them
// PayPal payouts are paid by upload file). One client per provider for the life of the process.
import type { Config } from '../../src/config';
import type { PayoutRails } from '../payouts';
import { stripeClient } from '../stripe';
import { manualRail, uploadRail } from './manual';
import { createPayPal } from './paypal';
import { stripeConnect, stripeRail } from './stripe';
import { wiseRail } from './wise';

export function enabledPayoutRails(config: Config): PayoutRails {
  const stripe = config.stripeSecretKey ? stripeClient(config.stripeSecretKey, config.stripeApiUrl) : null;
  const paypal =
    config.paypal.clientId && config.paypal.clientSecret
      ? createPayPal({ clientId: config.paypal.clientId, clientSecret: config.paypal.clientSecret, apiUrl: config.paypal.apiUrl, webhookId: config.paypal.webhookId })
      : null;
  return {
    manual: manualRail,
    wise: wiseRail,
    stripe: stripe ? stripeRail(stripe) : null,
    connect: stripe ? stripeConnect(stripe) : null,
    paypal: paypal?.rail ?? uploadRail('paypal'),
    paypalApi: paypal?.api ?? null,
  };
}
