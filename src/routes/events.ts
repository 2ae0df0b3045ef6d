// Event routes of SPEC section 4: POST /v1/events (minor units), POST /attribution/events
// (major units, answers the attribution result), GET /v1/events; and POST /v1/events/batch
// (DESIGN.md "Batch ingest"). The two one-event routes go through the group commit.
import type { Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { Elysia } from 'elysia';
import type { AppContext } from '../context';
import { AppError, invalidField, invalidFields, problemsOf } from '../lib/errors';
import { readMetadata } from '../lib/metadata';
import { paginate, readPage } from '../lib/http';
import { parseMajor } from '../lib/money';
import type { EventInput } from '../modules/events/intake';
import { recordEvents } from '../workflows/record-events';
import { authPlugin, ownPartnerId } from '../modules/auth/plugin';
import { recordThroughGroupCommit } from '../workflows/group-commit';
import { BatchEventItem, BatchEventsBody, CreateEventBody, EventResponses, IdempotencyHeaders, ListEventsQuery, TrackEventBody } from '../modules/events/model';
import { checkIdempotencyKey, listEvents, type EventRecord } from '../modules/events/service';

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

/** What a body of POST /v1/events (or a batch item: the same fields) records; the key as sent. */
function eventInput(body: Static<typeof CreateEventBody>, idempotencyKey: string | undefined): EventInput {
  return {
    source: 'api',
    userId: body.userId,
    type: body.type,
    amount: body.amount === undefined ? null : BigInt(body.amount),
    currency: body.currency ?? null,
    occurredAt: body.occurredAt,
    metadata: readMetadata(body.metadata),
    idempotencyKey: checkIdempotencyKey(idempotencyKey),
    couponCode: body.couponCode,
    customerEmail: body.customerEmail ?? null,
  };
}

/**
 * One item of a batch as an EventInput, or the 400 it earns on its own: the same checks as the
 * body of POST /v1/events, fields named as there.
 */
function readBatchItem(item: unknown): EventInput {
  if (!Value.Check(BatchEventItem, item)) throw invalidFields(problemsOf(BatchEventItem, item, { root: '(event)' }));
  return eventInput(item, item.idempotencyKey);
}

export function eventRoutes(ctx: AppContext) {
  return new Elysia({ tags: ['Events'] })
    .use(authPlugin(ctx))
    .post(
      '/events',
      async ({ body, headers, set }) => {
        const recorded = await recordThroughGroupCommit(ctx, eventInput(body, headers['idempotency-key']));
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
        const recorded = await recordThroughGroupCommit(ctx, {
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
    .post(
      '/events/batch',
      async ({ body }) => {
        const inputs: (EventInput | AppError)[] = body.events.map((item) => {
          try {
            return readBatchItem(item);
          } catch (error) {
            if (error instanceof AppError) return error;
            throw error;
          }
        });
        const valid = inputs.flatMap((input, index) => (input instanceof AppError ? [] : [{ index, input }]));
        const outcomes = await recordEvents(ctx, valid.map((v) => v.input));
        const outcomeOf = new Map(valid.map(({ index }, k) => [index, outcomes[k]!]));
        const results = inputs.map((input, index) => {
          if (input instanceof AppError) return { error: input.toBody() };
          const outcome = outcomeOf.get(index)!;
          return outcome.ok ? eventBody(outcome.recorded.event) : { error: outcome.error.toBody() };
        });
        return { results };
      },
      {
        auth: 'events:write',
        body: BatchEventsBody,
        response: EventResponses.batch,
        detail: {
          summary: 'Record up to 1,000 conversion events at once',
          description:
            'Each item is shaped like the body of POST /v1/events, plus an optional `idempotencyKey` (as the header of POST /v1/events: a repeat answers the original event and records nothing; another body under the same key is that item\'s 409). ' +
            'The answer has one result per item, in order: the event, or `{error: {code, message, details}}` for that item alone. One bad item never rejects the others. ' +
            'The events are written together in one transaction (for backfills and migrations; see docs/migrating.md).',
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
