// Partner routes of SPEC section 4 (served unprefixed and under /v1 by app.ts).
import { Elysia } from 'elysia';
import type { AppContext } from '../context';
import { paginate, readPage } from '../lib/http';
import { reinstatePartner, revokePartner } from '../workflows/revoke-partner';
import { authPlugin, requirePartner } from '../modules/auth/plugin';
import { createApiKey } from '../modules/auth/keys';
import { AppError, conflict } from '../lib/errors';
import { ApiKeyResponses, CreatePartnerKeyBody } from '../modules/auth/model';
import { approveApplication, declineApplication } from '../workflows/applications';
import { CreatePartnerBody, DeclineBody, ListPartnersQuery, PartnerParams, PartnerResponses, RevokeBody, RevokeQuery, UpdatePartnerBody } from '../modules/partners/model';
import {
  createPartner,
  getCommissionSnapshot,
  getPartner,
  listPartners,
  reinvitePartner,
  updatePartner,
  type Partner,
} from '../modules/partners/service';

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
    )
    .post('/partners/:id/invite', ({ params }) => reinvitePartner(ctx, params.id), {
      auth: 'admin',
      params: PartnerParams,
      response: PartnerResponses.invite,
      detail: { summary: 'Re-send the magic-link invite' },
    })
    .post(
      '/partners/:id/revoke',
      ({ params, body }) => revokePartner(ctx, params.id, { reason: body?.reason, revokeKeys: false }),
      { auth: 'partners:write', params: PartnerParams, body: RevokeBody, response: PartnerResponses.revoke, detail: { summary: 'Revoke (suspend) a partner' } },
    )
    .delete(
      '/partners/:id',
      ({ params, body, query }) =>
        revokePartner(ctx, params.id, { reason: body?.reason ?? query.reason, revokeKeys: true }),
      {
        auth: 'admin',
        params: PartnerParams,
        body: RevokeBody,
        query: RevokeQuery,
        response: PartnerResponses.revoke,
        detail: { summary: 'Revoke a partner and its API keys' },
      },
    )
    .post('/partners/:id/approve', ({ params }) => approveApplication(ctx, params.id), {
      auth: 'partners:write',
      params: PartnerParams,
      response: PartnerResponses.approve,
      detail: {
        summary: 'Approve an application (sends the invite)',
        description: 'The partner must be `applied`; it becomes `pending` and is mailed the invite link. Any other status: 409.',
      },
    })
    .post('/partners/:id/decline', ({ params, body }) => declineApplication(ctx, params.id, body), {
      auth: 'partners:write',
      params: PartnerParams,
      body: DeclineBody,
      response: PartnerResponses.decline,
      detail: {
        summary: 'Decline an application (mails the reason)',
        description: 'The partner must be `applied`; it becomes `declined`, is mailed the reason and can never sign in. Any other status: 409.',
      },
    })
    .post('/partners/:id/reinstate', ({ params }) => reinstatePartner(ctx, params.id), {
      auth: 'partners:write',
      params: PartnerParams,
      response: PartnerResponses.reinstate,
      detail: { summary: 'Undo a revoke' },
    })
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
