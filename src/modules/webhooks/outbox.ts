// The transactional outbox: modules call enqueueEvent inside their own transaction, so an envelope
// (and its delivery rows) exists exactly when the change that caused it commits.
import type { JSONValue } from 'postgres';
import type { Tx } from '../../db';
import { idTime, newId } from '../../lib/ids';
import type { EventPayloads, EventType } from './events';

export const DELIVERY_CHANNEL = 'partnerd_deliveries';

export type Envelope<E extends EventType = EventType> = { id: string; event: E; created: string; data: EventPayloads[E] };

/**
 * Records one envelope and a pending delivery for every active endpoint subscribed to its type
 * (or to "*"). Endpoints registered later never receive it. Answers the envelope.
 */
export async function enqueueEvent<E extends EventType>(sql: Tx, type: E, data: EventPayloads[E]): Promise<Envelope<E>> {
  const id = newId('event');
  const [row] = await sql<{ created_at: Date }[]>`
    insert into webhook_events (id, type, data)
    values (${id}, ${type}, ${sql.json(data as JSONValue)})
    returning created_at`;
  const endpoints = await sql<{ id: string }[]>`
    select id from webhook_endpoints
    where active and (${type} = any(events) or '*' = any(events))
    order by id`;
  if (endpoints.length > 0) {
    const rows = endpoints.map((e) => ({ id: newId('event'), endpoint_id: e.id, event_id: id, event: type }));
    await sql`insert into webhook_deliveries ${sql(rows, 'id', 'endpoint_id', 'event_id', 'event')}`;
    await sql`select pg_notify(${DELIVERY_CHANNEL}, ${id})`;
  }
  return { id, event: type, created: row!.created_at.toISOString(), data };
}

/**
 * The set-based form of enqueueEvent's delivery rows, for jobs that write envelopes in bulk: used as
 * a CTE after one named `envelopes` (columns id, type), it gives every envelope a pending delivery
 * per active endpoint subscribed to its type. Delivery ids are `idPrefix` + a counter.
 */
export function insertDeliveriesForEnvelopes(sql: Tx, idPrefix: string) {
  return sql`
    insert into webhook_deliveries (id, endpoint_id, event_id, event)
    select ${idPrefix} || lpad(to_hex(row_number() over ()), 8, '0'), e.id, v.id, v.type
    from envelopes v
    join webhook_endpoints e on e.active and (v.type = any(e.events) or '*' = any(e.events))
    returning 1`;
}

/**
 * Envelopes gathered while a batch is written and written all at once at its end (`write`): the
 * envelopes in one statement, their deliveries in another, one wake-up for the dispatcher. For the
 * event intake, where hundreds of events each enqueue two envelopes; the rows are the same as one
 * enqueueEvent at a time would write, in the same (id) order, in the same transaction. The batch is
 * passed to whatever enqueues (accrueCommissions), so a reader sees where envelopes go.
 */
export class EnvelopeBatch {
  readonly #envelopes: Envelope[] = [];

  /** Adds an envelope; its id (and so its order) is taken now, its row is written by `write`. */
  add<E extends EventType>(type: E, data: EventPayloads[E]): Envelope<E> {
    const id = newId('event');
    // an envelope's created_at is the time in its id: the answer is known before the row is written
    const envelope = { id, event: type, created: idTime(id).toISOString(), data };
    this.#envelopes.push(envelope);
    return envelope;
  }

  /** Writes the envelopes added so far with their deliveries, in `sql`'s transaction. */
  async write(sql: Tx): Promise<void> {
    const gathered = this.#envelopes.splice(0);
    if (gathered.length === 0) return;
    const [, endpoints] = await Promise.all([
      sql`
        insert into webhook_events (id, type, data)
        select id, type, data from jsonb_to_recordset(${sql.json(gathered.map((e) => ({ id: e.id, type: e.event, data: e.data })) as JSONValue)})
          as r(id text, type text, data jsonb)`,
      sql<{ id: string; events: string[] }[]>`select id, events from webhook_endpoints where active order by id`,
    ]);
    const deliveries = gathered.flatMap((envelope) =>
      endpoints
        .filter((e) => e.events.includes(envelope.event) || e.events.includes('*'))
        .map((e) => ({ id: newId('event'), endpoint_id: e.id, event_id: envelope.id, event: envelope.event })),
    );
    if (deliveries.length > 0) {
      await sql`
        insert into webhook_deliveries (id, endpoint_id, event_id, event)
        select id, endpoint_id, event_id, event from jsonb_to_recordset(${sql.json(deliveries)}) as r(id text, endpoint_id text, event_id text, event text)`;
      await sql`select pg_notify(${DELIVERY_CHANNEL}, ${gathered[0]!.id})`;
    }
  }
}
