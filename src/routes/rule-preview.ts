// POST /v1/campaigns/:id/preview: draft rules replayed on the campaign's recent events (campaigns:write).
// Here rather than in campaigns/: the replay is the commission engine's, and campaigns/ may not import it.
import { Elysia } from 'elysia';
import type { AppContext } from '../context';
import { rejectUnstorable } from '../lib/storable';
import { authPlugin } from '../modules/auth/plugin';
import { CampaignParams, CampaignResponses, PreviewBody } from '../modules/campaigns/model';
import { previewRules } from '../modules/commissions/preview';

export function rulePreviewRoutes(ctx: AppContext) {
  return new Elysia({ tags: ['Campaigns'] })
    .use(authPlugin(ctx))
    .onBeforeHandle(rejectUnstorable)
    .post('/campaigns/:id/preview', ({ params, body }) => previewRules(ctx.sql, { campaignId: params.id, rules: body.rules, days: body.days }), {
      auth: 'campaigns:write',
      params: CampaignParams,
      body: PreviewBody,
      response: CampaignResponses.preview,
      detail: { summary: "Replay the campaign's last days of events under draft rules (nothing is written)" },
    });
}
