// Campaign (program) routes: create, list, read, update and archive (served unprefixed and under /v1).
import { Elysia } from 'elysia';
import type { AppContext } from '../context';
import { forbidden } from '../lib/errors';
import { paginate, readPage } from '../lib/http';
import { rejectUnstorable } from '../lib/storable';
import { authPlugin, ownPartnerId } from '../modules/auth/plugin';
import { CampaignParams, CampaignResponses, CreateCampaignBody, ListCampaignsQuery, UpdateCampaignBody } from '../modules/campaigns/model';
import { createCampaign, getCampaign, listCampaigns, partnerHoldsCampaign, updateCampaign } from '../modules/campaigns/service';

export function campaignRoutes(ctx: AppContext) {
  return new Elysia({ tags: ['Campaigns'] })
    .use(authPlugin(ctx))
    .onBeforeHandle(rejectUnstorable)
    .post(
      '/campaigns',
      async ({ body, set }) => {
        set.status = 201;
        return createCampaign(ctx.sql, body);
      },
      { auth: 'campaigns:write', body: CreateCampaignBody, response: CampaignResponses.create, detail: { summary: 'Create a campaign' } },
    )
    .get(
      '/campaigns',
      async ({ query, principal }) => {
        const page = readPage(query, 'campaign');
        const archived = query.archived === undefined ? undefined : query.archived === 'true';
        const rows = await listCampaigns(ctx.sql, { ...page, archived, partnerId: ownPartnerId(principal) });
        const { items, nextCursor } = paginate(rows, page.limit);
        return { campaigns: items, nextCursor };
      },
      {
        auth: { scope: 'campaigns:read', partner: true },
        query: ListCampaignsQuery,
        response: CampaignResponses.list,
        detail: { summary: 'List campaigns (partners: the ones they hold)' },
      },
    )
    .get(
      '/campaigns/:id',
      async ({ params, principal }) => {
        const campaign = await getCampaign(ctx.sql, params.id);
        const own = ownPartnerId(principal);
        if (own !== undefined && !(await partnerHoldsCampaign(ctx.sql, own, campaign.id))) {
          throw forbidden('partners may only read the campaigns they hold');
        }
        return campaign;
      },
      { auth: { scope: 'campaigns:read', partner: true }, params: CampaignParams, response: CampaignResponses.get, detail: { summary: 'Get a campaign' } },
    )
    .patch(
      '/campaigns/:id',
      async ({ params, body }) => {
        const campaign = await updateCampaign(ctx.sql, params.id, body);
        // the redirect cache holds destinations; other replicas hear of it through NOTIFY
        if (body.destinationUrl !== undefined) ctx.links.invalidate({ all: true });
        return campaign;
      },
      {
        auth: 'campaigns:write',
        params: CampaignParams,
        body: UpdateCampaignBody,
        response: CampaignResponses.update,
        detail: { summary: 'Update, archive ({archived: true}) or unarchive a campaign' },
      },
    );
}
