// The delivery dispatcher: runs in every service process. It wakes on NOTIFY from the outbox and
// also polls; claims due deliveries with FOR UPDATE SKIP LOCKED and a lease (several replicas share
// the work; a crashed process's leases run out and its deliveries are sent again: at-least-once);
// sends with bounded concurrency; records outcomes in batches. stop() lets in-flight sends finish.
import type { AppContext } from '../../context';
import type { Sql } from '../../db';
import { createWakeLoop } from '../../db/wake-loop';
import type { Logger } from '../../lib/log';
import { newId } from '../../lib/ids';
import { DELIVERY_CHANNEL } from './outbox';
import { retryDelayMs } from './schedule';
import { attemptDelivery, type AttemptResult, type SendOptions } from './send';
import { countAttempt, envelopeBody, leaseMs, previousSecret } from './service';

export type DispatcherOptions = {
  /** Deliveries in flight at once (per process). */
  concurrency?: number;
  /** Polling interval, for deliveries whose NOTIFY was missed and for scheduled retries. */
  pollMs?: number;
  /** A separate database handle (the test of two dispatchers uses one each). */
  sql?: Sql;
  /** Overrides of the send options (tests: a fake DNS lookup). */
  send?: Partial<SendOptions>;
};

export type Dispatcher = {
  start(): Promise<void>;
  /** Stops claiming, waits for in-flight deliveries and writes their outcomes. */
  stop(): Promise<void>;
  /** Looks for due deliveries now. */
  wake(): void;
  /** Sends what is due now and waits until it is sent and recorded, till nothing is due (tests). */
  drain(): Promise<void>;
  /** Attempts made by this dispatcher since start. */
  readonly sent: number;
};

type Claimed = {
  id: string;
  endpoint_id: string;
  event_id: string;
  event: string;
  attempt: number;
  url: string;
  secret: string;
  previous_secret: string | null;
  type: string;
  created_at: Date;
  data: string;
};

type Outcome = { delivery: Claimed; result: AttemptResult };

export function createDispatcher(ctx: AppContext, options: DispatcherOptions = {}): Dispatcher {
  const sql = options.sql ?? ctx.sql;
  const concurrency = Math.max(1, options.concurrency ?? ctx.config.webhookConcurrency);
  const lease = leaseMs(ctx);
  const sendOptions: SendOptions = {
    allowHttp: ctx.config.webhookAllowHttp,
    allowPrivate: ctx.config.webhookAllowPrivate,
    timeoutMs: ctx.config.webhookTimeoutMs,
    ...options.send,
  };
  const log = ctx.log.child({ component: 'webhooks' });
  const outcomes = new OutcomeWriter(sql, log, ctx.config.webhookAutoRetry);

  let inFlight = 0;
  let sent = 0;
  const sends = new Set<Promise<void>>();
  let idle: (() => void) | undefined;

  /** One pass: claims due deliveries while a slot is free, and sends each. */
  async function claimDue(): Promise<void> {
    while (loop.running && inFlight < concurrency) {
      const rows = await claim(sql, concurrency - inFlight, lease);
      if (rows.length === 0) break;
      for (const row of rows) launch(row);
    }
  }

  const loop = createWakeLoop({
    sql,
    channel: DELIVERY_CHANNEL,
    pollMs: options.pollMs ?? 1000,
    log,
    pass: claimDue,
    canRepeat: () => inFlight < concurrency,
    failure: 'claiming deliveries failed',
  });

  function launch(delivery: Claimed): void {
    inFlight++;
    const task = attemptDelivery(
      {
        url: delivery.url,
        secret: delivery.secret,
        previousSecret: delivery.previous_secret,
        event: delivery.event,
        envelopeId: delivery.event_id,
        deliveryId: delivery.id,
        body: envelopeBody({ id: delivery.event_id, type: delivery.type, created_at: delivery.created_at, data: delivery.data }),
      },
      sendOptions,
    ).then((result) => {
      sent++;
      countAttempt(ctx, result);
      if (result.status === 'failed') {
        log.warn('webhook delivery failed', { deliveryId: delivery.id, endpointId: delivery.endpoint_id, error: result.error, responseStatus: result.responseStatus });
      }
      outcomes.add({ delivery, result });
    });
    const tracked = task.finally(() => {
      sends.delete(tracked);
      inFlight--;
      if (inFlight === 0 && idle) idle();
      loop.wake();
    });
    sends.add(tracked);
  }

  return {
    get sent() {
      return sent;
    },
    wake: loop.wake,
    async drain() {
      for (let before = -1; loop.running && (before !== sent || sends.size > 0); ) {
        before = sent;
        loop.wake();
        await loop.idle();
        await Promise.all([...sends]);
        await outcomes.flush();
      }
    },
    async start() {
      if (loop.running) return;
      ctx.metrics.gauge('partnerd_webhook_deliveries_due', async () => {
        const [row] = await sql<{ n: number }[]>`
          select count(*)::int as n from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id and e.active
          where d.status = 'pending' and d.next_attempt_at <= now()`;
        return row?.n ?? 0;
      });
      await loop.start();
    },
    async stop() {
      await loop.stop();
      while (inFlight > 0) await new Promise<void>((ok) => (idle = ok));
      idle = undefined;
      await Promise.all([...sends]);
      await outcomes.close();
    },
  };
}

