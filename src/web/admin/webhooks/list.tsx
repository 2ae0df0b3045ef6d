// Admin webhooks: the endpoints with their health (GET /admin/webhooks) and the create form's post,
// whose answer shows the new endpoint's signing secret once.
import { Elysia, t } from 'elysia';
import type { AppContext } from '../../../context';
import type { AppError } from '../../../lib/errors';
import { endpointHealth, type EndpointHealth } from '../../../modules/reports/campaigns';
import { createEndpoint, listEndpoints, type Endpoint } from '../../../modules/webhooks/service';
import { CsrfInput, formErrors, type FormErrors } from '../../forms';
import { render } from '../../render';
import type { AdminPage } from '../../session';
import { AdminLayout, can, Done, type AdminKit } from '../kit';
import { Badge, EmptyState, Trunc, NumHead } from '../../ui';
import { EndpointFields, SecretNotice, healthBadge, successText, when } from './parts';
import { DONE, LIST, detailPath, readEndpointForm, type Values } from './shared';

async function listView(ctx: AppContext, page: AdminPage, input: { values?: Values; errors?: FormErrors; created?: { endpoint: Endpoint; secret: string }; done?: string }) {
  const endpoints = (await listEndpoints(ctx.sql, { limit: 200 })).slice(0, 200);
  const health = await endpointHealth(ctx.sql, endpoints.map((e) => e.id));
  return (<WebhooksPage page={page} endpoints={endpoints} health={health} values={input.values} errors={input.errors} created={input.created} done={input.done} />) as string;
}

export function listRoutes(ctx: AppContext, kit: AdminKit) {
  return new Elysia({ detail: { hide: true } })
    .get(LIST, ({ request, query }) => kit.page(request, async (page) => render(await listView(ctx, page, { done: query.done }))), {
      query: t.Object({ done: t.Optional(t.String({ maxLength: 20 })) }),
    })
    .post(LIST, ({ request, body }) =>
      kit.form(request, body, LIST, async (page, form) => {
        const { values, errors } = readEndpointForm(form, body);
        if (Object.keys(errors).length > 0) return render(await listView(ctx, page, { values, errors }), { status: 400 });
        try {
          const created = await createEndpoint(ctx, { url: values.url, events: values.events, label: values.label || null });
          // the secret is shown on this answer only; nothing stores it for a later page
          return render(await listView(ctx, page, { created }), { status: 201 });
        } catch (error) {
          const problems = formErrors(error, ['url', 'events', 'label']);
          if (!problems) throw error;
          return render(await listView(ctx, page, { values, errors: problems }), { status: (error as AppError).status });
        }
      }),
    );
}

function WebhooksPage(props: {
  page: AdminPage;
  endpoints: Endpoint[];
  health: Map<string, EndpointHealth>;
  values?: Values;
  errors?: FormErrors;
  created?: { endpoint: Endpoint; secret: string };
  done?: string;
}) {
  const v = props.values ?? { url: '', label: '', events: [] };
  // a role that may not change webhooks sees the endpoints and their health, not the form
  const write = can(props.page, 'POST', LIST);
  return (
    <AdminLayout page={props.page} title="Webhooks" current={LIST} scripts={['/assets/copy.js']}>
      <h1>Webhooks</h1>
      <Done texts={DONE} done={props.done} />
      {!!props.created && (
        <SecretNotice
          id="created"
          secret={props.created.secret}
          link={{ href: detailPath(props.created.endpoint.id), label: 'Open the endpoint' }}
        >
          Endpoint created. Its signing secret is shown <strong>only now</strong>: store it where your receiver verifies signatures.
        </SecretNotice>
      )}
      {props.endpoints.length === 0 ? (
        <EmptyState title="No endpoints yet" text="An endpoint receives signed POSTs when commissions, payouts and partners change." action={write ? { href: '#new', label: 'Add an endpoint' } : undefined} />
      ) : (
        <div class="table-wrap">
          <table id="endpoints" class="stack">
            <caption class="vh">Webhook endpoints with their health over the last 50 attempts</caption>
            <thead>
              <tr>
                <th scope="col">URL</th>
                <th scope="col">Label</th>
                <th scope="col">Health</th>
                <th scope="col">Last delivery</th>
                <NumHead label="Succeeded" />
                <NumHead label="Failing streak" />
              </tr>
            </thead>
            <tbody>
              {props.endpoints.map((ep) => {
                const h = props.health.get(ep.id);
                return (
                  <tr data-id={ep.id}>
                    <td class="lead fill">
                      <Trunc text={ep.url} href={detailPath(ep.id)} wide />
                    </td>
                    <td data-label="Label">
                      <Trunc text={ep.label ?? ''} />
                    </td>
                    <td class="badge-cell" data-label="Health" data-health>
                      <Badge {...healthBadge(ep, h)} />
                    </td>
                    <td data-label="Last delivery" data-last>
                      {h?.last ? `${h.last.status} · ${when(h.last.at)}` : '–'}
                    </td>
                    <td class="num" data-label="Succeeded (last 50)" data-rate safe>
                      {successText(h)}
                    </td>
                    <td class="num" data-label="Failing streak" data-streak>
                      {h?.failingStreak ?? 0}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      {write && (
        <>
          <h2 id="new">New endpoint</h2>
          <form method="post" action={LIST} novalidate>
            <CsrfInput token={props.page.csrf} />
            <EndpointFields values={v} errors={props.errors ?? {}} />
            <button type="submit">Create endpoint</button>
          </form>
        </>
      )}
    </AdminLayout>
  );
}
