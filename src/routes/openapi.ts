// GET /openapi.json: the OpenAPI document generated from the route schemas, with what the
// generator cannot see filled in (the reference page that renders it is web/docs.tsx).
import { toOpenAPISchema } from '@elysiajs/openapi';
import { Elysia, type AnyElysia } from 'elysia';
import { SESSION_COOKIE } from '../modules/auth/sessions';
import { envelopeOf, EVENT_FIRES_WHEN, EVENT_TYPES } from '../modules/webhooks/events';

type Operation = {
  requestBody?: { content?: Record<string, { schema?: unknown }> } & Record<string, unknown>;
  responses?: Record<string, unknown>;
  security?: unknown[];
};
type Document = { paths: Record<string, Record<string, Operation>> } & Record<string, unknown>;

// every API path is also served unprefixed; the document lists the /v1 form once
const UNPREFIXED_API = /^\/(?!v1\/)(partners|api-keys|events|commissions|webhooks|campaigns|links|clicks|identify|settings|payouts|attribution|resources|embed-tokens|codes|groups|imports|team|audit-log|tax|fx-rates)/;

// Who may call: each operation lists the schemes it accepts (auth/plugin.ts securityOf)
const SECURITY_SCHEMES = {
  adminKey: { type: 'http', scheme: 'bearer', description: 'The admin key (`sk_admin_…`): every call.' },
  scopedKey: { type: 'http', scheme: 'bearer', description: 'A scoped key (`sk_…`) holding the scope the operation names.' },
  partnerKey: { type: 'http', scheme: 'bearer', description: "A partner key (`sk_ptn_…`): that partner's own data only." },
  publishableKey: { type: 'http', scheme: 'bearer', description: 'A publishable key (`pk_…`), safe in a browser: identify and clicks only.' },
  session: {
    type: 'apiKey',
    in: 'cookie',
    name: SESSION_COOKIE,
    description: "The browser session of the magic-link sign-in: an admin's everywhere, a partner's where partner keys are accepted.",
  },
};

const INFO = {
  title: 'Partnerd API',
  version: '1',
  description: 'Partners, conversion events, commissions, payouts and webhooks.',
  license: { name: 'MIT', identifier: 'MIT' },
};

/** The document for `app`'s routes (built on first use: every route is registered by then). */
export function openApiDocument(app: AnyElysia): Document {
  // Elysia completes the schemas (additionalProperties and the like) when it compiles a route, and
  // the schema objects are shared: compile every route first, so the document is the same whether
  // or not a request has been served yet
  for (const route of app.routes as { compile?: () => unknown }[]) route.compile?.();
  // the generator drops the body schema of a route with a parse hook: show it the routes without
  const inner = app as unknown as { getGlobalRoutes(): { hooks: object }[]; getGlobalDefinitions?(): unknown };
  const routes = inner.getGlobalRoutes().map((route) => ({ ...route, hooks: { ...route.hooks, parse: undefined } }));
  const view = { getGlobalRoutes: () => routes, getGlobalDefinitions: () => inner.getGlobalDefinitions?.() } as unknown as AnyElysia;
  const generated = toOpenAPISchema(view, { paths: [UNPREFIXED_API], staticFile: false }) as unknown as Pick<Document, 'paths'> & { components?: { schemas?: unknown } };
  for (const item of Object.values(generated.paths)) {
    for (const operation of Object.values(item)) {
      jsonOnlyBody(operation);
      if (operation.responses) // TypeBox's UnionEnum writes its first value as a `default`: meaningful in a request (the value
      // taken when absent), misleading in an answer
      operation.responses = withoutKeywords(emptyAnswersWithoutContent(operation.responses), ['default']);
      // routes without an auth rule are public (sign-in, health, the browser's identify preflight)
      operation.security ??= [];
    }
  }
  const document = {
    openapi: '3.1.0',
    info: INFO,
    servers: [{ url: '/', description: 'This Partnerd service (every path is also served without /v1).' }],
    paths: generated.paths,
    components: { schemas: generated.components?.schemas ?? {}, securitySchemes: SECURITY_SCHEMES },
    webhooks: outboundEvents(),
  };
  // OpenAPI 3.1 is JSON Schema: null is a type (`type: ["string", "null"]`); the 3.0 keyword
  // `nullable`, which TypeBox's Nullable still writes beside it, is not allowed
  return withoutKeywords(document, ['nullable']);
}

