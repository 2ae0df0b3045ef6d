// Admin webhooks: endpoints (create with the signing secret shown once, pause and resume), send a
// test, the delivery log with status and response, retry. Rules: modules/webhooks/service.ts.
import { Elysia, t } from 'elysia';
import type { AppContext } from '../../context';
import { AppError } from '../../lib/errors';
import { paginate, readPage } from '../../lib/http';
import { EVENT_TYPES, WILDCARD } from '../../modules/webhooks/events';
import {
  createEndpoint,
  getEndpoint,
  listDeliveries,
  listEndpoints,
  retryDelivery,
  testSend,
  updateEndpoint,
  type Delivery,
  type Endpoint,
} from '../../modules/webhooks/service';
import { CsrfInput, Field, formErrors, formList, type FormErrors } from '../forms';
import { Notice, OlderLink } from '../layout';
import { render, seeOther } from '../render';
import type { AdminPage } from '../session';
import { AdminLayout, day, Done, NotFoundPage, type AdminKit } from './kit';
import { Badge, MenuButton, menuId, RowMenu, Trunc, type Tone } from '../ui';

const LIST = '/admin/webhooks';
const DONE = { tested: 'Test sent: its attempt is at the top of the log.', retried: 'Sent again: the new attempt is at the top of the log.', paused: 'Endpoint paused: it receives nothing until resumed.', resumed: 'Endpoint resumed.' };
const Params = t.Object({ id: t.String({ maxLength: 64 }) });
const detailPath = (id: string) => `${LIST}/${encodeURIComponent(id)}`;

type Values = { url: string; label: string; events: string[] };

export function webhookRoutes(ctx: AppContext, kit: AdminKit) {
  async function listView(page: AdminPage, input: { values?: Values; errors?: FormErrors; created?: { endpoint: Endpoint; secret: string } }) {
    const endpoints = (await listEndpoints(ctx.sql, { limit: 200 })).slice(0, 200);
    return (<WebhooksPage page={page} endpoints={endpoints} values={input.values} errors={input.errors} created={input.created} />) as string;
  }

  async function detailView(page: AdminPage, endpoint: Endpoint, input: { cursor?: string; done?: string; error?: string }) {
    const p = readPage({ cursor: input.cursor }, 'event');
    const { items, nextCursor } = paginate(await listDeliveries(ctx.sql, endpoint.id, p), p.limit);
    return (<EndpointPage page={page} endpoint={endpoint} deliveries={items} nextCursor={nextCursor} done={input.done} error={input.error} />) as string;
  }

  /** The endpoint of the URL, or the 404 page. */
  async function withEndpoint(page: AdminPage, id: string, act: (endpoint: Endpoint) => Promise<Response>): Promise<Response> {
    const endpoint = await getEndpoint(ctx.sql, id).catch((error) => {
      if (error instanceof AppError && error.code === 'not_found') return null;
      throw error;
    });
    if (!endpoint) return render(<NotFoundPage page={page} what="webhook endpoint" back={LIST} />, { status: 404 });
    return act(endpoint);
  }

  return new Elysia({ detail: { hide: true } })
    .get(LIST, ({ request }) => kit.page(request, async (page) => render(await listView(page, {}))))
    .post(LIST, ({ request, body }) =>
      kit.form(request, body, LIST, async (page, form) => {
        const values: Values = { url: (form.url ?? '').trim(), label: (form.label ?? '').trim(), events: formList(body, 'events') };
        const errors: FormErrors = {};
        if (values.url === '') errors.url = 'required';
        if (values.events.length === 0) errors.events = 'choose at least one event, or all events';
        if (values.label.length > 200) errors.label = 'at most 200 characters';
        if (Object.keys(errors).length > 0) return render(await listView(page, { values, errors }), { status: 400 });
        try {
          const created = await createEndpoint(ctx, { url: values.url, events: values.events, label: values.label || null });
          // the secret is shown on this answer only; nothing stores it for a later page
          return render(await listView(page, { created }), { status: 201 });
        } catch (error) {
          const problems = formErrors(error, ['url', 'events', 'label']);
          if (!problems) throw error;
          return render(await listView(page, { values, errors: problems }), { status: (error as AppError).status });
        }
      }),
    )
    .get(
      `${LIST}/:id`,
      ({ request, params, query }) =>
        kit.page(request, (page) => withEndpoint(page, params.id, async (endpoint) => render(await detailView(page, endpoint, query)))),
      { params: Params, query: t.Object({ cursor: t.Optional(t.String({ maxLength: 64 })), done: t.Optional(t.String({ maxLength: 20 })) }) },
    )
    .post(
      `${LIST}/:id/test`,
      ({ request, body, params }) =>
        kit.form(request, body, detailPath(params.id), (page) =>
          withEndpoint(page, params.id, async (endpoint) => {
            await testSend(ctx, endpoint.id, undefined);
            return seeOther(`${detailPath(endpoint.id)}?done=tested`);
          }),
        ),
      { params: Params },
    )
    .post(
      `${LIST}/:id/active`,
      ({ request, body, params }) =>
        kit.form(request, body, detailPath(params.id), (page, form) =>
          withEndpoint(page, params.id, async (endpoint) => {
            const active = form.active === 'true';
            await updateEndpoint(ctx, endpoint.id, { active });
            return seeOther(`${detailPath(endpoint.id)}?done=${active ? 'resumed' : 'paused'}`);
          }),
        ),
      { params: Params },
    )
    .post(
      `${LIST}/:id/deliveries/:deliveryId/retry`,
      ({ request, body, params }) =>
        kit.form(request, body, detailPath(params.id), (page) =>
          withEndpoint(page, params.id, async (endpoint) => {
            try {
              await retryDelivery(ctx, endpoint.id, params.deliveryId);
            } catch (error) {
              if (!(error instanceof AppError) || error.status >= 500) throw error;
              return render(await detailView(page, endpoint, { error: error.message }), { status: error.status });
            }
            return seeOther(`${detailPath(endpoint.id)}?done=retried`);
          }),
        ),
      { params: t.Object({ id: t.String({ maxLength: 64 }), deliveryId: t.String({ maxLength: 64 }) }) },
    );
}

