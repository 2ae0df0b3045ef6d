// What every module is built with: passed in, never imported as a global, so that tests can run
// several services side by side in one process.
import type { Config } from './config';
import type { Sql } from './db';
import type { Logger } from './lib/log';
import type { Metrics } from './lib/metrics';
import type { Mailer } from './mail';

export type AppContext = {
  config: Config;
  sql: Sql;
  log: Logger;
  mailer: Mailer;
  metrics: Metrics;
};
