// The HTTP application: global parsing and error handling, then every module's routes. API routes
// are served both unprefixed and under /v1 (SPEC uses both forms).
import { openapi } from '@elysiajs/openapi';
import { Elysia } from 'elysia';
import type { AppContext } from './context';
import { AppError, ERROR_STATUS, type ErrorBody } from './lib/errors';
import { newId } from './lib/ids';
import { apiKeyRoutes, sessionRoutes } from './modules/auth';
import { commissionLifecycleRoutes } from './modules/commissions/lifecycle-routes';
import { partnerRoutes } from './modules/partners';
import { payoutRoutes } from './modules/payouts';
import { systemRoutes } from './modules/system';

export const MAX_BODY_BYTES = 1024 * 1024;

/** Request ids, kept beside the request so the error handler can log them. */
const requestIds = new WeakMap<Request, string>();

export function createApp(ctx: AppContext) {
  const api = () =>
    new Elysia()
      .use(partnerRoutes(ctx))
      .use(apiKeyRoutes(ctx))
      .use(commissionLifecycleRoutes(ctx))
      .use(payoutRoutes(ctx));

  return new Elysia()
    .onParse(async ({ request, contentType }) => parseBody(request, contentType))
    .onError(({ error, code, request, path }) => {
      const body = toErrorBody(error, code);
      const status = ERROR_STATUS[body.code];
      if (status >= 500) ctx.log.error('request failed', { requestId: requestIds.get(request), path, error });
      return Response.json(body, { status });
    })
    .use(
      openapi({
        path: '/docs',
        specPath: '/openapi.json',
        documentation: {
          info: { title: 'Partnerd API', version: '1', description: 'Partners, conversion events, commissions, payouts and webhooks.' },
          components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'API key' } } },
          security: [{ bearer: [] }],
        },
        exclude: { paths: [/^\/(?!v1\/)(partners|api-keys|commissions|payouts)/] },
      }),
    )
    .use(systemRoutes(ctx))
    .use(sessionRoutes(ctx))
    .use(api())
    .group('/v1', (v1) => v1.use(api()));
}

export type App = ReturnType<typeof createApp>;

/**
 * The fetch handler in front of Elysia: request id, body size limit, access log and metrics.
 * Wrapping here sees every answer, including those Elysia builds itself.
 */
export function createFetch(ctx: AppContext, app: App) {
  return async function fetch(request: Request): Promise<Response> {
    const started = performance.now();
    const requestId = safeRequestId(request.headers.get('x-request-id')) ?? newId('event').slice(4);
    requestIds.set(request, requestId);
    let response: Response;
    const length = Number(request.headers.get('content-length') ?? 0);
    if (length > MAX_BODY_BYTES) {
      response = Response.json(new AppError('payload_too_large', 'request body larger than 1 MiB').toBody(), { status: 413 });
    } else {
      response = await app.handle(request);
    }
    response.headers.set('x-request-id', requestId);
    const seconds = (performance.now() - started) / 1000;
    const url = new URL(request.url);
    const route = routeLabel(url.pathname);
    ctx.metrics.inc('partnerd_http_requests_total', { method: request.method, route, status: String(response.status) });
    ctx.metrics.observe('partnerd_http_request_duration_seconds', seconds, { method: request.method, route });
    ctx.log.info('request', {
      requestId,
      method: request.method,
      path: url.pathname,
      status: response.status,
      ms: Math.round(seconds * 10000) / 10,
    });
    return response;
  };
}

function safeRequestId(value: string | null): string | undefined {
  return value && /^[A-Za-z0-9._-]{1,64}$/.test(value) ? value : undefined;
}

/** Collapses ids and slugs so metric labels stay few. */
function routeLabel(path: string): string {
  return path
    .replace(/\/[a-z]{3}_[0-9a-z]{26}/g, '/:id')
    .replace(/^\/r\/.+$/, '/r/:slug')
    .slice(0, 100);
}

async function readLimited(request: Request): Promise<string> {
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel().catch(() => undefined);
      throw new AppError('payload_too_large', 'request body larger than 1 MiB');
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Every body goes through here: size-limited, JSON parsed with a clear error. */
async function parseBody(request: Request, contentType: string): Promise<unknown> {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  const text = await readLimited(request);
  if (type === 'application/json' || type.endsWith('+json')) {
    if (text.trim() === '') return undefined;
    try {
      return JSON.parse(text);
    } catch {
      throw new AppError('invalid_body', 'request body is not valid JSON');
    }
  }
  if (type === 'application/x-www-form-urlencoded') return Object.fromEntries(new URLSearchParams(text));
  if (type.startsWith('text/') || type === '') return text === '' ? undefined : text;
  throw new AppError('unsupported_media_type', `content type ${type} is not accepted; send application/json`);
}

type ValueErrorLike = { path: string; message: string; summary?: string; schema?: { anyOf?: { const?: unknown }[]; enum?: unknown[] } };

function toErrorBody(error: unknown, code: string | number): ErrorBody {
  if (error instanceof AppError) return error.toBody();
  switch (code) {
    case 'VALIDATION': {
      const e = error as { type?: string; all?: ValueErrorLike[] };
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
      return { code: 'invalid_body', message: 'request body could not be parsed' };
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
    const options = e.schema?.anyOf?.map((s) => s.const).filter((c) => c !== undefined) ?? e.schema?.enum;
    const message = options && options.length > 0 ? `must be one of ${options.map((o) => JSON.stringify(o)).join(', ')}` : e.summary ?? e.message;
    seen.set(field, message);
  }
  return [...seen].map(([field, message]) => ({ field, message }));
}
