// The web face of Partnerd: the shared assets and the server-rendered pages (see docs/web.md).
import { readFileSync } from 'node:fs';
import { Elysia } from 'elysia';
import type { AppContext } from '../context';
import { adminRoutes } from './admin';
import { docsRoutes } from './docs';
import { portalRoutes } from './portal';
import { BRAND_COLOR, brandCss } from './brand';
import { startRoutes } from './start';
import { unsubscribeRoutes } from './unsubscribe';
import { notificationRoutes } from './portal/notifications';
import { embedRoutes } from './embed';
import { adminKit } from './admin/kit';
import { adminResourceRoutes } from './admin/resources';
import { adminImportRoutes } from './admin/imports';
import { adminTaxRoutes } from './admin/tax';
import { portalResourceRoutes } from './portal/resources';
import { payoutMethodPortalRoutes } from './portal/payout-method';
import { taxPortalRoutes } from './portal/tax';
import { notePageRoute } from './page-route';

const ASSETS: Record<string, { file: string; type: string }> = {
  'style.css': { file: 'assets/style.css', type: 'text/css; charset=utf-8' },
  'copy.js': { file: 'assets/copy.js', type: 'text/javascript; charset=utf-8' },
  'ui.js': { file: 'assets/ui.js', type: 'text/javascript; charset=utf-8' },
  'link-builder.js': { file: 'assets/link-builder.js', type: 'text/javascript; charset=utf-8' },
  'rules.js': { file: 'assets/rules.js', type: 'text/javascript; charset=utf-8' },
  'tax-form.js': { file: 'assets/tax-form.js', type: 'text/javascript; charset=utf-8' },
  // htmx from our own dependencies (never a CDN); pages that swap parts of themselves list it
  'htmx.js': { file: Bun.resolveSync('htmx.org/dist/htmx.min.js', import.meta.dir), type: 'text/javascript; charset=utf-8' },
  // the page layouts link the SVG; /favicon.ico is for browsers and tools that ask for it anyway
  'favicon.svg': { file: 'assets/favicon.svg', type: 'image/svg+xml' },
  'favicon.ico': { file: 'assets/favicon.ico', type: 'image/x-icon' },
};

/** Static files, read once; the names are few and fixed, so no request path ever reaches the disk. */
const assets = new Map(
  Object.entries(ASSETS).map(([name, { file, type }]) => [
    name,
    { body: readFileSync(file.startsWith('/') ? file : new URL(file, import.meta.url)), type },
  ]),
);

function asset(name: string): Response {
  const found = assets.get(name);
  if (!found) return new Response('not found', { status: 404 });
  return new Response(found.body, {
    headers: { 'content-type': found.type, 'cache-control': 'public, max-age=300', 'x-content-type-options': 'nosniff' },
  });
}

export function webRoutes(ctx: AppContext) {
  return new Elysia({ detail: { hide: true } })
    // every page below learns the pattern it matched: the admin pages' role check reads it
    .onBeforeHandle(({ request, route }) => notePageRoute(request, route))
    .get('/assets/:name', ({ params }) => asset(params.name))
    .get('/favicon.ico', () => asset('favicon.ico'))
    // the accent of the branded pages; the colour is the whole input, so any cache may keep it
    .get('/brand.css', ({ query }) => {
      const color = String((query as Record<string, unknown>).c ?? '').toLowerCase();
      if (!BRAND_COLOR.test(color)) return new Response('/* not a colour */', { status: 400, headers: { 'content-type': 'text/css; charset=utf-8' } });
      return new Response(brandCss(color), { headers: { 'content-type': 'text/css; charset=utf-8', 'cache-control': 'public, max-age=86400', 'x-content-type-options': 'nosniff' } });
    })
    .use(startRoutes(ctx))
    .use(unsubscribeRoutes(ctx))
    .use(notificationRoutes(ctx))
    .use(embedRoutes(ctx))
    .use(payoutMethodPortalRoutes(ctx))
    .use(taxPortalRoutes(ctx))
    .use(docsRoutes())
    .use(portalRoutes(ctx))
    .use(portalResourceRoutes(ctx))
    .use(adminRoutes(ctx))
    .use(adminResourceRoutes(ctx, adminKit(ctx)))
    .use(adminImportRoutes(ctx, adminKit(ctx)))
    .use(adminTaxRoutes(ctx, adminKit(ctx)));
}
