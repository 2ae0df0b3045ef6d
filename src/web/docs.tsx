// GET /docs: the Scalar API reference for /openapi.json, its viewer served from our own
// dependencies (@scalar/api-reference's standalone bundle at /assets/scalar.js), never from a CDN.
import { Elysia } from 'elysia';
import { render } from './render';

/** The viewer's one-file browser build; resolved through the package, so any install layout works. */
const SCALAR_BUNDLE = new URL('./browser/standalone.js', import.meta.resolve('@scalar/api-reference')).pathname;

/**
 * Scalar draws with Vue: inline style attributes and the style elements it injects need
 * 'unsafe-inline' styles. Scripts still come only from us, and the page may talk to no one else
 * (its "send request" panel calls this same service).
 */
export const DOCS_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/**
 * Scalar's settings: no web fonts, no telemetry, and none of its hosted services (AI agent, MCP,
 * developer tools), so nothing is fetched from outside.
 */
const CONFIGURATION = {
  url: '/openapi.json',
  withDefaultFonts: false,
  telemetry: false,
  showDeveloperTools: 'never',
  agent: { disabled: true },
  mcp: { disabled: true },
};

function DocsPage() {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>Partnerd API</title>
        <link rel="icon" href="/assets/favicon.svg" type="image/svg+xml" />
      </head>
      <body>
        <script id="api-reference" type="application/json" data-configuration={JSON.stringify(CONFIGURATION)}></script>
        <script src="/assets/scalar.js"></script>
      </body>
    </html>
  );
}

export function docsRoutes() {
  return new Elysia({ detail: { hide: true } })
    .get('/docs', () => render(<DocsPage />, { headers: { 'content-security-policy': DOCS_CSP } }))
    .get('/assets/scalar.js', async ({ request }) => {
      const headers: Record<string, string> = {
        'content-type': 'text/javascript; charset=utf-8',
        'cache-control': 'public, max-age=3600',
        'x-content-type-options': 'nosniff',
        vary: 'accept-encoding',
      };
      if (!/\bgzip\b/.test(request.headers.get('accept-encoding') ?? '')) return new Response(Bun.file(SCALAR_BUNDLE), { headers });
      return new Response(await gzippedBundle(), { headers: { ...headers, 'content-encoding': 'gzip' } });
    });
}

/** 4.3 MB of script is 1.3 MB gzipped; compressed once (about 70 ms), on first use. */
let gzipped: Promise<Uint8Array<ArrayBuffer>> | undefined;
function gzippedBundle(): Promise<Uint8Array<ArrayBuffer>> {
  gzipped ??= Bun.file(SCALAR_BUNDLE)
    .bytes()
    .then((bytes) => Bun.gzipSync(bytes));
  return gzipped;
}
