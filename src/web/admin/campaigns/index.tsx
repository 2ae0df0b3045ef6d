// Admin campaigns: the list with each campaign's last 30 days, a campaign's page (numbers for a date
// range, its partners and links, its terms in words), the rule editor (create and edit), archive and
// unarchive behind a confirmation. The rules' schema and checks are the API's (campaigns/rules.ts,
// campaigns/service.ts); this file turns form rows into Rule objects and problems back into
// messages beside their fields. assets/rules.js adds and removes rows without a reload.
import { Elysia, t } from 'elysia';
import type { AppContext } from '../../../context';
import type { Rule } from '../../../modules/campaigns/rules';
import { updateCampaign } from '../../../modules/campaigns/service';
import { isConfirmed } from '../../confirm';
import { render, seeOther } from '../../render';
import type { AdminKit } from '../kit';
import { campaignPath, campaignToValues, editPath, LIST, Params, RangeQuery, readPreviewDays, readValues, withCampaign } from './shared';
import { archivePage } from './archive';
import { campaignView } from './detail';
import { editView, FormSummary, fragment } from './form';
import { listView } from './list';
import { submit } from './save';

export { readPreviewDays } from './shared';

/** The campaign pages: the list and create, one campaign, its edit form, its archive switch. */
export function campaignRoutes(ctx: AppContext, kit: AdminKit) {
  return new Elysia({ detail: { hide: true } })
    .get(
      LIST,
      ({ request, query }) => kit.page(request, async (page) => render(await listView(ctx, page, query))),
      { query: t.Object({ cursor: t.Optional(t.String({ maxLength: 64 })), done: t.Optional(t.String({ maxLength: 20 })) }) },
    )
    .post(LIST, ({ request, body }) => kit.form(request, body, LIST, (page, form) => submit(ctx, page, form, null)))
    // the editor's summary in words, redrawn as the rules are typed (htmx posts the whole form here)
    .post(`${LIST}/summary`, ({ request, body }) =>
      kit.form(request, body, LIST, async (_page, form) => {
        const { removed, ...values } = readValues(form);
        const kept = { ...values, rows: values.rows.filter((_, i) => !removed.has(i)) };
        return fragment((<FormSummary values={kept} holdbackDefault={ctx.config.holdbackDays} />) as string);
      }),
    )
    .get(
      `${LIST}/:id`,
      ({ request, params, query }) => kit.page(request, (page) => withCampaign(ctx, page, params.id, async (campaign) => render(await campaignView(ctx, page, campaign, query)))),
      { params: Params, query: t.Object({ done: t.Optional(t.String({ maxLength: 20 })), ...RangeQuery }) },
    )
    .get(
      `${LIST}/:id/edit`,
      ({ request, params }) => kit.page(request, (page) => withCampaign(ctx, page, params.id, async (campaign) => render(await editView(ctx, page, campaign, campaignToValues(campaign))))),
      { params: Params },
    )
    .post(
      `${LIST}/:id`,
      ({ request, body, params }) => kit.form(request, body, editPath(params.id), (page, form) => withCampaign(ctx, page, params.id, (campaign) => submit(ctx, page, form, campaign))),
      { params: Params },
    )
    .get(
      `${LIST}/:id/archive`,
      ({ request, params }) => kit.page(request, (page) => withCampaign(ctx, page, params.id, async (campaign) => archivePage(ctx, page, campaign))),
      { params: Params },
    )
    .post(
      `${LIST}/:id/archive`,
      ({ request, body, params }) =>
        kit.form(request, body, campaignPath(params.id), (page, form) =>
          withCampaign(ctx, page, params.id, async (campaign) => {
            // archiving stops new links: nothing changes until the confirmation is posted
            if (!isConfirmed(form)) return archivePage(ctx, page, campaign);
            const archived = campaign.archivedAt === null;
            await updateCampaign(ctx.sql, campaign.id, { archived });
            return seeOther(`${campaignPath(campaign.id)}?done=${archived ? 'archived' : 'unarchived'}`);
          }),
        ),
      { params: Params },
    );
}
