// Public, unauthenticated paths: GET /r/:slug (the share link) and GET /client.js.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Elysia } from 'elysia';
import type { AppContext } from '../../context';
import { clientAddress } from './address';
import type { LinkTarget } from './cache';
import { page } from './page';
import { linkRuntime } from './runtime';
import { SLUG_PATTERN } from './service';

const CLIENT_JS = readFileSync(join(import.meta.dir, 'client.js'), 'utf8');
const CLIENT_ETAG = `"${Bun.hash(CLIENT_JS).toString(36)}"`;

const notFoundPage = () =>
  page('Link not found', '<h1>Link not found</h1><p>This share link does not exist. Check the address you were given.</p>', 404);

/** The share link's own query (minus any pp_click), passed on to the destination. */
function incomingQuery(url: string): string {
  const q = url.indexOf('?');
  if (q === -1 || q === url.length - 1) return '';
  const query = url.slice(q + 1);
  if (!query.includes('pp_click')) return query;
  return query
    .split('&')
    .filter((part) => part !== '' && part.split('=')[0] !== 'pp_click')
    .join('&');
}

/**
 * The share-link answer: 302 with pp_click (click buffered), 302 without for a revoked partner,
 * or the 404 page. Synchronous when the link is cached, as it nearly always is.
 */
export function shareLinkHandler(ctx: AppContext) {
  const runtime = linkRuntime(ctx);
  const trustProxy = ctx.config.trustProxy;

  const answer = (request: Request, target: LinkTarget | null): Response | Promise<Response> => {
    if (!target) return notFoundPage();
    const redirect = (clickId: string | null) =>
      new Response(null, {
        status: 302,
        headers: { location: runtime.location(target, clickId, incomingQuery(request.url)), 'cache-control': 'private, no-store' },
      });
    const clickId = runtime.recordClick(target, {
      ip: clientAddress(request, trustProxy),
      userAgent: request.headers.get('user-agent'),
      referrer: request.headers.get('referer'),
    });
    return clickId instanceof Promise ? clickId.then(redirect) : redirect(clickId);
  };

  return (request: Request, slug: string | null): Response | Promise<Response> => {
    // Elysia hands over null when the path is not valid percent-encoding
    if (typeof slug !== 'string' || !SLUG_PATTERN.test(slug)) return notFoundPage();
    const target = runtime.cache.get(slug.toLowerCase());
    if (!(target instanceof Promise)) return answer(request, target);
    return target.then(
      (t) => answer(request, t),
      (error) => {
        // a visitor, not an API client: a page, and the link works again once the database is back
        ctx.log.error('share link lookup failed', { slug, error });
        return page('Try again shortly', '<h1>This link is unavailable for a moment</h1><p>Please try again in a minute.</p>', 503, { 'retry-after': '30' });
      },
    );
  };
}

export function redirectRoutes(ctx: AppContext) {
  const shareLink = shareLinkHandler(ctx);
  return new Elysia()
    .get('/r/:slug', ({ params, request }) => shareLink(request, params.slug), {
      // pages for visitors, not API operations: kept out of the OpenAPI document
      detail: { hide: true, summary: 'Follow a share link (302 to the campaign destination)' },
    })
    .get(
      '/client.js',
      ({ request }) => {
        const headers = {
          'content-type': 'text/javascript; charset=utf-8',
          'cache-control': 'public, max-age=3600, stale-while-revalidate=86400',
          etag: CLIENT_ETAG,
          'access-control-allow-origin': '*',
        };
        if (request.headers.get('if-none-match') === CLIENT_ETAG) return new Response(null, { status: 304, headers });
        return new Response(CLIENT_JS, { headers });
      },
      { detail: { hide: true, summary: 'The browser client' } },
    );
}
