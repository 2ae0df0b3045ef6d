// The partner portal's dashboard and what a partner makes there: links (with the builder) and codes.
import { Elysia } from 'elysia';
import type { AppContext } from '../../context';
import { AppError } from '../../lib/errors';
import { createLink, deepLinkProblem } from '../../modules/links/service';
import { createCode } from '../../modules/codes/service';
import { formErrors } from '../forms';
import { render, seeOther } from '../render';
import { buildDestination, UTM_FIELDS } from './builder';
import { type BuilderValues } from './links';
import { queryOf, type PortalKit } from './kit';
import { codesView, createdNotice, heldCampaigns, homeView, linksView } from './views';

/** The longest UTM value the link builder takes. */
const UTM_MAX = 500;

export function makeRoutes(ctx: AppContext, kit: PortalKit) {
  return new Elysia({ detail: { hide: true } })
    .get('/portal', ({ request }) => kit.partnerPage(request, async (page) => render(await homeView(ctx, page, queryOf(request)))))
    .get('/portal/links', ({ request }) =>
      kit.partnerPage(request, async (page) => {
        const q = queryOf(request);
        const created = q.created ? await createdNotice(ctx, page, q.created) : null;
        return render(await linksView(ctx, page, { cursor: q.cursor, created }));
      }),
    )
    .post('/portal/links', ({ request, body }) =>
      kit.partnerForm(request, body, '/portal/links', async (page, form) => {
        const values: BuilderValues = { campaignId: form.campaignId ?? '', page: (form.page ?? '').trim(), slug: (form.slug ?? '').trim() };
        // a too-long value is refused beside its field, never silently cut
        const utmErrors: Record<string, string> = {};
        for (const k of UTM_FIELDS) {
          values[k] = (form[k] ?? '').trim();
          if (values[k]!.length > UTM_MAX) {
            utmErrors[k] = `at most ${UTM_MAX} characters (this one has ${values[k]!.length})`;
            values[k] = values[k]!.slice(0, 2 * UTM_MAX);
          }
        }
        const campaigns = await heldCampaigns(ctx, page.partner.id);
        const campaign = campaigns.find((c) => c.id === values.campaignId);
        if (!campaign) return render(await linksView(ctx, page, { values, errors: { campaignId: 'Choose one of your campaigns.' } }), { status: 403 });
        if (Object.keys(utmErrors).length > 0) return render(await linksView(ctx, page, { values, errors: utmErrors }), { status: 400 });
        const built = buildDestination(campaign.destinationUrl, { page: values.page ?? '', utm: values });
        const problem = built.problem ?? (built.url ? deepLinkProblem(built.url, campaign.destinationUrl) : null);
        if (problem) return render(await linksView(ctx, page, { values, errors: { page: problem } }), { status: 400 });
        if (form.intent === 'preview') {
          const share = `${ctx.config.baseUrl}/r/${values.slug || '(random)'}`;
          return render(await linksView(ctx, page, { values, preview: { url: built.url, share } }));
        }
        try {
          const link = await createLink(ctx.sql, ctx.config.baseUrl, {
            partnerId: page.partner.id,
            campaignId: campaign.id,
            slug: values.slug === '' ? undefined : values.slug,
            destinationUrl: built.url ?? undefined,
          });
          ctx.links.invalidate({ slug: link.slug });
          return seeOther(`/portal/links?created=${encodeURIComponent(link.id)}`);
        } catch (error) {
          const errors = formErrors(error, ['campaignId', 'slug', 'destinationUrl']);
          if (!errors) throw error;
          if (errors.destinationUrl) {
            errors.page = errors.destinationUrl;
            delete errors.destinationUrl;
          }
          // a missing campaign belongs beside the campaign field
          if (errors._form && error instanceof AppError && /campaign/.test(error.message)) {
            errors.campaignId = errors._form;
            delete errors._form;
          }
          return render(await linksView(ctx, page, { values, errors }), { status: (error as AppError).status });
        }
      }),
    )
    .get('/portal/codes', ({ request }) =>
      kit.partnerPage(request, async (page) => {
        return render(await codesView(ctx, page, { created: queryOf(request).created }));
      }),
    )
    .post('/portal/codes', ({ request, body }) =>
      kit.partnerForm(request, body, '/portal/codes', async (page, form) => {
        const values = { code: (form.code ?? '').trim(), campaignId: form.campaignId ?? '' };
        try {
          const code = await createCode(ctx.sql, { code: values.code, partnerId: page.partner.id, campaignId: values.campaignId }, ctx.codeSync);
          return seeOther(`/portal/codes?created=${encodeURIComponent(code.id)}`);
        } catch (error) {
          // Stripe refusing the code (502) is shown like a refusal: nothing was created
          const errors = error instanceof AppError && error.code === 'bad_gateway' ? { _form: error.message } : formErrors(error, ['code', 'campaignId']);
          if (!errors) throw error;
          // a campaign it may not use belongs beside the campaign field
          if (errors._form && error instanceof AppError && /campaign/.test(error.message)) {
            errors.campaignId = errors._form;
            delete errors._form;
          }
          return render(await codesView(ctx, page, { values, errors }), { status: (error as AppError).status });
        }
      }),
    );
}
