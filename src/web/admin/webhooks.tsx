// Admin webhooks: endpoints with their health (create with the signing secret shown once), an
// endpoint's page (edit, send a test, pause and resume, rotate the secret and delete for good, both
// confirmed first), the delivery log, and one delivery's page with the exact body that was sent.
// Rules: modules/webhooks/service.ts; health and bodies: modules/reports/campaigns.ts.
import type { Children } from '@kitajs/html';
import { Elysia, t } from 'elysia';
import type { AppContext } from '../../context';
import { AppError } from '../../lib/errors';
import { paginate, readPage } from '../../lib/http';
import { endpointHealth, deliveryBodies, type EndpointHealth } from '../../modules/reports/campaigns';
import { EVENT_TYPES, WILDCARD } from '../../modules/webhooks/events';
import {
  createEndpoint,
  deleteEndpoint,
  getDelivery,
  getEndpoint,
  listDeliveries,
  listEndpoints,
  retryDelivery,
  rotateSecret,
  testSend,
  updateEndpoint,
  type Delivery,
  type Endpoint,
} from '../../modules/webhooks/service';
import { ConfirmDialog, ConfirmPanel, ConfirmTrigger, isConfirmed } from '../confirm';
import { CsrfInput, Field, formErrors, formList, type FormErrors } from '../forms';
import { Notice, OlderLink } from '../layout';
import { render, seeOther } from '../render';
import type { AdminPage } from '../session';
import { AdminLayout, day, Done, NotFoundPage, type AdminKit } from './kit';
import { Badge, EmptyState, MenuButton, menuId, RowMenu, Trunc, type Tone, NumHead } from '../ui';
import { ChoicesFieldset } from '../kit/choices';

const LIST = '/admin/webhooks';
const DONE = {
  tested: 'Test sent: its attempt is at the top of the log.',
  retried: 'Sent again: the new attempt is at the top of the log.',
  paused: 'Endpoint paused: it receives nothing until resumed.',
  resumed: 'Endpoint resumed.',
  saved: 'Endpoint saved.',
  deleted: 'Endpoint deleted, with its delivery log.',
};
const Params = t.Object({ id: t.String({ maxLength: 64 }) });
const DeliveryParams = t.Object({ id: t.String({ maxLength: 64 }), deliveryId: t.String({ maxLength: 64 }) });
const detailPath = (id: string) => `${LIST}/${encodeURIComponent(id)}`;
const deliveryPath = (id: string, deliveryId: string) => `${detailPath(id)}/deliveries/${encodeURIComponent(deliveryId)}`;

type Values = { url: string; label: string; events: string[] };

const endpointValues = (ep: Endpoint): Values => ({ url: ep.url, label: ep.label ?? '', events: ep.events });
const endpointName = (ep: Endpoint) => ep.label || ep.url;

/** The endpoint form as typed, and its problems before the service is asked. */
function readEndpointForm(form: Record<string, string>, body: unknown): { values: Values; errors: FormErrors } {
  const values: Values = { url: (form.url ?? '').trim(), label: (form.label ?? '').trim(), events: formList(body, 'events') };
  const errors: FormErrors = {};
  if (values.url === '') errors.url = 'required';
  if (values.events.length === 0) errors.events = 'choose at least one event, or all events';
  if (values.label.length > 200) errors.label = 'at most 200 characters';
  return { values, errors };
}

