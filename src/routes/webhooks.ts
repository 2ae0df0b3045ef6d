// Webhook management routes (SPEC section 4 "Webhook management"). Registration needs the admin
// key; everything else accepts the admin key or a scoped key with webhooks:read / webhooks:write.
import { Elysia } from 'elysia';
import type { AppContext } from '../context';
import { paginate, readPage } from '../lib/http';
import { authPlugin } from '../modules/auth/plugin';
import {
  CreateEndpointBody,
  DeleteQuery,
  DeliveryParams,
  EndpointParams,
  ListDeliveriesQuery,
  ListEndpointsQuery,
  queryFlag,
  TestQuery,
  UpdateEndpointBody,
  WebhookResponses,
} from '../modules/webhooks/model';
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
} from '../modules/webhooks/service';


export function webhookRoutes(ctx: AppContext) {
  return new Elysia({ tags: ['Webhooks'] })
    .use(authPlugin(ctx))
    .post(
      '/webhooks',
      async ({ body, set }) => {
        const created = await createEndpoint(ctx, body);
        set.status = 201;
        return created;
      },
      { auth: 'admin', body: CreateEndpointBody, response: WebhookResponses.create, detail: { summary: 'Register a webhook endpoint (the secret is shown only here)' } },
    )
    .get(
      '/webhooks',
      async ({ query }) => {
        const page = readPage(query, 'endpoint');
        const active = queryFlag('active', query.active);
        const { items, nextCursor } = paginate(await listEndpoints(ctx.sql, { ...page, active }), page.limit);
        return { endpoints: items, nextCursor };
      },
      { auth: 'webhooks:read', query: ListEndpointsQuery, response: WebhookResponses.list, detail: { summary: 'List webhook endpoints' } },
    )
    .get('/webhooks/:id', ({ params }) => getEndpoint(ctx.sql, params.id), {
      auth: 'webhooks:read',
      params: EndpointParams,
      response: WebhookResponses.get,
      detail: { summary: 'Get a webhook endpoint' },
    })
    .patch('/webhooks/:id', ({ params, body }) => updateEndpoint(ctx, params.id, body), {
      auth: 'webhooks:write',
      params: EndpointParams,
      body: UpdateEndpointBody,
      response: WebhookResponses.update,
      detail: { summary: 'Change url, events, label or active' },
    })
    .delete(
      '/webhooks/:id',
      async ({ params, query, set }) => {
        const hard = queryFlag('hard', query.hard) ?? false;
        const endpoint = await deleteEndpoint(ctx.sql, params.id, hard);
        if (endpoint) return endpoint;
        set.status = 204;
        return undefined;
      },
      { auth: 'webhooks:write', params: EndpointParams, query: DeleteQuery, response: WebhookResponses.delete, detail: { summary: 'Deactivate an endpoint; ?hard=1 deletes it and its log' } },
    )
    .get(
      '/webhooks/:id/deliveries',
      async ({ params, query }) => {
        const page = readPage(query, 'event');
        const rows = await listDeliveries(ctx.sql, params.id, { ...page, status: query.status, event: query.event });
        const { items, nextCursor } = paginate(rows, page.limit);
        return { deliveries: items, nextCursor };
      },
      { auth: 'webhooks:read', params: EndpointParams, query: ListDeliveriesQuery, response: WebhookResponses.deliveries, detail: { summary: 'Delivery log of an endpoint, newest first' } },
    )
    .get('/webhooks/:id/deliveries/:deliveryId', ({ params }) => getDelivery(ctx.sql, params.id, params.deliveryId), {
      auth: 'webhooks:read',
      params: DeliveryParams,
      response: WebhookResponses.delivery,
      detail: { summary: 'One delivery attempt' },
    })
    .post('/webhooks/:id/test', ({ params, query }) => testSend(ctx, params.id, query.event), {
      auth: 'webhooks:write',
      params: EndpointParams,
      query: TestQuery,
      response: WebhookResponses.test,
      detail: { summary: 'Send webhook.test (or a sample of ?event=<type>) now; answers the delivery record' },
    })
    .post('/webhooks/:id/rotate-secret', ({ params }) => rotateSecret(ctx.sql, params.id), {
      auth: 'webhooks:write',
      params: EndpointParams,
      response: WebhookResponses.rotate,
      detail: { summary: 'Replace the signing secret; the new one is shown only in this answer' },
    })
    .post(
      '/webhooks/:id/deliveries/:deliveryId/retry',
      ({ params }) => retryDelivery(ctx, params.id, params.deliveryId),
      { auth: 'webhooks:write', params: DeliveryParams, response: WebhookResponses.retry, detail: { summary: 'Re-send a delivery now; answers the new attempt' } },
    );
}