const eventsText = (ep: Endpoint) => (ep.events.includes(WILDCARD) ? 'all events' : ep.events.join(', '));

function endpointBadge(ep: Endpoint): { tone: Tone; label: string; title: string } {
  return ep.active
    ? { tone: 'green', label: 'Active', title: 'Active: receives its events as they happen' }
    : { tone: 'grey', label: 'Paused', title: 'Paused: receives nothing until resumed' };
}

function deliveryBadge(d: Delivery): { tone: Tone; label: string; title: string } {
  if (d.status === 'succeeded') return { tone: 'green', label: 'Succeeded', title: 'Succeeded: the receiver answered 2xx' };
  if (d.status === 'failed') return { tone: 'red', label: 'Failed', title: 'Failed: retried automatically with backoff, or retry it from its menu' };
  return { tone: 'amber', label: 'Pending', title: 'Pending: being sent' };
}

function WebhooksPage(props: { page: AdminPage; endpoints: Endpoint[]; values?: Values; errors?: FormErrors; created?: { endpoint: Endpoint; secret: string } }) {
  const v = props.values ?? { url: '', label: '', events: [] };
  const e = props.errors ?? {};
  return (
    <AdminLayout page={props.page} title="Webhooks" current={LIST} scripts={['/assets/copy.js']}>
      <h1>Webhooks</h1>
      {!!props.created && (
        <div class="notice ok" role="status" id="created">
          <p>
            Endpoint created. Its signing secret is shown <strong>only now</strong>: store it where your receiver verifies signatures.
          </p>
          <div class="copy">
            <label class="vh" for="secret">
              Signing secret
            </label>
            <input id="secret" class="secret" value={props.created.secret} readonly />
            <button type="button" class="secondary" data-copy="#secret">
              Copy
            </button>
          </div>
          <p>
            <a href={detailPath(props.created.endpoint.id)}>Open the endpoint</a>
          </p>
        </div>
      )}
      {props.endpoints.length === 0 ? (
        <p class="empty">No endpoints yet.</p>
      ) : (
        <div class="table-wrap">
          <table id="endpoints" class="stack">
            <caption class="vh">Webhook endpoints</caption>
            <thead>
              <tr>
                <th scope="col">URL</th>
                <th scope="col">Label</th>
                <th scope="col">Events</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {props.endpoints.map((ep) => (
                <tr data-id={ep.id}>
                  <td class="lead fill">
                    <Trunc text={ep.url} href={detailPath(ep.id)} wide />
                  </td>
                  <td data-label="Label">
                    <Trunc text={ep.label ?? ''} />
                  </td>
                  <td data-label="Events">
                    <Trunc text={eventsText(ep)} />
                  </td>
                  <td class="badge-cell" data-label="Status">
                    <Badge {...endpointBadge(ep)} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <h2 id="new">New endpoint</h2>
      <form method="post" action={LIST} novalidate>
        <CsrfInput token={props.page.csrf} />
        {!!e._form && <Notice kind="error" text={e._form} />}
        <div class="narrow">
          <Field name="url" label="URL" hint="HTTPS address that receives signed POSTs" type="url" value={v.url} error={e.url} required />
          <Field name="label" label="Label (optional)" value={v.label} error={e.label} />
        </div>
        <fieldset class={e.events ? 'choices invalid' : 'choices'} aria-describedby={e.events ? 'events-error' : undefined}>
          <legend>Events</legend>
          <label class="check">
            <input type="checkbox" name="events" value={WILDCARD} checked={v.events.includes(WILDCARD)} /> All events
          </label>
          {EVENT_TYPES.map((type) => (
            <label class="check">
              <input type="checkbox" name="events" value={type} checked={v.events.includes(type)} /> <span>{type}</span>
            </label>
          ))}
          {!!e.events && (
            <p class="error" id="events-error" safe>
              {e.events}
            </p>
          )}
        </fieldset>
        <button type="submit">Create endpoint</button>
      </form>
    </AdminLayout>
  );
}

function EndpointPage(props: { page: AdminPage; endpoint: Endpoint; deliveries: Delivery[]; nextCursor: string | null; done?: string; error?: string }) {
  const ep = props.endpoint;
  const base = detailPath(ep.id);
  return (
    <AdminLayout page={props.page} title="Webhook endpoint" current={LIST}>
      <p class="back">
        <a href={LIST}>All endpoints</a>
      </p>
      <h1 safe>{ep.label || ep.url}</h1>
      <Done texts={DONE} done={props.done} />
      {!!props.error && <Notice kind="error" text={props.error} />}
      <dl class="facts">
        <dt>URL</dt>
        <dd safe>{ep.url}</dd>
        <dt>Events</dt>
        <dd safe>{eventsText(ep)}</dd>
        <dt>Status</dt>
        <dd>
          <Badge {...endpointBadge(ep)} id="endpoint-status" />
        </dd>
        <dt>Created</dt>
        <dd safe>{day(ep.createdAt)}</dd>
      </dl>
      <div class="actions">
        <form method="post" action={`${base}/test`}>
          <CsrfInput token={props.page.csrf} />
          <button type="submit">Send test</button>
        </form>
        <form method="post" action={`${base}/active`}>
          <CsrfInput token={props.page.csrf} />
          <input type="hidden" name="active" value={ep.active ? 'false' : 'true'} />
          <button type="submit" class="secondary">
            {ep.active ? 'Pause endpoint' : 'Resume endpoint'}
          </button>
        </form>
      </div>
      <h2>Delivery log</h2>
      {props.deliveries.length === 0 ? (
        <p class="empty">Nothing delivered yet.</p>
      ) : (
        <>
          <div class="table-wrap">
            <table id="deliveries" class="stack">
              <caption class="vh">Delivery attempts, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Event</th>
                  <th scope="col">When</th>
                  <th scope="col">Status</th>
                  <th scope="col" class="num">
                    Attempt
                  </th>
                  <th scope="col">Response</th>
                  <th scope="col" class="act">
                    <span class="vh">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {props.deliveries.map((d) => (
                  <tr data-id={d.id}>
                    <td class="lead">
                      <Trunc text={d.event} />
                    </td>
                    <td data-label="When" safe>
                      {d.createdAt.slice(0, 19).replace('T', ' ')}
                    </td>
                    <td class="badge-cell" data-label="Status">
                      <Badge {...deliveryBadge(d)} />
                      {!!d.error && <span class="note trunc" title={d.error}>{d.error}</span>}
                    </td>
                    <td class="num" data-label="Attempt">
                      {d.attempt}
                    </td>
                    <td data-label="Response">
                      {d.responseStatus !== null && <span class="http-status">{d.responseStatus}</span>}
                      {d.durationMs !== null && <span class="note" safe>{`${d.durationMs} ms`}</span>}
                    </td>
                    {d.status !== 'pending' || !!d.responseBody ? (
                      <MenuButton menu={menuId('dl', d.id)} label={`Response and retry for attempt ${d.attempt} of ${d.event}`} />
                    ) : (
                      <td class="act"></td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {props.deliveries.map((d) =>
            d.status !== 'pending' || !!d.responseBody ? (
              <RowMenu id={menuId('dl', d.id)} title={`${d.event}, attempt ${d.attempt}`}>
                {!!d.responseBody && (
                  <pre class="response" safe>
                    {d.responseBody}
                  </pre>
                )}
                {d.status !== 'pending' && (
                  <form method="post" action={`${base}/deliveries/${encodeURIComponent(d.id)}/retry`}>
                    <CsrfInput token={props.page.csrf} />
                    <button type="submit">Retry</button>
                  </form>
                )}
              </RowMenu>
            ) : (
              ''
            ),
          )}
        </>
      )}
      <OlderLink path={base} cursor={props.nextCursor} label="Older deliveries" />
    </AdminLayout>
  );
}
