// The billing plugins this installation has enabled. Adding a provider: a folder beside this file
// that implements BillingPlugin, and one line here saying when it is on.
import type { Config } from '../src/config';
import type { Sql } from '../src/db';
import type { BillingPlugin } from './billing';
import { createLemonSqueezyPlugin } from './lemonsqueezy';
import { createStripePlugin } from './stripe';

/** Plugins with a webhook secret or an API key configured. */
export function enabledBillingPlugins(config: Config, sql: Sql): BillingPlugin[] {
  const plugins: BillingPlugin[] = [];
  if (config.stripeWebhookSecret || config.stripeSecretKey) {
    plugins.push(createStripePlugin({ webhookSecret: config.stripeWebhookSecret, secretKey: config.stripeSecretKey, apiUrl: config.stripeApiUrl, sql }));
  }
  if (config.lemonSqueezyWebhookSecret) plugins.push(createLemonSqueezyPlugin({ webhookSecret: config.lemonSqueezyWebhookSecret }));
  return plugins;
}
