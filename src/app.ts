// The HTTP application: global parsing and error handling, then every module's routes. API routes
// are served both unprefixed and under /v1 (SPEC uses both forms).
import { Elysia, type AnyElysia } from 'elysia';
import { Memoirist } from 'memoirist';
import type { AppContext } from './context';
import { withRequestContext } from './lib/audit-context';
import { AppError, dataExceptionError, RateLimited, ERROR_STATUS, fieldProblems, allowedValues, invalidFields, isDataException, type ErrorBody, type ValueErrorLike } from './lib/errors';
import { jsonNull } from './lib/http';
import { newId } from './lib/ids';
import { parseJsonObject } from './lib/json-body';
import { plainMessage } from './lib/plain-errors';
import { strictBodies } from './lib/strict-body';
import { apiKeyRoutes, sessionRoutes } from './routes/auth';
import { auditRoutes } from './routes/audit';
import { billingRoutes } from './routes/billing';
import { commissionRoutes } from './routes/commissions';
import { commissionLifecycleRoutes } from './routes/commission-lifecycle';
import { rulePreviewRoutes } from './routes/rule-preview';
import { eventRoutes } from './routes/events';
import { campaignRoutes } from './routes/campaigns';
import { codeRoutes } from './routes/codes';
import { groupRoutes } from './routes/groups';
import { linkRoutes } from './routes/links';
import { linkQrRoutes } from './routes/link-qr';
import { embedTokenRoutes } from './routes/embed-tokens';
import { addCorsHeaders, clientAddress } from './modules/links/address';
import { takeSignInNetwork } from './modules/auth/limit';
import { redirectRoutes } from './routes/redirect';
import { resourceRoutes } from './routes/resources';
import { importRoutes } from './routes/imports';
import { partnerRoutes, partnerTermsAndKeyRoutes } from './routes/partners';
import { partnerStatusRoutes } from './routes/partner-status';
import { payoutMethodRoutes } from './routes/payout-methods';
import { paypalWebhookRoutes } from './routes/paypal-webhook';
import { payoutRoutes } from './routes/payouts';
import { settingsRoutes } from './routes/settings';
import { invoiceRoutes } from './routes/invoices';
import { taxExportRoutes } from './routes/tax-export';
import { taxProfileRoutes } from './routes/tax-profile';
import { fxRateRoutes } from './routes/fx-rates';
import { systemRoutes } from './routes/system';
import { teamRoutes } from './routes/team';
import { openApiRoutes } from './routes/openapi';
import { webhookRoutes } from './routes/webhooks';
import { webRoutes } from './web';
import { errorPage, isPagePath } from './web/errors';
import { magicLinkPages } from './web/portal';

export const MAX_BODY_BYTES = 1024 * 1024;
/** A resource upload: a 10 MiB file and its multipart framing (the route refuses a file over 10 MiB). */
export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024 + 64 * 1024;
const UPLOAD_PATH = /^((\/v1)?\/resources|\/admin\/resources)\/?$/;
/** An import's export files (POST /v1/imports, the admin imports page): up to IMPORT_MAX_MB. */
const IMPORT_PATH = /^((\/v1)?\/imports|\/admin\/imports(\/[a-z]+)?)\/?$/;

/** Request ids, kept beside the request so the error handler can log them. */
const requestIds = new WeakMap<Request, string>();

