// Webhook endpoints (registration, changes, soft and hard delete), the delivery log, and the
// synchronous sends (test calls and manual retries) that answer the delivery record inline.
import type { JSONValue } from 'postgres';
import type { AppContext } from '../../context';
import type { Sql, Transaction, Tx } from '../../db';
import { changesOf, record } from '../audit/service';
import { conflict, invalidField, notFound } from '../../lib/errors';
import { isId, newId } from '../../lib/ids';
import { iso } from '../../lib/time';
import { EVENT_TYPES, isEventType, WILDCARD } from './events';
import { urlProblem } from './guard';
import { MAX_URL_LENGTH, type DeliveryRecord, type EndpointRecord } from './model';
import { samplePayload } from './samples';
import { attemptDelivery, type AttemptResult } from './send';
import { newSecret } from './signing';

export type Endpoint = typeof EndpointRecord.static;
export type Delivery = typeof DeliveryRecord.static;

type EndpointRow = { id: string; url: string; events: string[]; active: boolean; label: string | null; created_at: Date };

type DeliveryRow = {
  id: string;
  endpoint_id: string;
  event_id: string;
  event: string;
  status: Delivery['status'];
  attempt: number;
  response_status: number | null;
  response_body: string | null;
  error: Delivery['error'];
  duration_ms: number | null;
  created_at: Date;
  completed_at: Date | null;
  retry_of: string | null;
  next_attempt_at: Date;
};

const ENDPOINT_COLUMNS = (sql: Tx) => sql`id, url, events, active, label, created_at`;
const DELIVERY_COLUMNS = (sql: Tx) => sql`
  id, endpoint_id, event_id, event, status, attempt, response_status, response_body, error, duration_ms,
  created_at, completed_at, retry_of, next_attempt_at`;

function toEndpoint(row: EndpointRow): Endpoint {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    active: row.active,
    label: row.label,
    createdAt: iso(row.created_at)!,
  };
}

export function toDelivery(row: DeliveryRow): Delivery {
  return {
    id: row.id,
    endpointId: row.endpoint_id,
    eventId: row.event_id,
    event: row.event,
    status: row.status,
    attempt: row.attempt,
    responseStatus: row.response_status,
    responseBody: row.response_body,
    error: row.error,
    durationMs: row.duration_ms,
    createdAt: iso(row.created_at)!,
    completedAt: iso(row.completed_at),
    retryOf: row.retry_of,
    nextAttemptAt: row.status === 'pending' ? iso(row.next_attempt_at) : null,
  };
}

/** Lease a delivery is given while one process sends it; after it, another process may take it over. */
export function leaseMs(ctx: AppContext): number {
  return ctx.config.webhookTimeoutMs + 5000;
}

function checkUrl(ctx: AppContext, url: string): string {
  const problem = urlProblem(url.trim(), { allowHttp: ctx.config.webhookAllowHttp, allowPrivate: ctx.config.webhookAllowPrivate });
  if (problem) throw invalidField('url', problem);
  // the stored form, percent-encoded and punycoded, is what must fit
  const normalized = new URL(url.trim()).toString();
  if (normalized.length > MAX_URL_LENGTH) throw invalidField('url', `must be at most ${MAX_URL_LENGTH} characters (once percent-encoded)`);
  return normalized;
}

/** Validates a subscription list: known event types, or `*` alone. Duplicates collapse. */
export function checkEvents(events: string[]): string[] {
  const unique = [...new Set(events)];
  if (unique.includes(WILDCARD)) {
    if (unique.length > 1) throw invalidField('events', 'use ["*"] alone to receive every event');
    return [WILDCARD];
  }
  const unknown = unique.filter((e) => !isEventType(e));
  if (unknown.length > 0) {
    throw invalidField('events', `unknown event type ${unknown.map((e) => JSON.stringify(e)).join(', ')}; known: ${EVENT_TYPES.join(', ')}, or "*"`);
  }
  return unique;
}

