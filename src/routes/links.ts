// API routes of share links, click recording and identify (served unprefixed and under /v1).
import { Elysia } from 'elysia';
import type { AppContext } from '../context';
import { forbidden, invalidField, notFound } from '../lib/errors';
import { paginate, readPage } from '../lib/http';
import { canonicalIp } from '../lib/ip';
import { rejectUnstorable } from '../lib/storable';
import { authPlugin, ownPartnerId } from '../modules/auth/plugin';
import { clientAddress, CORS_HEADERS } from '../modules/links/address';
import { CreateLinkBody, IdentifyBody, LinkResponses, ListLinksQuery, RecordClickBody } from '../modules/links/model';
import { createLink, identify, listLinks, SLUG_PATTERN } from '../modules/links/service';

const preflight = () => new Response(null, { status: 204, headers: CORS_HEADERS });

export function linkRoutes(ctx: AppContext) {
  return new Elysia({ tags: ['Links and clicks'] })
    .use(authPlugin(ctx))
    .onBeforeHandle(rejectUnstorable)
    .post(
      '/links',
      async ({ body, principal, set }) => {
        const own = ownPartnerId(principal);
        if (own !== undefined && body.partnerId !== undefined && body.partnerId !== own) {
          throw forbidden('partners may only create links for themselves');
        }
        const partnerId = own ?? body.partnerId;
        if (partnerId === undefined) throw invalidField('partnerId', 'required');
        const link = await createLink(ctx.sql, ctx.config.baseUrl, { partnerId, campaignId: body.campaignId, slug: body.slug, destinationUrl: body.destinationUrl });
        ctx.links.invalidate({ slug: link.slug });
        set.status = 201;
        return link;
      },
      { auth: { scope: 'links:write', partner: true }, body: CreateLinkBody, response: LinkResponses.create, detail: { summary: 'Create a share link' } },
    )
    .get(
      '/links',
      async ({ query, principal }) => {
        const own = ownPartnerId(principal);
        if (own !== undefined && query.partnerId !== undefined && query.partnerId !== own) {
          throw forbidden('partners may only list their own links');
        }
        const page = readPage(query, 'link');
        const rows = await listLinks(ctx.sql, ctx.config.baseUrl, {
          ...page,
          partnerId: own ?? query.partnerId,
          campaignId: query.campaignId,
        });
        const { items, nextCursor } = paginate(rows, page.limit);
        return { links: items, nextCursor };
      },
      // there is no links:read scope: links are partner data, read with partners:read
      { auth: { scope: 'partners:read', partner: true }, query: ListLinksQuery, response: LinkResponses.list, detail: { summary: 'List share links' } },
    )
    .options('/clicks', preflight, { detail: { hide: true } })
    .post(
      '/clicks',
      async ({ body, request, set, principal }) => {
        if (!SLUG_PATTERN.test(body.slug)) throw notFound('link');
        const ip = clickAddress(body.ip, principal.kind) ?? clientAddress(request, ctx.config.trustProxy, ctx.http.server);
        const rt = ctx.links;
        const target = await rt.cache.get(body.slug.toLowerCase());
        if (!target) throw notFound('link');
        const clickId = await rt.recordClick(target, {
          ip,
          userAgent: body.userAgent ?? request.headers.get('user-agent'),
          referrer: body.referrer ?? request.headers.get('referer'),
          sub: body.sub ?? null,
        });
        set.status = 201;
        return { clickId, destinationUrl: rt.location(target, clickId) };
      },
      {
        auth: { scope: 'events:write', publishable: true },
        body: RecordClickBody,
        response: LinkResponses.click,
        detail: { summary: 'Record a click for operators who redirect themselves' },
      },
    )
    .options('/identify', preflight, { detail: { hide: true } })
    .post(
      '/identify',
      async ({ body, request }) => {
        const ip = clientAddress(request, ctx.config.trustProxy, ctx.http.server);
        const ipHash = ip ? await ctx.links.networkHash(ip) : null;
        return identify(ctx.sql, { userId: body.userId, clickIds: body.clickIds ?? [], ipHash }, (ids) => ctx.links.clicksWritten(ids));
      },
      {
        auth: { scope: 'events:write', publishable: true },
        body: IdentifyBody,
        response: LinkResponses.identify,
        detail: { summary: 'Join a user id to the clicks its browser arrived through' },
      },
    );
}


/**
 * The visitor's address a server-side caller states: canonical, or a 400 for one that is not an
 * address. A browser (a publishable key) may not state one: its address is its connection's.
 */
function clickAddress(ip: string | undefined, caller: string): string | null {
  if (ip === undefined) return null;
  if (caller === 'publishable') throw invalidField('ip', 'only a secret key may set it; a browser\'s address is its connection\'s');
  const canonical = canonicalIp(ip);
  if (canonical === null) throw invalidField('ip', 'must be an IPv4 or IPv6 address');
  return canonical;
}
