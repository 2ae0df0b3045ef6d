// Admin webhooks: an endpoint's page, a page plus named sections (its facts, its own actions, the
// delivery log with each attempt's menu).
import type { EndpointHealth } from '../../../modules/reports/campaigns';
import type { Delivery, Endpoint } from '../../../modules/webhooks/service';
import { ConfirmDialog, ConfirmTrigger } from '../../confirm';
import { CsrfInput, type FormErrors } from '../../forms';
import { Notice, OlderLink } from '../../layout';
import type { AdminPage } from '../../session';
import { AdminLayout, can, day, Done } from '../kit';
import { Badge, EmptyState, MenuButton, menuId, RowMenu, Trunc, NumHead } from '../../ui';
import { EndpointFields, SecretNotice, deliveryBadge, endpointBadge, eventsText, healthBadge, successText } from './parts';
import { DONE, LIST, deleteConfirm, deliveryPath, detailPath, endpointName, rotateConfirm, type Values } from './shared';

export function EndpointPage(props: {
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
  // a role that may not change webhooks reads the endpoint and its deliveries, without the buttons
  const write = can(props.page, 'POST', `${LIST}/:id`);
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
      <EndpointFacts endpoint={ep} health={h} />
      {write && <EndpointActions endpoint={ep} csrf={props.page.csrf} />}
      <DeliveryLog endpoint={ep} deliveries={props.deliveries} csrf={props.page.csrf} write={write} />
      <OlderLink path={base} cursor={props.nextCursor} label="Older deliveries" />
      {write && (
        <>
          <h2 id="edit">Edit endpoint</h2>
          <form method="post" action={base} novalidate id="edit-form">
            <CsrfInput token={props.page.csrf} />
            <EndpointFields values={props.values} errors={props.errors ?? {}} />
            <button type="submit">Save endpoint</button>
          </form>
          <ConfirmDialog id="rotate-dialog" {...rotateConfirm(ep, props.page.csrf)} />
          <ConfirmDialog id="delete-dialog" {...deleteConfirm(ep, props.page.csrf)} />
        </>
      )}
    </AdminLayout>
  );
}

/** URL, events, status, health and the day it was made. */
function EndpointFacts(props: { endpoint: Endpoint; health: EndpointHealth }) {
  const ep = props.endpoint;
  const h = props.health;
  return (
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
  );
}

/** Send a test, pause or resume, rotate the secret, delete. */
function EndpointActions(props: { endpoint: Endpoint; csrf: string }) {
  const ep = props.endpoint;
  const base = detailPath(ep.id);
  return (
    <div class="actions own-actions">
      <form method="post" action={`${base}/test`}>
        <CsrfInput token={props.csrf} />
        <button type="submit">Send test</button>
      </form>
      <form method="post" action={`${base}/active`}>
        <CsrfInput token={props.csrf} />
        <input type="hidden" name="active" value={ep.active ? 'false' : 'true'} />
        <button type="submit" class="secondary">
          {ep.active ? 'Pause endpoint' : 'Resume endpoint'}
        </button>
      </form>
      <ConfirmTrigger href={`${base}/rotate-secret`} dialog="rotate-dialog" label="Rotate secret" secondary />
      <ConfirmTrigger href={`${base}/delete`} dialog="delete-dialog" label="Delete" danger />
    </div>
  );
}

/** The attempts, newest first, each with its menu (payload, response, retry). */
function DeliveryLog(props: { endpoint: Endpoint; deliveries: Delivery[]; csrf: string; write: boolean }) {
  const ep = props.endpoint;
  return (
    <>
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
              {props.write && d.status !== 'pending' && (
                <form method="post" action={`${deliveryPath(ep.id, d.id)}/retry`}>
                  <CsrfInput token={props.csrf} />
                  <button type="submit">Retry</button>
                </form>
              )}
            </RowMenu>
          ))}
        </>
      )}
    </>
  );
}