export async function createEndpoint(
  ctx: AppContext,
  input: { url: string; events: string[]; label?: string | null },
): Promise<{ endpoint: Endpoint; secret: string }> {
  const url = checkUrl(ctx, input.url);
  const events = checkEvents(input.events);
  const secret = newSecret();
  return ctx.sql.begin(async (tx) => {
    const [row] = await tx<EndpointRow[]>`
      insert into webhook_endpoints (id, url, events, label, secret)
      values (${newId('endpoint')}, ${url}, ${events}, ${input.label ?? null}, ${secret})
      returning ${ENDPOINT_COLUMNS(tx)}`;
    const endpoint = toEndpoint(row!);
    await recordEndpoint(tx, 'created', null, endpoint);
    return { endpoint, secret };
  });
}

/** `webhook_endpoint.<verb>` with the endpoint's fields that changed (its secret is never among them). */
async function recordEndpoint(tx: Transaction, verb: string, before: Endpoint | null, after: Endpoint): Promise<void> {
  const changes = changesOf(before, after, ['url', 'events', 'label', 'active']);
  await record(tx, { action: `webhook_endpoint.${verb}`, target: { type: 'webhook_endpoint', id: after.id }, changes, skipIfUnchanged: verb === 'updated' });
}

export async function listEndpoints(sql: Sql, filter: { active?: boolean; limit: number; cursor?: string }): Promise<Endpoint[]> {
  const rows = await sql<EndpointRow[]>`
    select ${ENDPOINT_COLUMNS(sql)} from webhook_endpoints
    where true
      ${filter.active === undefined ? sql`` : sql`and active = ${filter.active}`}
      ${filter.cursor ? sql`and id < ${filter.cursor}` : sql``}
    order by id desc
    limit ${filter.limit + 1}`;
  return rows.map(toEndpoint);
}

async function endpointRow(sql: Tx, id: string): Promise<EndpointRow> {
  if (!isId('endpoint', id)) throw notFound('webhook endpoint');
  const [row] = await sql<EndpointRow[]>`select ${ENDPOINT_COLUMNS(sql)} from webhook_endpoints where id = ${id}`;
  if (!row) throw notFound('webhook endpoint');
  return row;
}

export async function getEndpoint(sql: Sql, id: string): Promise<Endpoint> {
  return toEndpoint(await endpointRow(sql, id));
}

export async function updateEndpoint(
  ctx: AppContext,
  id: string,
  input: { url?: string; events?: string[]; label?: string | null; active?: boolean },
): Promise<Endpoint> {
  const before = toEndpoint(await endpointRow(ctx.sql, id));
  const url = input.url === undefined ? undefined : checkUrl(ctx, input.url);
  const events = input.events === undefined ? undefined : checkEvents(input.events);
  return ctx.sql.begin(async (tx) => {
    const [row] = await tx<EndpointRow[]>`
      update webhook_endpoints set
        url = coalesce(${url ?? null}, url),
        events = coalesce(${events ?? null}::text[], events),
        label = ${input.label === undefined ? tx`label` : input.label},
        active = coalesce(${input.active ?? null}::boolean, active),
        updated_at = now()
      where id = ${id}
      returning ${ENDPOINT_COLUMNS(tx)}`;
    if (!row) throw notFound('webhook endpoint');
    const endpoint = toEndpoint(row);
    await recordEndpoint(tx, 'updated', before, endpoint);
    return endpoint;
  });
}

/** The select column of an endpoint `e`'s previous secret while it still signs (null after). */
export const previousSecret = (sql: Sql) => sql`case when e.previous_secret_expires_at > now() then e.previous_secret end as previous_secret`;

/** How long a rotated secret keeps signing beside the new one (as Svix and Stripe do). */
export const SECRET_OVERLAP_HOURS = 24;

/**
 * Replaces the endpoint's signing secret and answers the new one (shown this once). Every send
 * reads the secrets when it signs, so the next attempt, retries of older events included, is
 * signed with the new secret; for SECRET_OVERLAP_HOURS the old one signs too (a second
 * webhook-signature entry), so receivers can switch secrets without missing a delivery. Rotating
 * again within that window keeps only the secret being replaced.
 */