/**
 * API bodies are JSON objects only (lib/json-body.ts), though the generator offers forms too: keep
 * the one media type the route takes. Routes that read raw bytes (provider webhooks) declare no
 * body schema and have no requestBody here.
 */
function jsonOnlyBody(operation: Operation): void {
  const content = operation.requestBody?.content;
  const json = content?.['application/json'];
  // the generator's offer is all three media types; a route that writes its own (uploads) keeps it
  if (json && content['application/x-www-form-urlencoded']) operation.requestBody!.content = { 'application/json': json };
}

export function openApiRoutes(root: () => AnyElysia) {
  let document: Document | undefined;
  return new Elysia()
    .get('/openapi.json', () => (document ??= openApiDocument(root())), { detail: { hide: true } });
}


const header = (name: string, description: string, example: string) => ({
  name,
  in: 'header',
  required: true,
  description,
  schema: { type: 'string', examples: [example] },
});

// every delivery carries both signature schemes (modules/webhooks/signing.ts)
const DELIVERY_HEADERS = [
  header('x-service-event', 'The event type.', 'commission.accrued'),
  header('x-service-delivery', 'Delivery id (the envelope id): dedupe on it.', 'evt_01jd8x0000000000000000000a'),
  header('x-service-timestamp', 'Unix time in seconds; refuse it more than 300 s from your clock.', '1767225600'),
  header('x-service-signature', 'Lowercase hex HMAC-SHA256 of `<timestamp>.<raw body>`, keyed with the endpoint secret (UTF-8).', '5d41402abc4b2a76b9719d911017c592…'),
  header('webhook-id', 'Standard Webhooks: the message id (same as x-service-delivery).', 'evt_01jd8x0000000000000000000a'),
  header('webhook-timestamp', 'Standard Webhooks: Unix time in seconds.', '1767225600'),
  header('webhook-signature', 'Standard Webhooks: `v1,<base64 HMAC-SHA256 of id.timestamp.body>`, keyed with the base64 part of the secret; within 24 h of a secret rotation a second entry, space-separated, signed with the old secret (any one matching verifies).', 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4='),
];

/** The OpenAPI 3.1 `webhooks` section: what each subscribed endpoint receives, signed. */
function outboundEvents() {
  return Object.fromEntries(
    EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          summary: type,
          description: `${EVENT_FIRES_WHEN[type]} Delivered with a 10 s timeout; any answer but 2xx is a failure, logged and retried by hand (or on a schedule with WEBHOOK_AUTO_RETRY).`,
          operationId: `event.${type}`,
          tags: ['Outbound events'],
          parameters: DELIVERY_HEADERS,
          requestBody: { required: true, content: { 'application/json': { schema: envelopeOf(type) } } },
          responses: { '2XX': { description: 'Received.' } },
          security: [],
        },
      },
    ]),
  );
}

/**
 * A copy of `node` without the schema keywords `drop` names. Keywords are plain values; a property
 * that happens to be called `default` or `nullable` is a schema (an object) and stays.
 */
function withoutKeywords<T>(node: T, drop: string[]): T {
  if (Array.isArray(node)) return node.map((item) => withoutKeywords(item, drop)) as T;
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (drop.includes(key) && (value === null || typeof value !== 'object')) continue;
    out[key] = withoutKeywords(value, drop);
  }
  return out as T;
}

/**
 * An empty answer (a 204 declared with t.Void) has no content; the generator writes the schema
 * itself where the media types belong (`content: {type: "void"}`), which is not OpenAPI.
 */
function emptyAnswersWithoutContent(responses: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(responses).map(([status, answer]) => {
      const { content, ...rest } = answer as { content?: Record<string, unknown> };
      return [status, content && 'type' in content ? rest : answer];
    }),
  );
}
