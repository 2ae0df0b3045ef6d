// The HTTP application: global parsing and error handling, then every module's routes. API routes
// are served both unprefixed and under /v1 (SPEC uses both forms).
import { Elysia, type AnyElysia } from 'elysia';
import { Memoirist } from 'memoirist';
import type { AppContext } from './context';
import { AppError, ERROR_STATUS, type ErrorBody } from './lib/errors';
import { jsonNull } from './lib/http';
import { newId } from './lib/ids';
import { parseJsonObject } from './lib/json-body';
import { plainMessage } from './lib/plain-errors';
import { apiKeyRoutes, sessionRoutes } from './routes/auth';
import { billingRoutes } from './routes/billing';
import { commissionRoutes } from './routes/commissions';
import { commissionLifecycleRoutes } from './routes/commission-lifecycle';
import { rulePreviewRoutes } from './routes/rule-preview';
import { eventRoutes } from './routes/events';
import { campaignRoutes } from './routes/campaigns';
import { codeRoutes } from './routes/codes';
import { groupRoutes } from './routes/groups';
import { linkRoutes } from './routes/links';
import { addCorsHeaders } from './modules/links/address';
import { redirectRoutes } from './routes/redirect';
import { partnerRoutes, partnerTermsAndKeyRoutes } from './routes/partners';
import { partnerStatusRoutes } from './routes/partner-status';
import { payoutRoutes } from './routes/payouts';
import { settingsRoutes } from './routes/settings';
import { systemRoutes } from './routes/system';
import { openApiRoutes } from './routes/openapi';
import { webhookRoutes } from './routes/webhooks';
import { webRoutes } from './web';
import { errorPage, isPagePath } from './web/errors';
import { magicLinkPages } from './web/portal';

export const MAX_BODY_BYTES = 1024 * 1024;

/** Request ids, kept beside the request so the error handler can log them. */
const requestIds = new WeakMap<Request, string>();

