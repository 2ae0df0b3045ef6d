// GET /openapi.json and GET /docs: the OpenAPI document generated from the route schemas, with
// what the generator cannot see filled in, and the reference page that renders it.
import { toOpenAPISchema } from '@elysiajs/openapi';
import { Elysia, type AnyElysia } from 'elysia';

type Operation = { requestBody?: { content?: Record<string, { schema?: unknown }> } & Record<string, unknown> };
type Document = { paths: Record<string, Record<string, Operation>> } & Record<string, unknown>;

// every API path is also served unprefixed; the document lists the /v1 form once
const UNPREFIXED_API = /^\/(?!v1\/)(partners|api-keys|events|commissions|webhooks|campaigns|links|clicks|identify|settings|payouts|attribution)/;

const INFO = { title: 'Partnerd API', version: '1', description: 'Partners, conversion events, commissions, payouts and webhooks.' };

/** The document for `app`'s routes (built on first use: every route is registered by then). */
export function openApiDocument(app: AnyElysia): Document {
  // the generator drops the body schema of a route with a parse hook: show it the routes without
  const inner = app as unknown as { getGlobalRoutes(): { hooks: object }[]; getGlobalDefinitions?(): unknown };
  const routes = inner.getGlobalRoutes().map((route) => ({ ...route, hooks: { ...route.hooks, parse: undefined } }));
  const view = { getGlobalRoutes: () => routes, getGlobalDefinitions: () => inner.getGlobalDefinitions?.() } as unknown as AnyElysia;
  const generated = toOpenAPISchema(view, { paths: [UNPREFIXED_API] }) as unknown as Pick<Document, 'paths'> & { components?: { schemas?: unknown } };
  for (const item of Object.values(generated.paths)) {
    for (const operation of Object.values(item)) jsonOnlyBody(operation);
  }
  return {
    openapi: '3.1.0',
    info: INFO,
    paths: generated.paths,
    components: {
      schemas: generated.components?.schemas ?? {},
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'API key' } },
    },
    security: [{ bearer: [] }],
  };
}

/**
 * API bodies are JSON objects only (lib/json-body.ts), though the generator offers forms too: keep
 * the one media type the route takes. Routes that read raw bytes (provider webhooks) declare no
 * body schema and have no requestBody here.
 */
function jsonOnlyBody(operation: Operation): void {
  const json = operation.requestBody?.content?.['application/json'];
  if (json) operation.requestBody!.content = { 'application/json': json };
}

export function openApiRoutes(root: () => AnyElysia) {
  let document: Document | undefined;
  return new Elysia()
    .get('/openapi.json', () => (document ??= openApiDocument(root())), { detail: { hide: true } })
    .get('/docs', () => new Response(DOCS_PAGE, { headers: { 'content-type': 'text/html; charset=utf-8' } }), { detail: { hide: true } });
}

const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${INFO.title}</title>
</head>
<body>
<script id="api-reference" data-url="/openapi.json"></script>
<script src="https://cdn.jsdelivr.net/npm/@scalar/api-reference@latest/dist/browser/standalone.min.js"></script>
</body>
</html>
`;
