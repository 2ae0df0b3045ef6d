// What every module is built with: passed in, never imported as a global, so that tests can run
// several services side by side in one process.
import type { Config } from './config';
import type { Sql } from './db';
import type { Logger } from './lib/log';
import type { Metrics } from './lib/metrics';
import type { Mailer } from './mail';
import type { BillingPlugin, PayoutProvider } from '../plugins/billing';

export type AppContext = {
  config: Config;
  sql: Sql;
  log: Logger;
  mailer: Mailer;
  metrics: Metrics;
  /** Billing-provider plugins with a configured secret (plugins/index.ts). */
  billingPlugins: BillingPlugin[];
  /** How payouts are paid: the first plugin that can pay, else by hand. */
  payoutProvider: PayoutProvider;
};
