// Promotion code routes (served unprefixed and under /v1): create, list, read, archive.
import { Elysia } from 'elysia';
import type { AppContext } from '../context';
import { forbidden, invalidField } from '../lib/errors';
import { paginate, readPage } from '../lib/http';
import { rejectUnstorable } from '../lib/storable';
import { authPlugin, ownPartnerId, requirePartner } from '../modules/auth/plugin';
import { CodeParams, CodeResponses, CreateCodeBody, ListCodesQuery, UpdateCodeBody } from '../modules/codes/model';
import { createCode, getCode, listCodes, setCodeArchived } from '../modules/codes/service';

export function codeRoutes(ctx: AppContext) {
  return new Elysia({ tags: ['Promotion codes'] })
    .use(authPlugin(ctx))
    .onBeforeHandle(rejectUnstorable)
    .post(
      '/codes',
      async ({ body, principal, set }) => {
        const own = ownPartnerId(principal);
        if (own !== undefined && body.partnerId !== undefined && body.partnerId !== own) {
          throw forbidden('partners may only create codes for themselves');
        }
        const partnerId = own ?? body.partnerId;
        if (partnerId === undefined) throw invalidField('partnerId', 'required');
        const code = await createCode(ctx.sql, { code: body.code, partnerId, campaignId: body.campaignId }, ctx.codeSync);
        set.status = 201;
        return code;
      },
      {
        auth: { scope: 'campaigns:write', partner: true },
        body: CreateCodeBody,
        response: CodeResponses.create,
        detail: {
          summary: 'Create a promotion code',
          description:
            "Admins (campaigns:write) for any partner; a partner for itself, on a campaign it holds (403 otherwise). A code taken ignoring case is a 409. With STRIPE_SECRET_KEY and the campaign's stripeCouponId, the Stripe promotion code is created too; if Stripe refuses, the answer is 502 and no code is created.",
        },
      },
    )
    .get(
      '/codes',
      async ({ query, principal }) => {
        const own = ownPartnerId(principal);
        if (own !== undefined && query.partnerId !== undefined && query.partnerId !== own) {
          throw forbidden('partners may only list their own codes');
        }
        const page = readPage(query, 'promotionCode');
        const rows = await listCodes(ctx.sql, { ...page, partnerId: own ?? query.partnerId, campaignId: query.campaignId });
        const { items, nextCursor } = paginate(rows, page.limit);
        return { codes: items, nextCursor };
      },
      {
        auth: { scope: 'campaigns:read', partner: true },
        query: ListCodesQuery,
        response: CodeResponses.list,
        detail: { summary: 'List promotion codes, newest first (partners: their own)' },
      },
    )
    .get(
      '/codes/:id',
      async ({ params, principal }) => {
        const code = await getCode(ctx.sql, params.id);
        requirePartner(principal, code.partnerId);
        return code;
      },
      { auth: { scope: 'campaigns:read', partner: true }, params: CodeParams, response: CodeResponses.get, detail: { summary: 'Get a promotion code' } },
    )
    .patch(
      '/codes/:id',
      async ({ params, body }) => setCodeArchived(ctx.sql, params.id, body.archived, ctx.codeSync),
      {
        auth: 'campaigns:write',
        params: CodeParams,
        body: UpdateCodeBody,
        response: CodeResponses.update,
        detail: {
          summary: 'Archive ({archived: true}) or unarchive a promotion code',
          description: 'An archived code credits nobody: events naming it fall back to clicks. A code synced to Stripe is deactivated (reactivated) there first; if Stripe refuses, the answer is 502 and nothing changes.',
        },
      },
    );
}