export function webhookRoutes(ctx: AppContext, kit: AdminKit) {
  async function listView(page: AdminPage, input: { values?: Values; errors?: FormErrors; created?: { endpoint: Endpoint; secret: string }; done?: string }) {
    const endpoints = (await listEndpoints(ctx.sql, { limit: 200 })).slice(0, 200);
    const health = await endpointHealth(ctx.sql, endpoints.map((e) => e.id));
    return (<WebhooksPage page={page} endpoints={endpoints} health={health} values={input.values} errors={input.errors} created={input.created} done={input.done} />) as string;
  }

  async function detailView(page: AdminPage, endpoint: Endpoint, input: { cursor?: string; done?: string; error?: string; values?: Values; errors?: FormErrors; rotated?: string }) {
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

  /** The endpoint of the URL, or the 404 page. */
  async function withEndpoint(page: AdminPage, id: string, act: (endpoint: Endpoint) => Promise<Response>): Promise<Response> {
    const endpoint = await getEndpoint(ctx.sql, id).catch((error) => {
      if (error instanceof AppError && error.code === 'not_found') return null;
      throw error;
    });
    if (!endpoint) return render(<NotFoundPage page={page} what="webhook endpoint" back={LIST} />, { status: 404 });
    return act(endpoint);
  }

  /** A confirm page (no script, or a direct visit) inside the admin shell. */
  const confirmPage = (page: AdminPage, endpoint: Endpoint, confirm: ReturnType<typeof rotateConfirm>) =>
    render(
      <AdminLayout page={page} title="Webhook endpoint" current={LIST}>
        <ConfirmPanel {...confirm} back={detailPath(endpoint.id)} />
      </AdminLayout>,
    );

  return new Elysia({ detail: { hide: true } })
    .get(LIST, ({ request, query }) => kit.page(request, async (page) => render(await listView(page, { done: query.done }))), {
      query: t.Object({ done: t.Optional(t.String({ maxLength: 20 })) }),
    })
    .post(LIST, ({ request, body }) =>
      kit.form(request, body, LIST, async (page, form) => {
        const { values, errors } = readEndpointForm(form, body);
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
      `${LIST}/:id`,
      ({ request, body, params }) =>
        kit.form(request, body, detailPath(params.id), (page, form) =>
          withEndpoint(page, params.id, async (endpoint) => {
            const { values, errors } = readEndpointForm(form, body);
            if (Object.keys(errors).length > 0) return render(await detailView(page, endpoint, { values, errors }), { status: 400 });
            try {
              await updateEndpoint(ctx, endpoint.id, { url: values.url, events: values.events, label: values.label || null });
            } catch (error) {
              const problems = formErrors(error, ['url', 'events', 'label']);
              if (!problems) throw error;
              return render(await detailView(page, endpoint, { values, errors: problems }), { status: (error as AppError).status });
            }
            return seeOther(`${detailPath(endpoint.id)}?done=saved`);
          }),
        ),
      { params: Params },
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
    .get(
      `${LIST}/:id/rotate-secret`,
      ({ request, params }) => kit.page(request, (page) => withEndpoint(page, params.id, async (endpoint) => confirmPage(page, endpoint, rotateConfirm(endpoint, page.csrf)))),
      { params: Params },
    )
    .post(
      `${LIST}/:id/rotate-secret`,
      ({ request, body, params }) =>
        kit.form(request, body, detailPath(params.id), (page, form) =>
          withEndpoint(page, params.id, async (endpoint) => {
            if (!isConfirmed(form)) return confirmPage(page, endpoint, rotateConfirm(endpoint, page.csrf));
            const { secret } = await rotateSecret(ctx.sql, endpoint.id);
            // shown on this answer only, like the secret of a new endpoint
            return render(await detailView(page, endpoint, { rotated: secret }));
          }),
        ),
      { params: Params },
    )
    .get(
      `${LIST}/:id/delete`,
      ({ request, params }) => kit.page(request, (page) => withEndpoint(page, params.id, async (endpoint) => confirmPage(page, endpoint, deleteConfirm(endpoint, page.csrf)))),
      { params: Params },
    )
    .post(
      `${LIST}/:id/delete`,
      ({ request, body, params }) =>
        kit.form(request, body, detailPath(params.id), (page, form) =>
          withEndpoint(page, params.id, async (endpoint) => {
            if (!isConfirmed(form)) return confirmPage(page, endpoint, deleteConfirm(endpoint, page.csrf));
            await deleteEndpoint(ctx.sql, endpoint.id, true);
            return seeOther(`${LIST}?done=deleted`);
          }),
        ),
      { params: Params },
    )
    .get(
      `${LIST}/:id/deliveries/:deliveryId`,
      ({ request, params }) =>
        kit.page(request, (page) =>
          withEndpoint(page, params.id, async (endpoint) => {
            const delivery = await getDelivery(ctx.sql, endpoint.id, params.deliveryId).catch((error) => {
              if (error instanceof AppError && error.code === 'not_found') return null;
              throw error;
            });
            if (!delivery) return render(<NotFoundPage page={page} what="delivery" back={detailPath(endpoint.id)} />, { status: 404 });
            const body = (await deliveryBodies(ctx.sql, [delivery.id])).get(delivery.id) ?? null;
            return render(<DeliveryPage page={page} endpoint={endpoint} delivery={delivery} body={body} />);
          }),
        ),
      { params: DeliveryParams },
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
      { params: DeliveryParams },
    );
}

// ---------------------------------------------------------------------------------------------
// Views

const eventsText = (ep: Endpoint) => (ep.events.includes(WILDCARD) ? 'all events' : ep.events.join(', '));
const when = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

function rotateConfirm(ep: Endpoint, csrf: string) {
  return {
    title: `Rotate the signing secret of ${endpointName(ep)}`,
    action: `${detailPath(ep.id)}/rotate-secret`,
    button: 'Rotate secret',
    csrf,
    danger: true,
    children: (
      <>
        <p>A new secret is made and shown once. The old one stops verifying at once: every delivery from now on, retries included, is signed with the new one.</p>
        <p>Have the receiver ready to take the new secret, or it will refuse deliveries until it is updated.</p>
      </>
    ),
  };
}

function deleteConfirm(ep: Endpoint, csrf: string) {
  return {
    title: `Delete ${endpointName(ep)} for good`,
    action: `${detailPath(ep.id)}/delete`,
    button: 'Delete endpoint',
    csrf,
    danger: true,
    children: (
      <>
        <p safe>{`The endpoint ${ep.url} and its whole delivery log are removed; nothing is sent to it again. This cannot be undone.`}</p>
        <p>To stop deliveries but keep the log, pause it instead.</p>
      </>
    ),
  };
}

function endpointBadge(ep: Endpoint): { tone: Tone; label: string; title: string } {
  return ep.active
    ? { tone: 'green', label: 'Active', title: 'Active: receives its events as they happen' }
    : { tone: 'grey', label: 'Paused', title: 'Paused: receives nothing until resumed' };
}

/** Healthy, failing, paused, or no deliveries yet, from the newest 50 attempts. */
export function healthBadge(ep: Endpoint, h: EndpointHealth | undefined): { tone: Tone; label: string; title: string } {
  if (!ep.active) return { tone: 'grey', label: 'Paused', title: 'Paused: receives nothing until resumed' };
  if (!h || h.last === null) return { tone: 'grey', label: 'No deliveries yet', title: 'Nothing sent yet: use Send test to try it' };
  if (h.failingStreak > 0) {
    return {
      tone: 'red',
      label: 'Failing',
      title: `Failing: the last ${h.failingStreak === 1 ? 'attempt' : `${h.failingStreak} attempts`} failed; open the delivery log to see why`,
    };
  }
  if (h.finished === 0) return { tone: 'amber', label: 'Sending', title: 'The first delivery is being sent' };
  return { tone: 'green', label: 'Healthy', title: 'Healthy: the last finished attempt succeeded' };
}

/** "96% of the last 50" from finished attempts; "–" when none finished. */
function successText(h: EndpointHealth | undefined): string {
  if (!h || h.finished === 0) return '–';
  return `${Math.floor((h.succeeded * 100) / h.finished)}% of ${h.finished}`;
}

function deliveryBadge(d: Delivery): { tone: Tone; label: string; title: string } {
  if (d.status === 'succeeded') return { tone: 'green', label: 'Succeeded', title: 'Succeeded: the receiver answered 2xx' };
  if (d.status === 'failed') return { tone: 'red', label: 'Failed', title: 'Failed: retried automatically with backoff, or retry it from its menu' };
  return { tone: 'amber', label: 'Pending', title: 'Pending: being sent' };
}

function SecretNotice(props: { id: string; children: Children; secret: string; link?: { href: string; label: string } }) {
  return (
    <div class="notice ok" role="status" id={props.id}>
      <p>{props.children}</p>
      <div class="copy">
        <label class="vh" for="secret">
          Signing secret
        </label>
        <input id="secret" class="secret" value={props.secret} readonly />
        <button type="button" class="secondary" data-copy="#secret">
          Copy
        </button>
      </div>
      {!!props.link && (
        <p>
          <a href={props.link.href} safe>
            {props.link.label}
          </a>
        </p>
      )}
    </div>
  );
}

/** URL, label and events: the create form's fields, and the edit form's. */
function EndpointFields(props: { values: Values; errors: FormErrors }) {
  const v = props.values;
  const e = props.errors;
  return (
    <>
      {!!e._form && <Notice kind="error" text={e._form} />}
      <div class="narrow">
        <Field name="url" label="URL" hint="HTTPS address that receives signed POSTs" type="url" value={v.url} error={e.url} required />
        <Field name="label" label="Label (optional)" value={v.label} error={e.label} />
      </div>
      <ChoicesFieldset name="events" legend="Events" choices={EVENT_TYPES.map((type) => ({ value: type, label: type }))} ticked={(type) => v.events.includes(type)} error={e.events}>
        <label class="check">
          <input type="checkbox" name="events" value={WILDCARD} checked={v.events.includes(WILDCARD)} /> All events
        </label>
      </ChoicesFieldset>
    </>
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
        <EmptyState title="No endpoints yet" text="An endpoint receives signed POSTs when commissions, payouts and partners change." action={{ href: '#new', label: 'Add an endpoint' }} />
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
      <h2 id="new">New endpoint</h2>
      <form method="post" action={LIST} novalidate>
        <CsrfInput token={props.page.csrf} />
        <EndpointFields values={v} errors={props.errors ?? {}} />
        <button type="submit">Create endpoint</button>
      </form>
    </AdminLayout>
  );
}

function EndpointPage(props: {
  page: AdminPage;
  endpoint: Endpoint;
  health: EndpointHealth;
  deliveries: Delivery[];
  nextCursor: string | null;
  values: Values;
  errors?: FormErrors;
  rotated?: string;
  done?: string;
  error?: string;
}) {
  const ep = props.endpoint;
  const base = detailPath(ep.id);
  const h = props.health;
  return (
    <AdminLayout page={props.page} title="Webhook endpoint" current={LIST} scripts={['/assets/copy.js']}>
      <p class="back">
        <a href={LIST}>All endpoints</a>
      </p>
      <h1 safe>{endpointName(ep)}</h1>
      <Done texts={DONE} done={props.done} />
      {!!props.error && <Notice kind="error" text={props.error} />}
      {!!props.rotated && (
        <SecretNotice
          id="rotated"
          secret={props.rotated}
        >
          Secret rotated. The new signing secret is shown <strong>only now</strong>; the old one no longer verifies. Update your receiver.
        </SecretNotice>
      )}
      <dl class="facts">
        <dt>URL</dt>
        <dd safe>{ep.url}</dd>
        <dt>Events</dt>
        <dd safe>{eventsText(ep)}</dd>
        <dt>Status</dt>
        <dd>
          <Badge {...endpointBadge(ep)} id="endpoint-status" />
        </dd>
        <dt>Health</dt>
        <dd>
          <Badge {...healthBadge(ep, h)} id="endpoint-health" />
          <span class="note">
            {h.finished > 0
              ? `${successText(h)} recent attempts succeeded${h.failingStreak > 0 ? `; the last ${h.failingStreak} failed` : ''}`
              : 'no finished attempts yet'}
          </span>
        </dd>
        <dt>Created</dt>
        <dd safe>{day(ep.createdAt)}</dd>
      </dl>
      <div class="actions own-actions">
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
        <ConfirmTrigger href={`${base}/rotate-secret`} dialog="rotate-dialog" label="Rotate secret" secondary />
        <ConfirmTrigger href={`${base}/delete`} dialog="delete-dialog" label="Delete" danger />
      </div>
      <h2>Delivery log</h2>
      {props.deliveries.length === 0 ? (
        <EmptyState title="Nothing delivered yet" text="Deliveries appear here as events happen. Send a test to try the endpoint now." />
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
                  <NumHead label="Attempt" />
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
                      <Trunc text={d.event} href={deliveryPath(ep.id, d.id)} />
                    </td>
                    <td data-label="When" safe>
                      {d.createdAt.slice(0, 19).replace('T', ' ')}
                    </td>
                    <td class="badge-cell" data-label="Status">
                      <Badge {...deliveryBadge(d)} />
                      {!!d.error && (
                        <span class="note trunc" title={d.error}>
                          {d.error}
                        </span>
                      )}
                    </td>
                    <td class="num" data-label="Attempt">
                      {d.attempt}
                    </td>
                    <td data-label="Response">
                      {d.responseStatus !== null && <span class="http-status">{d.responseStatus}</span>}
                      {d.durationMs !== null && <span class="note" safe>{`${d.durationMs} ms`}</span>}
                    </td>
                    <MenuButton menu={menuId('dl', d.id)} label={`Payload, response and retry for attempt ${d.attempt} of ${d.event}`} />
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {props.deliveries.map((d) => (
            <RowMenu id={menuId('dl', d.id)} title={`${d.event}, attempt ${d.attempt}`}>
              <a href={deliveryPath(ep.id, d.id)}>Payload and headers</a>
              {!!d.responseBody && (
                <pre class="response" safe>
                  {d.responseBody}
                </pre>
              )}
              {d.status !== 'pending' && (
                <form method="post" action={`${deliveryPath(ep.id, d.id)}/retry`}>
                  <CsrfInput token={props.page.csrf} />
                  <button type="submit">Retry</button>
                </form>
              )}
            </RowMenu>
          ))}
        </>
      )}
      <OlderLink path={base} cursor={props.nextCursor} label="Older deliveries" />
      <h2 id="edit">Edit endpoint</h2>
      <form method="post" action={base} novalidate id="edit-form">
        <CsrfInput token={props.page.csrf} />
        <EndpointFields values={props.values} errors={props.errors ?? {}} />
        <button type="submit">Save endpoint</button>
      </form>
      <ConfirmDialog id="rotate-dialog" {...rotateConfirm(ep, props.page.csrf)} />
      <ConfirmDialog id="delete-dialog" {...deleteConfirm(ep, props.page.csrf)} />
    </AdminLayout>
  );
}

/** One attempt: the headers that name it, the exact body sent (pretty-printed, and as signed), the answer. */
function DeliveryPage(props: { page: AdminPage; endpoint: Endpoint; delivery: Delivery; body: string | null }) {
  const ep = props.endpoint;
  const d = props.delivery;
  let pretty: string | null = null;
  if (props.body !== null) {
    try {
      pretty = JSON.stringify(JSON.parse(props.body), null, 2);
    } catch {
      pretty = props.body;
    }
  }
  return (
    <AdminLayout page={props.page} title="Webhook delivery" current={LIST}>
      <p class="back">
        <a href={detailPath(ep.id)} safe>
          {`Back to ${endpointName(ep)}`}
        </a>
      </p>
      <h1 safe>{`${d.event}, attempt ${d.attempt}`}</h1>
      <dl class="facts" id="delivery-facts">
        <dt>Status</dt>
        <dd>
          <Badge {...deliveryBadge(d)} id="delivery-status" />
          {!!d.error && (
            <span class="note">
              {d.error}
            </span>
          )}
        </dd>
        <dt>x-service-event</dt>
        <dd>
          <code id="header-event" safe>
            {d.event}
          </code>
        </dd>
        <dt>x-service-delivery</dt>
        <dd>
          <code id="header-delivery" safe>
            {d.id}
          </code>
        </dd>
        <dt>webhook-id (envelope)</dt>
        <dd>
          <code safe>{d.eventId}</code>
        </dd>
        <dt>Sent</dt>
        <dd safe>{d.createdAt.slice(0, 19).replace('T', ' ')}</dd>
        <dt>Response</dt>
        <dd safe>{d.responseStatus === null ? '–' : `${d.responseStatus}${d.durationMs !== null ? ` in ${d.durationMs} ms` : ''}`}</dd>
      </dl>
      {pretty === null ? (
        <p class="empty">The envelope of this delivery is no longer stored.</p>
      ) : (
        <>
          <details class="delivery-detail" open>
            <summary>Payload sent (JSON, pretty-printed)</summary>
            <pre class="payload" id="payload" safe>
              {pretty}
            </pre>
          </details>
          <details class="delivery-detail">
            <summary>Exact body as signed</summary>
            <pre class="payload" id="payload-raw" safe>
              {props.body!}
            </pre>
          </details>
        </>
      )}
      {!!d.responseBody && (
        <details class="delivery-detail">
          <summary>Response body (first 2 KiB)</summary>
          <pre class="payload" safe>
            {d.responseBody}
          </pre>
        </details>
      )}
      {d.status !== 'pending' && (
        <form method="post" action={`${deliveryPath(ep.id, d.id)}/retry`}>
          <CsrfInput token={props.page.csrf} />
          <button type="submit">Retry this delivery</button>
        </form>
      )}
    </AdminLayout>
  );
}
