// Partner routes of SPEC section 4 (served unprefixed and under /v1 by app.ts): the partner record
// (create, list, read, update), its frozen terms and its API keys. Status changes (invite, revoke,
// approve, decline, reinstate) are ./partner-status.ts; app.ts mounts the three in that order.
import { Elysia } from 'elysia';
import type { AppContext } from '../context';
import { paginate, readPage } from '../lib/http';
import { authPlugin, requirePartner } from '../modules/auth/plugin';
import { createApiKey } from '../modules/auth/keys';
import { AppError, conflict } from '../lib/errors';
import { ApiKeyResponses, CreatePartnerKeyBody } from '../modules/auth/model';
import { CreatePartnerBody, ListPartnersQuery, PartnerParams, PartnerResponses, UpdatePartnerBody } from '../modules/partners/model';
import { getCommissionSnapshot, getPartner, listPartners, updatePartner, type Partner } from '../modules/partners/service';
import { createPartner } from '../workflows/invite-partner';

const listItem = (p: Partner) => ({
  id: p.id,
  email: p.email,
  name: p.name,
  billingConnectAccountId: p.billingConnectAccountId,
  createdAt: p.createdAt,
  activatedAt: p.activatedAt,
  revokedAt: p.revokedAt,
});

export function partnerRoutes(ctx: AppContext) {
  return new Elysia({ tags: ['Partners'] })
    .use(authPlugin(ctx))
    .post(
      '/partners',
      async ({ body, set }) => {
        const p = await createPartner(ctx, body);
        set.status = 201;
        return {
          id: p.id,
          email: p.email,
          name: p.name,
          activatedAt: p.activatedAt,
          createdAt: p.createdAt,
          invited: p.invited,
          campaignIds: p.campaignIds,
        };
      },
      { auth: 'partners:write', body: CreatePartnerBody, response: PartnerResponses.create, detail: { summary: 'Create a partner' } },
    )
    .get(
      '/partners',
      async ({ query }) => {
        const page = readPage(query, 'partner');
        const { items, nextCursor } = paginate(await listPartners(ctx.sql, { ...page, email: query.email, status: query.status, groupId: query.groupId }), page.limit);
        return { partners: items.map(listItem), nextCursor };
      },
      {
        auth: 'partners:read',
        query: ListPartnersQuery,
        response: PartnerResponses.list,
        detail: { summary: 'List partners', description: '`status=applied` lists the applications waiting for review.' },
      },
    )
    .get(
      '/partners/:id',
      async ({ params, principal }) => {
        requirePartner(principal, params.id);
        return getPartner(ctx.sql, params.id);
      },
      { auth: { scope: 'partners:read', partner: true }, params: PartnerParams, response: PartnerResponses.get, detail: { summary: 'Get a partner' } },
    )
    .patch(
      '/partners/:id',
      ({ params, body, principal }) => {
        requirePartner(principal, params.id);
        // a partner changes only which emails it receives here; the rest is the program's to set
        const others = Object.keys(body).filter((field) => field !== 'notifications');
        if (principal.kind === 'partner' && others.length > 0) {
          throw new AppError('forbidden', `partners may change only notifications here (not ${others.join(', ')})`);
        }
        return updatePartner(ctx.sql, params.id, body);
      },
      {
        auth: { scope: 'partners:write', partner: true },
        params: PartnerParams,
        body: UpdatePartnerBody,
        response: PartnerResponses.update,
        detail: { summary: 'Update a partner', description: 'A partner key (or session) may change its own `notifications` only.' },
      },
    );
}

/** A partner's commission terms frozen at approval, and an API key acting as it. */
export function partnerTermsAndKeyRoutes(ctx: AppContext) {
  return new Elysia({ tags: ['Partners'] })
    .use(authPlugin(ctx))
    .get(
      '/partners/:id/commission-snapshot',
      async ({ params, principal }) => {
        requirePartner(principal, params.id);
        return getCommissionSnapshot(ctx.sql, params.id);
      },
      {
        auth: { scope: 'partners:read', partner: true },
        params: PartnerParams,
        response: PartnerResponses.snapshot,
        detail: { summary: 'Commission terms frozen at approval' },
      },
    )
    .post(
      '/partners/:id/api-keys',
      async ({ params, body, set }) => {
        const partner = await getPartner(ctx.sql, params.id);
        if (partner.status === 'revoked') throw conflict('partner is revoked');
        if (partner.status === 'applied' || partner.status === 'declined') throw conflict(`partner is ${partner.status}: only an approved partner can have API keys`);
        set.status = 201;
        const { id, name, kind, scopes, partnerId, createdAt, key } = await createApiKey(ctx.sql, { name: body.name, kind: 'partner', partnerId: partner.id });
        return { id, name, kind, scopes, partnerId, createdAt, key };
      },
      {
        auth: 'admin',
        params: PartnerParams,
        body: CreatePartnerKeyBody,
        response: ApiKeyResponses.createForPartner,
        detail: { summary: 'Create an API key acting as this partner' },
      },
    );
}
