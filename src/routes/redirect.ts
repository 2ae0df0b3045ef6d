// Public, unauthenticated paths: GET /r/:slug (the share link) and GET /client.js.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Server } from 'bun';
import { Elysia } from 'elysia';
import type { AppContext } from '../context';
import { clientAddress } from '../modules/links/address';
import type { LinkTarget } from '../modules/links/cache';
import { page } from '../modules/links/page';
import { SLUG_PATTERN } from '../modules/links/service';
import { subOf } from '../modules/links/traffic';

const CLIENT_SOURCE = readFileSync(join(import.meta.dir, '../modules/links/client.js'), 'utf8');
const DEFAULT_REF = 'var REF = ["via","fpr","ref","ps_partner_key"];';

/** The browser client with this service's referral parameters (LEGACY_REF_PARAMS), and its ETag. */
function clientScript(refParams: string[]): { text: string; etag: string } {
  if (!CLIENT_SOURCE.includes(DEFAULT_REF)) throw new Error('client.js no longer holds the referral parameters line this route fills in');
  const text = CLIENT_SOURCE.replace(DEFAULT_REF, `var REF = ${JSON.stringify(refParams)};`);
  return { text, etag: `"${Bun.hash(text).toString(36)}"` };
}

const notFoundPage = (headers: Record<string, string>) =>
  page('Link not found', '<h1>Link not found</h1><p>This share link does not exist. Check the address you were given.</p>', 404, headers);

/** Served ahead of Elysia (src/server.ts): Bun's server (for the client address) and the request id. */
export type ShareLinkVia = { server: Server<unknown>; requestId: string };

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
 * or the 404 page. Synchronous when the link is cached, as it nearly always is. Served ahead of
 * Elysia by Bun's route table (src/server.ts, `via`: every answer then carries the request id),
 * and by Elysia for the paths that table leaves to it (a trailing slash).
 */
export function shareLinkHandler(ctx: AppContext) {
  const runtime = ctx.links;
  const trustProxy = ctx.config.trustProxy;

  const answer = (request: Request, target: LinkTarget | null, via: ShareLinkVia | undefined): Response | Promise<Response> => {
    if (!target) return notFoundPage(idHeader(via));
    const query = incomingQuery(request.url);
    const redirect = (clickId: string | null) => {
      const location = runtime.location(target, clickId, query);
      // the headers in one literal: setting one more after the Response exists costs a lookup
      const headers: Record<string, string> = via
        ? { location, 'cache-control': 'private, no-store', 'x-request-id': via.requestId }
        : { location, 'cache-control': 'private, no-store' };
      return new Response(null, { status: 302, headers });
    };
    const clickId = runtime.recordClick(target, {
      ip: clientAddress(request, trustProxy, via ? via.server : ctx.http.server),
      userAgent: request.headers.get('user-agent'),
      referrer: request.headers.get('referer'),
      // a malformed sub-ID is left off the click; the visitor goes on all the same
      sub: subOf(query),
    });
    return clickId instanceof Promise ? clickId.then(redirect) : redirect(clickId);
  };

  return (request: Request, slug: string | null, via?: ShareLinkVia): Response | Promise<Response> => {
    // Elysia hands over null when the path is not valid percent-encoding (Bun's router a string
    // with replacement characters, which the pattern refuses too)
    if (typeof slug !== 'string' || !SLUG_PATTERN.test(slug)) return notFoundPage(idHeader(via));
    const target = runtime.cache.get(slug.toLowerCase());
    if (!(target instanceof Promise)) return answer(request, target, via);
    return target.then(
      (t) => answer(request, t, via),
      (error) => {
        // a visitor, not an API client: a page, and the link works again once the database is back
        ctx.log.error('share link lookup failed', { slug, error });
        return page('Try again shortly', '<h1>This link is unavailable for a moment</h1><p>Please try again in a minute.</p>', 503, { 'retry-after': '30', ...idHeader(via) });
      },
    );
  };
}

const idHeader = (via: ShareLinkVia | undefined): Record<string, string> => (via ? { 'x-request-id': via.requestId } : {});

export function redirectRoutes(ctx: AppContext) {
  const shareLink = shareLinkHandler(ctx);
  const client = clientScript(ctx.config.legacyRefParams);
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
          etag: client.etag,
          'access-control-allow-origin': '*',
        };
        if (request.headers.get('if-none-match') === client.etag) return new Response(null, { status: 304, headers });
        return new Response(client.text, { headers });
      },
      { detail: { hide: true, summary: 'The browser client' } },
    );
}