export function createApp(ctx: AppContext) {
  // the API, built once and mounted under both prefixes (the same handlers, the same services)
  const api = new Elysia()
    .onParse(parseJsonObject)
    .use(partnerRoutes(ctx))
    .use(partnerStatusRoutes(ctx))
    .use(partnerTermsAndKeyRoutes(ctx))
    .use(payoutMethodRoutes(ctx))
    .use(taxProfileRoutes(ctx))
    .use(taxExportRoutes(ctx))
    .use(invoiceRoutes(ctx))
    .use(apiKeyRoutes(ctx))
    .use(eventRoutes(ctx))
    .use(commissionRoutes(ctx))
    .use(commissionLifecycleRoutes(ctx))
    .use(payoutRoutes(ctx))
    .use(webhookRoutes(ctx))
    .use(campaignRoutes(ctx))
    .use(rulePreviewRoutes(ctx))
    .use(codeRoutes(ctx))
    .use(groupRoutes(ctx))
    .use(settingsRoutes(ctx))
    .use(fxRateRoutes(ctx))
    .use(linkRoutes(ctx))
    .use(linkQrRoutes(ctx))
    .use(embedTokenRoutes(ctx))
    .use(teamRoutes(ctx))
    .use(auditRoutes(ctx));
  const billing = billingRoutes(ctx).use(paypalWebhookRoutes(ctx));
  // resources take multipart uploads: outside the JSON-only parser
  const resources = resourceRoutes(ctx);
  const imports = importRoutes(ctx);
  const session = new Elysia().onParse(parseJsonObject).use(sessionRoutes(ctx, magicLinkPages(ctx)));
  // every JSON route refuses fields its body schema does not declare (lib/strict-body.ts)
  const refuseUnknownFields = strictBodies([...api.routes, ...session.routes]);

  let self: AnyElysia | undefined;
  const app = new Elysia()
    .onError(({ error, code, request, path }) => {
      const body = toErrorBody(error, code, request.method);
      const status = ERROR_STATUS[body.code];
      if (status >= 500) ctx.log.error('request failed', { requestId: requestIds.get(request), path, error });
      return errorAnswer(ctx, request, body, status, error);
    })
    // Elysia answers a bare null with an empty body; a documented null is the JSON null
    .mapResponse({ as: 'global' }, ({ responseValue }) => (responseValue === null ? jsonNull() : undefined))
    .onTransform({ as: 'global' }, ({ request, route, body }) => refuseUnknownFields(request.method, route, body))
    .use(openApiRoutes(() => self!))
    .use(systemRoutes(ctx))
    .use(session)
    // server-rendered pages and their assets (/portal, /admin, /docs, /assets)
    .use(webRoutes(ctx))
    // share links and the browser client: not under /v1, no auth
    .use(redirectRoutes(ctx))
    .use(api)
    .group('/v1', (v1) => v1.use(api))
    // provider webhooks read their raw bytes (the signature covers them): outside the JSON parser
    .use(billing)
    .group('/v1', (v1) => v1.use(billing))
    .use(resources)
    .group('/v1', (v1) => v1.use(resources))
    .use(imports)
    .group('/v1', (v1) => v1.use(imports));
  self = app;
  return app;
}

export type App = ReturnType<typeof createApp>;

/**
 * The fetch handler in front of Elysia: request id, body size limit, access log and metrics.
 * Wrapping here sees every answer, including those Elysia builds itself.
 */
export function createFetch(ctx: AppContext, app: App) {
  const routeOf = routeTemplates(app);
  const record = answerRecorder(ctx);
  return async function fetch(request: Request): Promise<Response> {
    const started = performance.now();
    const requestId = requestIdOf(request);
    requestIds.set(request, requestId);
    let response: Response;
    const ip = clientAddress(request, ctx.config.trustProxy, ctx.http.server);
    try {
      if (request.method === 'POST' && isSignInPath(new URL(request.url).pathname)) await takeSignInNetwork(ctx.sql, ip);
      // who made a change, from where: read by the audit log (lib/audit-context.ts)
      const context = { ip, userAgent: request.headers.get('user-agent'), requestId };
      response = await withRequestContext(context, async () => app.handle(await limitBody(request, bodyLimit(request, ctx.config.importMaxBytes))));
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      response = await errorAnswer(ctx, request, error.toBody(), error.status, error);
    }
    response.headers.set('x-request-id', requestId);
    // no answer is to be read as another type than it says (JSON as HTML, text as script)
    if (!response.headers.has('x-content-type-options')) response.headers.set('x-content-type-options', 'nosniff');
    const path = new URL(request.url).pathname;
    addCorsHeaders(path, response);
    record(request.method, routeOf(request.method, path), path, response.status, started, requestId);
    return response;
  };
}

/** The caller's X-Request-Id when it is a sane token, else a new one. */
export function requestIdOf(request: Request): string {
  return safeRequestId(request.headers.get('x-request-id')) ?? newId('event').slice(4);
}

/**
 * Counts an answer in the metrics and writes its access log line: every answer, whether Elysia or
 * a route served ahead of it (the share link, src/server.ts) made it.
 */
export function answerRecorder(ctx: AppContext) {
  // label objects are reused per method, route and status: building a series key is then a lookup
  const labels = new Map<string, { counter: Record<string, string>; histogram: Record<string, string> }>();
  return (rawMethod: string, route: string, path: string, status: number, started: number, requestId: string) => {
    const seconds = (performance.now() - started) / 1000;
    const method = METHODS.has(rawMethod) ? rawMethod : 'OTHER';
    const key = `${method} ${status} ${route}`;
    let series = labels.get(key);
    if (!series) {
      series = { counter: { method, route, status: String(status) }, histogram: { method, route } };
      // routes are the app's own templates, so this stays small; the bound is only a safety net
      if (labels.size < 10_000) labels.set(key, series);
    }
    ctx.metrics.inc('partnerd_http_requests_total', series.counter);
    ctx.metrics.observe('partnerd_http_request_duration_seconds', seconds, series.histogram);
    ctx.log.info('request', { requestId, method: rawMethod, path, status, ms: Math.round(seconds * 10000) / 10 });
  };
}

/**
 * Where a sign-in mail can be asked for (the API and the sign-in and sign-up pages): each POST
 * counts against its network's limit (modules/auth/limit.ts) before anything else runs.
 */