export async function rotateSecret(sql: Sql, id: string): Promise<{ endpoint: Endpoint; secret: string }> {
  await endpointRow(sql, id);
  const secret = newSecret();
  return sql.begin(async (tx) => {
    const [row] = await tx<EndpointRow[]>`
      update webhook_endpoints
      set previous_secret = secret, previous_secret_expires_at = now() + ${SECRET_OVERLAP_HOURS} * interval '1 hour',
          secret = ${secret}, updated_at = now()
      where id = ${id} returning ${ENDPOINT_COLUMNS(tx)}`;
    if (!row) throw notFound('webhook endpoint');
    // that it changed, never what to
    await record(tx, { action: 'webhook_endpoint.secret_rotated', target: { type: 'webhook_endpoint', id }, changes: { secret: ['old', 'new'] } });
    return { endpoint: toEndpoint(row), secret };
  });
}

/** Soft delete (active=false, history kept) or, with hard, removes the endpoint and its delivery log. */
export async function deleteEndpoint(sql: Sql, id: string, hard: boolean): Promise<Endpoint | null> {
  const before = toEndpoint(await endpointRow(sql, id));
  return sql.begin(async (tx) => {
    if (hard) {
      await tx`delete from webhook_endpoints where id = ${id}`;
      await record(tx, { action: 'webhook_endpoint.deleted', target: { type: 'webhook_endpoint', id }, changes: changesOf(before, { url: null, events: null, label: null, active: null }) });
      return null;
    }
    const [row] = await tx<EndpointRow[]>`
      update webhook_endpoints set active = false, updated_at = now() where id = ${id} returning ${ENDPOINT_COLUMNS(tx)}`;
    if (!row) throw notFound('webhook endpoint');
    const endpoint = toEndpoint(row);
    await recordEndpoint(tx, 'disabled', before, endpoint);
    return endpoint;
  });
}

export async function listDeliveries(
  sql: Sql,
  endpointId: string,
  filter: { status?: string; event?: string; limit: number; cursor?: string },
): Promise<Delivery[]> {
  await endpointRow(sql, endpointId);
  if (filter.event !== undefined && !isEventType(filter.event)) {
    throw invalidField('event', `unknown event type; known: ${EVENT_TYPES.join(', ')}`, 'invalid_query');
  }
  const rows = await sql<DeliveryRow[]>`
    select ${DELIVERY_COLUMNS(sql)} from webhook_deliveries
    where endpoint_id = ${endpointId}
      ${filter.status ? sql`and status = ${filter.status}` : sql``}
      ${filter.event ? sql`and event = ${filter.event}` : sql``}
      ${filter.cursor ? sql`and id < ${filter.cursor}` : sql``}
    order by id desc
    limit ${filter.limit + 1}`;
  return rows.map(toDelivery);
}

async function deliveryRow(sql: Tx, endpointId: string, deliveryId: string): Promise<DeliveryRow> {
  await endpointRow(sql, endpointId);
  if (!isId('event', deliveryId)) throw notFound('delivery');
  const [row] = await sql<DeliveryRow[]>`
    select ${DELIVERY_COLUMNS(sql)} from webhook_deliveries where id = ${deliveryId} and endpoint_id = ${endpointId}`;
  if (!row) throw notFound('delivery');
  return row;
}

export async function getDelivery(sql: Sql, endpointId: string, deliveryId: string): Promise<Delivery> {
  return toDelivery(await deliveryRow(sql, endpointId, deliveryId));
}

/** The raw request body of an envelope (event row with `data` as JSON text). */
export function envelopeBody(event: { id: string; type: string; created_at: Date; data: string }): string {
  return `{"id":${JSON.stringify(event.id)},"event":${JSON.stringify(event.type)},"created":"${event.created_at.toISOString()}","data":${event.data}}`;
}

/** Writes the outcome of one attempt; only a delivery still pending is changed. */
export async function recordAttempt(sql: Tx, deliveryId: string, result: AttemptResult): Promise<DeliveryRow | undefined> {
  const [row] = await sql<DeliveryRow[]>`
    update webhook_deliveries set
      status = ${result.status},
      response_status = ${result.responseStatus},
      response_body = ${result.responseBody},
      error = ${result.error},
      duration_ms = ${result.durationMs},
      completed_at = now(),
      lease_until = null
    where id = ${deliveryId} and status = 'pending'
    returning ${DELIVERY_COLUMNS(sql)}`;
  return row;
}

