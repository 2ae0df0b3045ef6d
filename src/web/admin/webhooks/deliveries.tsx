// Admin webhooks: one delivery's page with the exact body that was sent
// (GET /admin/webhooks/:id/deliveries/:deliveryId), and sending it again.
import { Elysia } from 'elysia';
import type { AppContext } from '../../../context';
import { AppError } from '../../../lib/errors';
import { deliveryBodies } from '../../../modules/reports/campaigns';
import { getDelivery, retryDelivery, type Delivery, type Endpoint } from '../../../modules/webhooks/service';
import { CsrfInput } from '../../forms';
import { render, seeOther } from '../../render';
import type { AdminPage } from '../../session';
import { AdminLayout, can, NotFoundPage, type AdminKit } from '../kit';
import { Badge } from '../../ui';
import { detailView } from './detail';
import { deliveryBadge } from './parts';
import { DeliveryParams, LIST, deliveryPath, detailPath, endpointName, withEndpoint } from './shared';

export function deliveryRoutes(ctx: AppContext, kit: AdminKit) {
  return new Elysia({ detail: { hide: true } })
    .get(
      `${LIST}/:id/deliveries/:deliveryId`,
      ({ request, params }) =>
        kit.page(request, (page) =>
          withEndpoint(ctx, page, params.id, async (endpoint) => {
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
          withEndpoint(ctx, page, params.id, async (endpoint) => {
            try {
              await retryDelivery(ctx, endpoint.id, params.deliveryId);
            } catch (error) {
              if (!(error instanceof AppError) || error.status >= 500) throw error;
              return render(await detailView(ctx, page, endpoint, { error: error.message }), { status: error.status });
            }
            return seeOther(`${detailPath(endpoint.id)}?done=retried`);
          }),
        ),
      { params: DeliveryParams },
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
      {d.status !== 'pending' && can(props.page, 'POST', `${LIST}/:id/deliveries/:deliveryId/retry`) && (
        <form method="post" action={`${deliveryPath(ep.id, d.id)}/retry`}>
          <CsrfInput token={props.page.csrf} />
          <button type="submit">Retry this delivery</button>
        </form>
      )}
    </AdminLayout>
  );
}
