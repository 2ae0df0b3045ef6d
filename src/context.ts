// What every module is built with: passed in, never imported as a global, so that tests can run
// several services side by side in one process. Every object that lives as long as the process is
// here, created once by src/server.ts createContext.
import type { Config } from './config';
import type { Sql } from './db';
import type { ReadRouter } from './db/replica';
import type { GroupCommit } from './lib/group-commit';
import type { Logger } from './lib/log';
import type { Metrics } from './lib/metrics';
import type { Mailer } from './mail';
import type { EventInput, EventOutcome } from './modules/events/intake';
import type { HttpServerRef } from './modules/links/address';
import type { LinkRuntime } from './modules/links/runtime';
import type { OidcClient } from './modules/auth/oidc';
import type { BillingPlugin, PromotionCodeSync } from '../plugins/billing';
import type { PayoutRails } from '../plugins/payouts';
import type { ResourceStores } from '../plugins/storage';

export type AppContext = {
  config: Config;
  sql: Sql;
  /** Where dashboard, report and export reads go: the replica (DATABASE_REPLICA_URL) while it is up and close, else `sql`. */
  reads: ReadRouter;
  log: Logger;
  mailer: Mailer;
  metrics: Metrics;
  /** Billing-provider plugins with a configured secret (plugins/index.ts). */
  billingPlugins: BillingPlugin[];
  /** How payouts are paid: the payout rails (plugins/payouts), one per payout method, with their provider clients. */
  payoutProvider: PayoutRails;
  /** Mirrors promotion codes at the billing provider (the first plugin that can); null: codes live here only. */
  codeSync: PromotionCodeSync | null;
  /** The redirect's link cache, click buffer and IP-hash salt, with their LISTENs (modules/links/runtime.ts). */
  links: LinkRuntime;
  /** Bun's server once serve() listens: a request's socket address (modules/links/address.ts). */
  http: HttpServerRef;
  /** The group commit of POST /v1/events and /attribution/events (workflows/group-commit.ts). */
  intake: GroupCommit<EventInput, EventOutcome>;
  /** Where resource files are kept: PostgreSQL, or S3-compatible storage with S3_URL (plugins/stores). */
  resourceStores: ResourceStores;
  /** Single sign-on's OpenID Connect client (OIDC_* set), its provider discovered on first use; null: off. */
  oidc: OidcClient | null;
};