/** Claims up to `limit` due deliveries of active endpoints, leased to this process for `lease` ms. */
function claim(sql: Sql, limit: number, lease: number): Promise<Claimed[]> {
  return sql<Claimed[]>`
    with due as (
      select d.id
      from webhook_deliveries d
      join webhook_endpoints e on e.id = d.endpoint_id and e.active
      where d.status = 'pending' and d.next_attempt_at <= now()
        and (d.lease_until is null or d.lease_until < now())
      order by d.next_attempt_at, d.id
      limit ${limit}
      for update of d skip locked
    )
    update webhook_deliveries d
    set lease_until = now() + ${lease} * interval '1 millisecond'
    from due, webhook_endpoints e, webhook_events ev
    where d.id = due.id and e.id = d.endpoint_id and ev.id = d.event_id
    returning d.id, d.endpoint_id, d.event_id, d.event, d.attempt, e.url, e.secret, ${previousSecret(sql)},
              ev.type, ev.created_at, ev.data::text as data`;
}

/**
 * Records delivery outcomes in batches: up to 200 at once, or what gathered within 5 ms, in one
 * statement (with auto-retry, the next attempts in the same one); one write at a time.
 */
class OutcomeWriter {
  #pending: Outcome[] = [];
  #writing: Promise<void> | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly sql: Sql,
    private readonly log: Logger,
    private readonly autoRetry: boolean,
  ) {}

  add(outcome: Outcome): void {
    this.#pending.push(outcome);
    this.#schedule();
  }

  #schedule(): void {
    if (this.#pending.length >= 200) {
      void this.flush();
      return;
    }
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      void this.flush();
    }, 5);
  }

  /** Writes what is pending; a failed write keeps it for the next try. */
  async flush(): Promise<void> {
    if (this.#writing) {
      await this.#writing;
      if (this.#pending.length > 0) return this.flush();
      return;
    }
    if (this.#pending.length === 0) return;
    const batch = this.#pending;
    this.#pending = [];
    this.#writing = writeOutcomes(this.sql, batch, this.autoRetry)
      .catch((error) => {
        this.log.error('recording delivery outcomes failed; retrying', { error });
        this.#pending.push(...batch);
        return new Promise<void>((ok) => setTimeout(ok, 500));
      })
      .finally(() => {
        this.#writing = undefined;
      });
    await this.#writing;
    if (this.#pending.length > 0) this.#schedule();
  }

  /** The last writes at stop: a database that is gone for good must not hold the shutdown (those leases run out and re-send). */
  async close(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    for (let i = 0; i < 5 && (this.#pending.length > 0 || this.#writing); i++) await this.flush();
  }
}

/** Writes outcomes (and, with auto-retry, the next attempts) in one statement. */
async function writeOutcomes(sql: Sql, batch: Outcome[], autoRetry: boolean): Promise<void> {
  const retries = batch.flatMap(({ delivery, result }) => {
    if (!autoRetry || result.status !== 'failed' || result.error === 'blocked') return [];
    const delay = retryDelayMs(delivery.attempt);
    return delay === null ? [] : [{ of: delivery.id, id: newId('event'), delay }];
  });
  await sql`
    with v as (
      select * from unnest(
        ${batch.map((o) => o.delivery.id)}::text[],
        ${batch.map((o) => o.result.status)}::text[],
        ${batch.map((o) => o.result.responseStatus) as never}::int[],
        ${batch.map((o) => o.result.responseBody) as never}::text[],
        ${batch.map((o) => o.result.error) as never}::text[],
        ${batch.map((o) => o.result.durationMs)}::int[]
      ) as v(id, status, response_status, response_body, error, duration_ms)
    ),
    done as (
      update webhook_deliveries d set
        status = v.status, response_status = v.response_status, response_body = v.response_body,
        error = v.error, duration_ms = v.duration_ms, completed_at = now(), lease_until = null
      from v
      where d.id = v.id and d.status = 'pending'
      returning d.id, d.endpoint_id, d.event_id, d.event, d.attempt
    ),
    r as (
      select * from unnest(${retries.map((r) => r.of)}::text[], ${retries.map((r) => r.id)}::text[], ${retries.map((r) => r.delay)}::int[])
        as r(retry_of, id, delay_ms)
    )
    insert into webhook_deliveries (id, endpoint_id, event_id, event, attempt, retry_of, next_attempt_at)
    select r.id, done.endpoint_id, done.event_id, done.event, done.attempt + 1, done.id,
           now() + r.delay_ms * interval '1 millisecond'
    from done join r on r.retry_of = done.id`;
}
