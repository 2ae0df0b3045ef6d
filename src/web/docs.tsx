// GET /docs: Swagger UI over /openapi.json, served from our own dependencies (swagger-ui-dist's
// prebuilt bundle and stylesheet) and started by our own script, never from a CDN: the page works
// with no internet and under a CSP that allows no inline script and no inline style.
import { readFileSync } from 'node:fs';
import { Elysia } from 'elysia';
import { render } from './render';

/**
 * Scripts, stylesheets and fetches only from this service. Swagger UI is React: the styles it
 * sets go through the CSSOM (element.style), which style-src does not govern, so no
 * 'unsafe-inline' is needed. data: images are the icons inside swagger-ui.css.
 */
export const DOCS_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';

/** Resolved through the package, so any install layout works. */
const swaggerFile = (name: string) => new URL(name, import.meta.resolve('swagger-ui-dist/package.json')).pathname;
const ownFile = (name: string) => new URL(`assets/${name}`, import.meta.url).pathname;

/** The page's files: Swagger UI's from node_modules, the starter and the few overrides ours. */
const FILES: Record<string, { path: string; type: string }> = {
  'swagger-ui.js': { path: swaggerFile('swagger-ui-bundle.js'), type: JS },
  'swagger-ui.css': { path: swaggerFile('swagger-ui.css'), type: CSS },
  'docs.js': { path: ownFile('docs.js'), type: JS },
  'docs.css': { path: ownFile('docs.css'), type: CSS },
};

function DocsPage() {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>Partnerd API</title>
        <link rel="icon" href="/assets/favicon.svg" type="image/svg+xml" />
        <link rel="stylesheet" href="/assets/swagger-ui.css" />
        <link rel="stylesheet" href="/assets/docs.css" />
      </head>
      <body>
        <main id="swagger-ui" data-url="/openapi.json">
          <noscript>
            <p>
              The API reference needs JavaScript. The OpenAPI document itself is at <a href="/openapi.json">/openapi.json</a>.
            </p>
          </noscript>
        </main>
        <script src="/assets/swagger-ui.js"></script>
        <script src="/assets/docs.js"></script>
      </body>
    </html>
  );
}

export function docsRoutes() {
  const routes = new Elysia({ detail: { hide: true } }).get('/docs', () =>
    render(<DocsPage />, { headers: { 'content-security-policy': DOCS_CSP } }),
  );
  for (const name of Object.keys(FILES)) routes.get(`/assets/${name}`, ({ request }) => asset(name, request));
  return routes;
}

const HEADERS = { 'cache-control': 'public, max-age=3600', 'x-content-type-options': 'nosniff', vary: 'accept-encoding' };

/**
 * Each file read and gzipped once, on first use (the 1.7 MB bundle is about 0.5 MB gzipped), then
 * kept: the names are a fixed list, so no request path ever reaches the disk.
 */
const loaded = new Map<string, { plain: Uint8Array<ArrayBuffer>; gzipped: Uint8Array<ArrayBuffer> }>();
function asset(name: string, request: Request): Response {
  const file = FILES[name]!;
  let bytes = loaded.get(name);
  if (!bytes) {
    const plain = new Uint8Array(readFileSync(file.path));
    bytes = { plain, gzipped: Bun.gzipSync(plain) };
    loaded.set(name, bytes);
  }
  const gzip = /\bgzip\b/.test(request.headers.get('accept-encoding') ?? '');
  return new Response(gzip ? bytes.gzipped : bytes.plain, {
    headers: { ...HEADERS, 'content-type': file.type, ...(gzip ? { 'content-encoding': 'gzip' } : {}) },
  });
}