export function createApp(ctx: AppContext) {
  // the API, built once and mounted under both prefixes (the same handlers, the same services)
  const api = new Elysia()
    .onParse(parseJsonObject)
    .use(partnerRoutes(ctx))
    .use(partnerStatusRoutes(ctx))
    .use(partnerTermsAndKeyRoutes(ctx))
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
    .use(linkRoutes(ctx));
  const billing = billingRoutes(ctx);

  let self: AnyElysia | undefined;
  const app = new Elysia()
    .onError(({ error, code, request, path }) => {
      const body = toErrorBody(error, code, request.method);
      const status = ERROR_STATUS[body.code];
      if (status >= 500) ctx.log.error('request failed', { requestId: requestIds.get(request), path, error });
      return errorAnswer(ctx, request, body, status);
    })
    // Elysia answers a bare null with an empty body; a documented null is the JSON null
    .mapResponse({ as: 'global' }, ({ responseValue }) => (responseValue === null ? jsonNull() : undefined))
    .use(openApiRoutes(() => self!))
    .use(systemRoutes(ctx))
    .use(new Elysia().onParse(parseJsonObject).use(sessionRoutes(ctx, magicLinkPages(ctx))))
    // server-rendered pages and their assets (/portal, /admin, /docs, /assets)
    .use(webRoutes(ctx))
    // share links and the browser client: not under /v1, no auth
    .use(redirectRoutes(ctx))
    .use(api)
    .group('/v1', (v1) => v1.use(api))
    // provider webhooks read their raw bytes (the signature covers them): outside the JSON parser
    .use(billing)
    .group('/v1', (v1) => v1.use(billing));
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
    try {
      response = await app.handle(await limitBody(request));
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      response = await errorAnswer(ctx, request, error.toBody(), error.status);
    }
    response.headers.set('x-request-id', requestId);
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

/** An error's answer: the API's JSON `{code, message, details?}`, or an HTML page on the page paths. */
function errorAnswer(ctx: AppContext, request: Request, body: ErrorBody, status: number): Response | Promise<Response> {
  if (isPagePath(new URL(request.url).pathname)) return errorPage(ctx, request, body, status);
  return Response.json(body, { status });
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

/**
 * Bodies over 1 MiB are refused before any parsing: by Content-Length when declared, else by
 * reading the (chunked) stream up to the limit and handing Elysia the buffered copy.
 */
async function limitBody(request: Request): Promise<Request> {
  const declared = request.headers.get('content-length');
  if (declared !== null) {
    if (Number(declared) > MAX_BODY_BYTES) throw tooLarge();
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
    if (size > MAX_BODY_BYTES) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  return new Request(request.url, { method: request.method, headers: request.headers, body: Buffer.concat(chunks) });
}

const tooLarge = () => new AppError('payload_too_large', 'request body larger than 1 MiB');

type SchemaLike = { type?: string; anyOf?: SchemaLike[]; enum?: unknown[]; const?: unknown; minimum?: number; maximum?: number; format?: string };
type ValueErrorLike = { path: string; message: string; summary?: string; schema?: SchemaLike; type?: number; value?: unknown };

/**
 * PostgreSQL refuses some values the schemas let through (a NUL character, a number out of range):
 * class 22 "data exception". That is bad input, not a server fault.
 */
function dataException(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof Error && error.name === 'PostgresError' && typeof code === 'string' && code.startsWith('22');
}

function toErrorBody(error: unknown, code: string | number, method = 'POST'): ErrorBody {
  if (error instanceof AppError) return error.toBody();
  if (dataException(error)) {
    return { code: method === 'GET' ? 'invalid_query' : 'invalid_body', message: 'a value in the request cannot be stored (for example a NUL character or a number out of range)' };
  }
  switch (code) {
    case 'VALIDATION': {
      const e = error as { type?: string; all?: ValueErrorLike[] };
      // an answer that breaks its own documented schema is our fault, not the caller's
      if (e.type === 'response') return { code: 'internal', message: 'internal error' };
      // 'property' errors come from coercing query or path strings
      const where = e.type === 'query' || e.type === 'property' ? 'invalid_query' : e.type === 'params' ? 'not_found' : 'invalid_body';
      if (where === 'not_found') return { code: 'not_found', message: 'not found' };
      const details = fieldProblems(e.all ?? []);
      const message = details.length > 0 ? details.map((d) => `${d.field}: ${d.message}`).join('; ') : 'invalid request';
      return { code: where, message, details };
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

function fieldProblems(errors: ValueErrorLike[]): { field: string; message: string }[] {
  const seen = new Map<string, string>();
  for (const e of errors) {
    const field = e.path.replace(/^\//, '').replace(/\//g, '.') || '(body)';
    if (seen.has(field)) continue;
    // in words ("at most 254 characters"), never the validator's own text
    seen.set(field, (e.schema && allowedValues(e.schema)) ?? plainMessage(e));
  }
  return [...seen].map(([field, message]) => ({ field, message }));
}

/**
 * What a schema allows, in words, for the schemas whose generated messages say nothing useful: enums
 * ("should be one of: 'integer', 'integer'" for a bounded integer that may also arrive as a string).
 */
function allowedValues(schema: SchemaLike): string | undefined {
  const flat = schema.anyOf?.flatMap((s) => s.anyOf ?? [s]);
  const options = flat?.filter((s) => s.const !== undefined || s.type === 'null').map((s) => (s.type === 'null' ? null : s.const)) ?? schema.enum;
  if (options && options.length > 0) return `must be one of ${options.map((o) => JSON.stringify(o)).join(', ')}`;
  const numeric = schema.anyOf?.find((s) => s.type === 'integer' || s.type === 'number') ?? (schema.type === 'integer' || schema.type === 'number' ? schema : undefined);
  if (!numeric) return undefined;
  const kind = numeric.type === 'integer' ? 'an integer' : 'a number';
  const { minimum: min, maximum: max } = numeric;
  if (min !== undefined && max !== undefined) return `must be ${kind} from ${min} to ${max}`;
  if (min !== undefined) return `must be ${kind} of at least ${min}`;
  if (max !== undefined) return `must be ${kind} of at most ${max}`;
  return `must be ${kind}`;
}
