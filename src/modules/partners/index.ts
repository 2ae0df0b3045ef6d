// Partner routes of SPEC section 4 (served unprefixed and under /v1 by app.ts).
import { Elysia } from 'elysia';
import type { AppContext } from '../../context';
import { jsonNull, paginate, readPage } from '../../lib/http';
import { reinstatePartner, revokePartner } from '../../workflows/revoke-partner';
import { authPlugin, requirePartner } from '../auth/plugin';
import { createApiKey } from '../auth/keys';
import { conflict } from '../../lib/errors';
import { t } from 'elysia';
import { CreatePartnerBody, ListPartnersQuery, PartnerParams, RevokeBody, UpdatePartnerBody } from './model';
import {
  createPartner,
  getCommissionSnapshot,
  getPartner,
  listPartners,
  reinvitePartner,
  updatePartner,
  type Partner,
} from './service';

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
  return new Elysia({ tags: ['Partners'] } as never)
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
      { auth: 'partners:write', body: CreatePartnerBody, detail: { summary: 'Create a partner' } },
    )
    .get(
      '/partners',
      async ({ query }) => {
        const page = readPage(query, 'partner');
        const { items, nextCursor } = paginate(await listPartners(ctx.sql, { ...page, email: query.email }), page.limit);
        return { partners: items.map(listItem), nextCursor };
      },
      { auth: 'partners:read', query: ListPartnersQuery, detail: { summary: 'List partners' } },
    )
    .get(
      '/partners/:id',
      async ({ params, principal }) => {
        requirePartner(principal, params.id);
        return getPartner(ctx.sql, params.id);
      },
      { auth: { scope: 'partners:read', partner: true }, params: PartnerParams, detail: { summary: 'Get a partner' } },
    )
    .patch(
      '/partners/:id',
      ({ params, body }) => updatePartner(ctx.sql, params.id, body),
      { auth: 'partners:write', params: PartnerParams, body: UpdatePartnerBody, detail: { summary: 'Update a partner' } },
    )
    .post('/partners/:id/invite', ({ params }) => reinvitePartner(ctx, params.id), {
      auth: 'admin',
      params: PartnerParams,
      detail: { summary: 'Re-send the magic-link invite' },
    })
    .post(
      '/partners/:id/revoke',
      ({ params, body }) => revokePartner(ctx, params.id, { reason: body?.reason, revokeKeys: false }),
      { auth: 'partners:write', params: PartnerParams, body: RevokeBody, detail: { summary: 'Revoke (suspend) a partner' } },
    )
    .delete(
      '/partners/:id',
      ({ params, body, query }) =>
        revokePartner(ctx, params.id, { reason: body?.reason ?? query.reason, revokeKeys: true }),
      {
        auth: 'admin',
        params: PartnerParams,
        body: RevokeBody,
        query: t.Object({ reason: t.Optional(t.String({ maxLength: 1000 })) }),
        detail: { summary: 'Revoke a partner and its API keys' },
      },
    )
    .post('/partners/:id/reinstate', ({ params }) => reinstatePartner(ctx, params.id), {
      auth: 'partners:write',
      params: PartnerParams,
      detail: { summary: 'Undo a revoke' },
    })
    .get(
      '/partners/:id/commission-snapshot',
      async ({ params, principal }) => {
        requirePartner(principal, params.id);
        return (await getCommissionSnapshot(ctx.sql, params.id)) ?? jsonNull();
      },
      { auth: { scope: 'partners:read', partner: true }, params: PartnerParams, detail: { summary: 'Commission terms frozen at approval' } },
    )
    .post(
      '/partners/:id/api-keys',
      async ({ params, body, set }) => {
        const partner = await getPartner(ctx.sql, params.id);
        if (partner.status === 'revoked') throw conflict('partner is revoked');
        set.status = 201;
        const { hint: _hint, revokedAt: _revoked, ...key } = await createApiKey(ctx.sql, { name: body.name, kind: 'partner', partnerId: partner.id });
        return key;
      },
      {
        auth: 'admin',
        params: PartnerParams,
        body: t.Object({ name: t.String({ minLength: 1, maxLength: 200 }) }),
        detail: { summary: 'Create an API key acting as this partner' },
      },
    );
}
