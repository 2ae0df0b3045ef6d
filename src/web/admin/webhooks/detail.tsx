// Admin webhooks: an endpoint's page with its delivery log (GET /admin/webhooks/:id) and the edit
// form's post.
import { Elysia, t } from 'elysia';
import type { AppContext } from '../../../context';
import type { AppError } from '../../../lib/errors';
import { paginate, readPage } from '../../../lib/http';
import { endpointHealth } from '../../../modules/reports/campaigns';
import { listDeliveries, updateEndpoint, type Endpoint } from '../../../modules/webhooks/service';
import { formErrors, type FormErrors } from '../../forms';
import { render, seeOther } from '../../render';
import type { AdminPage } from '../../session';
import type { AdminKit } from '../kit';
import { EndpointPage } from './detail-page';
import { LIST, Params, detailPath, endpointValues, readEndpointForm, withEndpoint, type Values } from './shared';

export async function detailView(ctx: AppContext, page: AdminPage, endpoint: Endpoint, input: { cursor?: string; done?: string; error?: string; values?: Values; errors?: FormErrors; rotated?: string }) {
  const p = readPage({ cursor: input.cursor }, 'event');
  const [{ items, nextCursor }, health] = await Promise.all([
    listDeliveries(ctx.sql, endpoint.id, p).then((rows) => paginate(rows, p.limit)),
    endpointHealth(ctx.sql, [endpoint.id]),
  ]);
  return (
    <EndpointPage
      page={page}
      endpoint={endpoint}
      health={health.get(endpoint.id)!}
      deliveries={items}
      nextCursor={nextCursor}
      done={input.done}
      error={input.error}
      values={input.values ?? endpointValues(endpoint)}
      errors={input.errors}
      rotated={input.rotated}
    />
  ) as string;
}

export function detailRoutes(ctx: AppContext, kit: AdminKit) {
  return new Elysia({ detail: { hide: true } })
    .get(
      `${LIST}/:id`,
      ({ request, params, query }) =>
        kit.page(request, (page) => withEndpoint(ctx, page, params.id, async (endpoint) => render(await detailView(ctx, page, endpoint, query)))),
      { params: Params, query: t.Object({ cursor: t.Optional(t.String({ maxLength: 64 })), done: t.Optional(t.String({ maxLength: 20 })) }) },
    )
    .post(
      `${LIST}/:id`,
      ({ request, body, params }) =>
        kit.form(request, body, detailPath(params.id), (page, form) =>
          withEndpoint(ctx, page, params.id, async (endpoint) => {
            const { values, errors } = readEndpointForm(form, body);
            if (Object.keys(errors).length > 0) return render(await detailView(ctx, page, endpoint, { values, errors }), { status: 400 });
            try {
              await updateEndpoint(ctx, endpoint.id, { url: values.url, events: values.events, label: values.label || null });
            } catch (error) {
              const problems = formErrors(error, ['url', 'events', 'label']);
              if (!problems) throw error;
              return render(await detailView(ctx, page, endpoint, { values, errors: problems }), { status: (error as AppError).status });
            }
            return seeOther(`${detailPath(endpoint.id)}?done=saved`);
          }),
        ),
      { params: Params },
    );
}
