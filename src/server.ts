// Builds the context and serves the app; used by src/index.ts and by the test harness.
import type { Config } from './config';
import type { AppContext } from './context';
import type { Sql } from './db';
import { createApp, createFetch, MAX_BODY_BYTES } from './app';
import type { Logger } from './lib/log';
import { createMetrics } from './lib/metrics';
import { createMailer } from './mail';
import { createMailWorker, type MailWorker } from './mail/worker';
import { enabledBillingPlugins } from '../plugins';
import { manualProvider } from './modules/payouts/provider';
import { createDispatcher, type Dispatcher } from './modules/webhooks';
import { stopLinkRuntime } from './modules/links/runtime';

export function createContext(config: Config, sql: Sql, log: Logger): AppContext {
  const billingPlugins = enabledBillingPlugins(config, sql);
  const payoutProvider = billingPlugins.find((p) => p.payouts)?.payouts ?? manualProvider;
  return { config, sql, log, mailer: createMailer(config, log), metrics: createMetrics(), billingPlugins, payoutProvider };
}

export type RunningServer = {
  url: string;
  port: number;
  /** The webhook dispatcher beside it (tests drain it). */
  dispatcher: Dispatcher;
  /** The email outbox worker beside it (tests drain it). */
  mailWorker: MailWorker;
  stop(): Promise<void>;
};

/**
 * Listens on config.port (0: any free port) and runs the webhook dispatcher beside it; stop() lets
 * in-flight requests and deliveries finish.
 */
export function serve(ctx: AppContext, hostname = '0.0.0.0'): RunningServer {
  const app = createApp(ctx);
  const dispatcher = createDispatcher(ctx);
  void dispatcher.start();
  const mailWorker = createMailWorker(ctx);
  void mailWorker.start();
  const server = Bun.serve({
    port: ctx.config.port,
    hostname,
    fetch: createFetch(ctx, app),
    // our own parser answers 413 at 1 MiB with a JSON error; this only stops absurd bodies early
    maxRequestBodySize: 16 * MAX_BODY_BYTES,
    error: (error) => {
      ctx.log.error('unhandled', { error });
      return Response.json({ code: 'internal', message: 'internal error' }, { status: 500 });
    },
  });
  const host = hostname === '0.0.0.0' ? '127.0.0.1' : hostname;
  return {
    url: `http://${host}:${server.port}`,
    port: server.port!,
    dispatcher,
    mailWorker,
    /** Lets in-flight requests finish, then writes the buffered clicks (SIGTERM must not lose them). */
    async stop() {
      await server.stop(false);
      await dispatcher.stop();
      await mailWorker.stop();
      await stopLinkRuntime(ctx);
    },
  };
}