const SIGN_IN_PATHS = new Set(['/auth/magic-link', '/auth/signup', '/admin/sign-in', '/portal/sign-in', '/portal/sign-up']);

/**
 * Whether a path is one of them as the router would match it: the router also takes a trailing
 * slash (`/auth/magic-link/`) and a doubled leading one (`//auth/magic-link`), which must not
 * escape the count. Repeated slashes are one and a trailing one is dropped before looking.
 */
const isSignInPath = (pathname: string) => SIGN_IN_PATHS.has(pathname.replace(/\/{2,}/g, '/').replace(/(.)\/$/, '$1'));

/**
 * An error's answer: the API's JSON `{code, message, details?}`, or an HTML page on the page
 * paths; a 429 says when to try again (Retry-After).
 */
async function errorAnswer(ctx: AppContext, request: Request, body: ErrorBody, status: number, error?: unknown): Promise<Response> {
  const response = isPagePath(new URL(request.url).pathname) ? await errorPage(ctx, request, body, status) : Response.json(body, { status });
  if (error instanceof RateLimited) response.headers.set('retry-after', String(error.retryAfterSeconds));
  return response;
}

function safeRequestId(value: string | null): string | undefined {
  return value && /^[A-Za-z0-9._-]{1,64}$/.test(value) ? value : undefined;
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * The route template a request matches (`/v1/partners/:id`), or `unmatched`: the metric labels
 * are the app's own routes, so no request can add a series of its own.
 */
function routeTemplates(app: App): (method: string, path: string) => string {
  const router = new Memoirist<string>();
  for (const route of app.routes) router.add(route.method, route.path, route.path);
  return (method, path) =>
    router.find(method, path)?.store ??
    (method === 'HEAD' ? router.find('GET', path)?.store : undefined) ??
    router.find('ALL', path)?.store ??
    'unmatched';
}

/** The most a request may send: 1 MiB, a resource upload's 10 MiB file, or an import's IMPORT_MAX_MB. */
function bodyLimit(request: Request, importMax: number): number {
  if (request.method !== 'POST') return MAX_BODY_BYTES;
  const path = new URL(request.url).pathname;
  if (IMPORT_PATH.test(path)) return importMax;
  return UPLOAD_PATH.test(path) ? MAX_UPLOAD_BYTES : MAX_BODY_BYTES;
}

/**
 * Bodies over the limit are refused before any parsing: by Content-Length when declared, else by
 * reading the (chunked) stream up to the limit and handing Elysia the buffered copy.
 */
async function limitBody(request: Request, limit: number): Promise<Request> {
  const declared = request.headers.get('content-length');
  if (declared !== null) {
    if (Number(declared) > limit) throw tooLarge(limit);
    return request;
  }
  if (!request.body) return request;
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  return new Request(request.url, { method: request.method, headers: request.headers, body: Buffer.concat(chunks) });
}

const tooLarge = (limit: number) =>
  new AppError(
    'payload_too_large',
    limit === MAX_BODY_BYTES ? 'request body larger than 1 MiB' : limit === MAX_UPLOAD_BYTES ? 'request body larger than a 10 MiB file allows' : `upload larger than ${limit / 1024 / 1024} MiB (IMPORT_MAX_MB)`,
  );

function toErrorBody(error: unknown, code: string | number, method = 'POST'): ErrorBody {
  if (error instanceof AppError) return error.toBody();
  if (isDataException(error)) return dataExceptionError(method === 'GET' ? 'invalid_query' : 'invalid_body').toBody();
  switch (code) {
    case 'VALIDATION': {
      const e = error as { type?: string; all?: ValueErrorLike[] };
      // an answer that breaks its own documented schema is our fault, not the caller's
      if (e.type === 'response') return { code: 'internal', message: 'internal error' };
      // 'property' errors come from coercing query or path strings
      const where = e.type === 'query' || e.type === 'property' ? 'invalid_query' : e.type === 'params' ? 'not_found' : 'invalid_body';
      if (where === 'not_found') return { code: 'not_found', message: 'not found' };
      return invalidFields(fieldProblems(e.all ?? [], { message: plainFieldMessage }), where).toBody();
    }
    case 'PARSE': {
      const cause = (error as { cause?: unknown }).cause;
      if (cause instanceof AppError) return cause.toBody();
      return { code: 'invalid_body', message: 'request body is not valid JSON' };
    }
    case 'NOT_FOUND':
      return { code: 'not_found', message: 'no such route' };
    case 'INVALID_COOKIE_SIGNATURE':
      return { code: 'unauthorized', message: 'invalid cookie' };
    default:
      return { code: 'internal', message: 'internal error' };
  }
}

/** A request problem in words ("at most 254 characters"), never the validator's own text; enums and numeric ranges as allowedValues() says them. */
function plainFieldMessage(e: ValueErrorLike): string {
  return (e.schema && allowedValues(e.schema)) ?? plainMessage(e);
}
