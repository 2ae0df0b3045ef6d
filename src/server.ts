// Builds the context and serves the app; used by src/index.ts and by the test harness.
import type { Config } from './config';
import type { AppContext } from './context';
import { createOidcClient } from './modules/auth/oidc';
import type { Sql } from './db';
import type { BunRequest, Server } from 'bun';
import { answerRecorder, createApp, createFetch, MAX_BODY_BYTES, requestIdOf } from './app';
import type { Logger } from './lib/log';
import { createMetrics } from './lib/metrics';
import { createMailer } from './mail';
import { createMailWorker, type MailWorker } from './mail/worker';
import { noticeRoles } from './modules/auth/roles';
import { enabledBillingPlugins } from '../plugins';
import { createResourceStores } from '../plugins/stores';
import { enabledPayoutRails } from '../plugins/payouts/index';
import { createDispatcher, type Dispatcher } from './modules/webhooks/dispatcher';
import { shareLinkHandler } from './routes/redirect';
import { createReadRouter } from './db/replica';
import { createLinkRuntime } from './modules/links/runtime';
import { createEventIntake } from './workflows/group-commit';
import { recordEvents } from './workflows/record-events';

/**
 * Every object that lives as long as the process, made once (none does I/O until serve() starts
 * it): the mailer, the metrics, the billing plugins and what they provide, the redirect's link
 * runtime and the event intake's group commit.
 */
export function createContext(config: Config, sql: Sql, log: Logger): AppContext {
  const metrics = createMetrics();
  const billingPlugins = enabledBillingPlugins(config, sql);
  const ctx: AppContext = {
    config,
    sql,
    reads: createReadRouter({ primary: sql, replicaUrl: config.databaseReplicaUrl, maxLagSeconds: config.databaseReplicaMaxLagSeconds, log }),
    log,
    mailer: createMailer(config, log),
    metrics,
    billingPlugins,
    payoutProvider: enabledPayoutRails(config),
    codeSync: billingPlugins.find((p) => p.promotionCodes)?.promotionCodes ?? null,
    http: { server: null },
    links: createLinkRuntime({ sql, log, metrics, fraudClicksPerIpHour: config.fraudClicksPerIpHour }),
    // each batch is written by recordEvents with this context (called once ctx exists)
    intake: createEventIntake({ config, log }, (inputs) => recordEvents(ctx, inputs)),
    resourceStores: createResourceStores({ s3Url: config.s3Url, sql }),
    oidc: createOidcClient(config.oidc),
  };
  if (config.databaseReplicaUrl) {
    metrics.gauge('partnerd_report_reads_on_replica', () => (ctx.reads.state().using === 'replica' ? 1 : 0));
    metrics.gauge('partnerd_replica_lag_seconds', () => ctx.reads.state().lagSeconds ?? Number.NaN);
  }
  return ctx;
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
  const shareLink = shareLinkRoute(ctx);
  ctx.links.start();
  const dispatcher = createDispatcher(ctx);
  void dispatcher.start();
  const mailWorker = createMailWorker(ctx, { noticeRoles: noticeRoles() });
  void mailWorker.start();
  const server = Bun.serve({
    port: ctx.config.port,
    hostname,
    // share links are the hot path: Bun's own router answers them without Elysia; everything else
    // (other methods on /r/..., a trailing slash included) falls through to `fetch`
    routes: { '/r/:slug': { GET: shareLink, HEAD: shareLink } },
    fetch: createFetch(ctx, app),
    // our own parser answers 413 at 1 MiB (an import's IMPORT_MAX_MB) with a JSON error; this only stops absurd bodies early
    maxRequestBodySize: Math.max(16 * MAX_BODY_BYTES, 2 * ctx.config.importMaxBytes),
    error: (error) => {
      ctx.log.error('unhandled', { error });
      return Response.json({ code: 'internal', message: 'internal error' }, { status: 500 });
    },
  });
  ctx.http.server = server;
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
      await ctx.links.stop();
      await ctx.reads.close();
    },
  };
}

/**
 * GET and HEAD /r/:slug ahead of Elysia, with what the fetch wrapper gives every answer: the
 * request id header, the metrics (route `/r/:slug`) and the access log line. The handler catches
 * its own lookup failure (a 503 page); anything else reaches Bun's `error` (a JSON 500), as a
 * non-AppError thrown under Elysia does.
 */
function shareLinkRoute(ctx: AppContext) {
  const shareLink = shareLinkHandler(ctx);
  const record = answerRecorder(ctx);
  const finish = (request: Request, started: number, requestId: string, response: Response) => {
    record(request.method, '/r/:slug', pathOf(request.url), response.status, started, requestId);
    return response;
  };
  return (request: BunRequest<'/r/:slug'>, server: Server<unknown>): Response | Promise<Response> => {
    const started = performance.now();
    const requestId = requestIdOf(request);
    // the handler puts the request id on every answer it makes
    const response = shareLink(request, request.params.slug, { server, requestId });
    if (response instanceof Promise) return response.then((r) => finish(request, started, requestId, r));
    return finish(request, started, requestId, response);
  };
}

/** The path of an absolute URL, without parsing all of it (the access log's `path`). */
function pathOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  const query = url.indexOf('?', start);
  return url.slice(start, query === -1 ? undefined : query);
}
