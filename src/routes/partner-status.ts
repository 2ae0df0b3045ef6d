// Partner status changes of SPEC section 4 (served unprefixed and under /v1 by app.ts): the invite sent
// again, revoke (and delete, which also revokes the API keys) and reinstate, and an application's
// approval or decline. The partner record itself is ./partners.ts.
import { Elysia } from 'elysia';
import type { AppContext } from '../context';
import { authPlugin } from '../modules/auth/plugin';
import { DeclineBody, PartnerParams, PartnerResponses, RevokeBody, RevokeQuery } from '../modules/partners/model';
import { approveApplication, declineApplication } from '../workflows/applications';
import { reinvitePartner } from '../workflows/invite-partner';
import { reinstatePartner, revokePartner } from '../workflows/revoke-partner';

export function partnerStatusRoutes(ctx: AppContext) {
  return new Elysia({ tags: ['Partners'] })
    .use(authPlugin(ctx))
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
    });
}
