// Event routes of SPEC section 4: POST /v1/events (minor units), POST /attribution/events
// (major units, answers the attribution result), GET /v1/events.
import { Elysia } from 'elysia';
import type { AppContext } from '../../context';
import { invalidField } from '../../lib/errors';
import { paginate, readPage } from '../../lib/http';
import { parseMajor } from '../../lib/money';
import { recordEvent } from '../../workflows/record-event';
import { authPlugin, ownPartnerId } from '../auth/plugin';
import { CreateEventBody, EventResponses, IdempotencyHeaders, isMetadata, ListEventsQuery, TrackEventBody } from './model';
import { checkIdempotencyKey, listEvents, type EventRecord } from './service';

const eventBody = (e: EventRecord) => ({
  id: e.id,
  userId: e.userId,
  type: e.type,
  amount: e.amount,
  currency: e.currency,
  occurredAt: e.occurredAt,
  createdAt: e.createdAt,
  metadata: e.metadata,
});

// Same rule as partner metadata: a JSON object of at most 16 KiB.
const MAX_METADATA_BYTES = 16_384;

function readMetadata(value: unknown): Record<string, unknown> {
  if (value === undefined) return {};
  if (!isMetadata(value)) throw invalidField('metadata', 'must be a JSON object');
  if (Buffer.byteLength(JSON.stringify(value)) > MAX_METADATA_BYTES) throw invalidField('metadata', 'larger than 16 KiB');
  return value;
}

export function eventRoutes(ctx: AppContext) {
  return new Elysia({ tags: ['Events'] })
    .use(authPlugin(ctx))
    .post(
      '/events',
      async ({ body, headers, set }) => {
        const recorded = await recordEvent(ctx, {
          source: 'api',
          userId: body.userId,
          type: body.type,
          amount: body.amount === undefined ? null : BigInt(body.amount),
          currency: body.currency ?? null,
          occurredAt: body.occurredAt,
          metadata: readMetadata(body.metadata),
          idempotencyKey: checkIdempotencyKey(headers['idempotency-key']),
          couponCode: body.couponCode,
          customerEmail: body.customerEmail ?? null,
        });
        set.status = recorded.replayed ? 200 : 201;
        return eventBody(recorded.event);
      },
      {
        auth: 'events:write',
        body: CreateEventBody,
        headers: IdempotencyHeaders,
        response: EventResponses.create,
        detail: {
          summary: 'Record a conversion event (minor units)',
          description: 'Optional `Idempotency-Key` header: a repeated key answers the original event (200) and records nothing; the same key with another body is a 409.',
        },
      },
    )
    .post(
      '/attribution/events',
      async ({ body, headers, set }) => {
        const currency = body.currency ?? null;
        let amount: bigint | null = null;
        if (body.value !== undefined) {
          if (currency === null) throw invalidField('currency', 'required when value is set');
          amount = parseMajor(body.value, currency, 'value');
        }
        const recorded = await recordEvent(ctx, {
          source: 'attribution',
          userId: body.userId,
          type: body.type,
          amount,
          currency,
          occurredAt: body.occurredAt,
          metadata: readMetadata(body.metadata),
          idempotencyKey: checkIdempotencyKey(headers['idempotency-key']),
          couponCode: body.couponCode,
          customerEmail: body.customerEmail ?? null,
        });
        set.status = recorded.replayed ? 200 : 201;
        return { ok: true as const, eventId: recorded.event.id, attribution: recorded.attribution };
      },
      {
        auth: 'events:write',
        body: TrackEventBody,
        headers: IdempotencyHeaders,
        response: EventResponses.track,
        detail: {
          summary: 'Record a conversion event (major units) and answer its attribution',
          description: 'Optional `Idempotency-Key` header, as on POST /v1/events: a repeat answers the original result (200).',
        },
      },
    )
    .get(
      '/events',
      async ({ query, principal }) => {
        const page = readPage(query, 'event');
        const { items, nextCursor } = paginate(await listEvents(ctx.sql, { ...page, partnerId: ownPartnerId(principal) }), page.limit);
        return { events: items.map((e) => ({ ...eventBody(e), attribution: e.attribution })), nextCursor };
      },
      {
        auth: { scope: 'events:read', partner: true },
        query: ListEventsQuery,
        response: EventResponses.list,
        detail: { summary: 'List events, newest first' },
      },
    );
}