/**
 * Sends a delivery row the caller just inserted (leased to us) and answers its record. Used by the
 * test call and manual retry, which answer synchronously.
 */
async function sendInline(ctx: AppContext, deliveryId: string): Promise<Delivery> {
  const [row] = await ctx.sql<{ id: string; event: string; url: string; secret: string; previous_secret: string | null; event_id: string; type: string; created_at: Date; data: string }[]>`
    select d.id, d.event, e.url, e.secret, ${previousSecret(ctx.sql)}, ev.id as event_id, ev.type, ev.created_at, ev.data::text as data
    from webhook_deliveries d
    join webhook_endpoints e on e.id = d.endpoint_id
    join webhook_events ev on ev.id = d.event_id
    where d.id = ${deliveryId}`;
  if (!row) throw notFound('delivery');
  const result = await attemptDelivery(
    {
      url: row.url,
      secret: row.secret,
      previousSecret: row.previous_secret,
      event: row.event,
      envelopeId: row.event_id,
      deliveryId: row.id,
      body: envelopeBody({ id: row.event_id, type: row.type, created_at: row.created_at, data: row.data }),
    },
    {
      allowHttp: ctx.config.webhookAllowHttp,
      allowPrivate: ctx.config.webhookAllowPrivate,
      timeoutMs: ctx.config.webhookTimeoutMs,
    },
  );
  countAttempt(ctx, result);
  const done = await recordAttempt(ctx.sql, deliveryId, result);
  if (done) return toDelivery(done);
  const [current] = await ctx.sql<DeliveryRow[]>`select ${DELIVERY_COLUMNS(ctx.sql)} from webhook_deliveries where id = ${deliveryId}`;
  if (!current) throw notFound('webhook endpoint'); // deleted for good while we were sending
  return toDelivery(current);
}

export function countAttempt(ctx: AppContext, result: AttemptResult): void {
  ctx.metrics.inc('partnerd_webhook_deliveries_total', { result: result.error ?? 'succeeded' });
  ctx.metrics.observe('partnerd_webhook_delivery_duration_seconds', result.durationMs / 1000);
}

/**
 * `POST /webhooks/:id/test`: a `webhook.test` envelope, or a sample of `event`, sent now to this
 * endpoint whatever it subscribes to (and even when inactive). The envelope is stored marked as
 * synthetic; the attempt appears in the delivery log like any other.
 */
export async function testSend(ctx: AppContext, endpointId: string, event: string | undefined): Promise<Delivery> {
  const type = event ?? 'webhook.test';
  if (!isEventType(type)) {
    throw invalidField('event', `unknown event type; known: ${EVENT_TYPES.join(', ')}`, 'invalid_query');
  }
  const deliveryId = await ctx.sql.begin(async (tx) => {
    await endpointRow(tx, endpointId);
    const eventId = newId('event');
    await tx`
      insert into webhook_events (id, type, data, synthetic)
      values (${eventId}, ${type}, ${tx.json(samplePayload(type) as JSONValue)}, true)`;
    const id = newId('event');
    await tx`
      insert into webhook_deliveries (id, endpoint_id, event_id, event, lease_until)
      values (${id}, ${endpointId}, ${eventId}, ${type}, now() + ${leaseMs(ctx)} * interval '1 millisecond')`;
    return id;
  });
  return sendInline(ctx, deliveryId);
}

/**
 * Manual retry: a new attempt row (attempt + 1, retryOf the old one) for the same envelope, sent
 * now. A delivery still pending cannot be retried (it is about to be sent).
 */
export async function retryDelivery(ctx: AppContext, endpointId: string, deliveryId: string): Promise<Delivery> {
  const id = await ctx.sql.begin(async (tx) => {
    const old = await deliveryRow(tx, endpointId, deliveryId);
    if (old.status === 'pending') throw conflict('this delivery is still pending; it will be sent without a retry');
    const id = newId('event');
    await tx`
      insert into webhook_deliveries (id, endpoint_id, event_id, event, attempt, retry_of, lease_until)
      values (${id}, ${endpointId}, ${old.event_id}, ${old.event}, ${old.attempt + 1}, ${old.id},
              now() + ${leaseMs(ctx)} * interval '1 millisecond')`;
    return id;
  });
  return sendInline(ctx, id);
}
