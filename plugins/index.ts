// The billing plugins this installation has enabled. Adding a provider: a folder beside this file
// that implements BillingPlugin, and one line here saying when it is on.
import type { Config } from '../src/config';
import type { Sql } from '../src/db';
import type { BillingPlugin } from './billing';
import { createLemonSqueezyPlugin } from './lemonsqueezy';
import { createPaddlePlugin } from './paddle';
import { createStripePlugin } from './stripe';

/** A provider the service can take webhooks from, as the admin settings page explains it. */
export type ProviderGuide = {
  name: string;
  label: string;
  /** The variable whose value mounts POST /webhooks/<name>. */
  variable: string;
  /** Where the provider's dashboard creates the webhook. */
  where: string;
  /** The provider's event types to send. */
  events: string[];
};

export const PROVIDER_GUIDES: ProviderGuide[] = [
  {
    name: 'stripe',
    label: 'Stripe',
    variable: 'STRIPE_WEBHOOK_SECRET',
    where: 'Developers → Webhooks → Add endpoint; the signing secret starts with whsec_.',
    events: ['customer.created', 'customer.updated', 'customer.subscription.created', 'invoice.paid', 'charge.refunded', 'charge.dispute.created', 'account.updated'],
  },
  {
    name: 'paddle',
    label: 'Paddle Billing',
    variable: 'PADDLE_WEBHOOK_SECRET',
    where: 'Developer tools → Notifications → New destination (type URL); copy its secret key.',
    events: ['customer.created', 'customer.updated', 'subscription.created', 'transaction.completed', 'adjustment.created', 'adjustment.updated'],
  },
  {
    name: 'lemonsqueezy',
    label: 'Lemon Squeezy',
    variable: 'LEMONSQUEEZY_WEBHOOK_SECRET',
    where: 'Settings → Webhooks → Add endpoint; choose a signing secret (6 to 40 characters) and set the same value here.',
    events: ['order_created', 'order_refunded', 'subscription_created', 'subscription_payment_success', 'subscription_payment_refunded'],
  },
];

/** Plugins with a webhook secret or an API key configured. */
export function enabledBillingPlugins(config: Config, sql: Sql): BillingPlugin[] {
  const plugins: BillingPlugin[] = [];
  if (config.stripeWebhookSecret || config.stripeSecretKey) {
    plugins.push(createStripePlugin({ webhookSecret: config.stripeWebhookSecret, secretKey: config.stripeSecretKey, apiUrl: config.stripeApiUrl, sql }));
  }
  if (config.paddleWebhookSecret) plugins.push(createPaddlePlugin({ webhookSecret: config.paddleWebhookSecret }));
  if (config.lemonSqueezyWebhookSecret) plugins.push(createLemonSqueezyPlugin({ webhookSecret: config.lemonSqueezyWebhookSecret }));
  return plugins;
}
