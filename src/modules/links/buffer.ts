// The click write buffer: redirects hand clicks over and answer at once; a timer writes them in
// multi-row inserts (a few at a time, on separate connections). A click acknowledged by a redirect
// is in the database within FLUSH_MS plus one insert; a failed insert keeps its clicks and retries.
// Under overload (inserts slower than clicks arrive) `backpressure()` makes redirects wait for the
// backlog to shrink, so the one-second durability bound holds at the cost of latency. Identify asks
// for the clicks it names to be written at once (`writeSoon`) instead of waiting for the timer.
import type { Sql } from '../../db';
import { isDataException } from '../../lib/errors';
import type { Logger } from '../../lib/log';
import type { ClickTraffic } from './traffic';

export type ClickRow = {
  id: string;
  link_id: string;
  partner_id: string;
  campaign_id: string;
  ip_hash: string | null;
  user_agent: string | null;
  referrer: string | null;
  /** bot_click or click_flood: kept, never credited (DESIGN.md "Fraud and review"); null: it may earn. */
  uncredited_reason: string | null;
  /** When the click was made, epoch milliseconds: how long it has waited (the stored created_at is the time in its id). */
  created_at: number;
} & Partial<ClickTraffic>;

/** How long a click may wait in memory before its batch is written. */
export const FLUSH_MS = 100;
/** Rows per insert statement. */
const BATCH_ROWS = 2_000;
/** Inserts running at once. */
export const MAX_IN_FLIGHT = 3;
/** A backlog this large is written at once instead of waiting for the timer. */
const EAGER_ROWS = 500;
/** Oldest pending click older than this: new redirects wait (see backpressure). */
export const OVERLOAD_AGE_MS = 500;
/** Longest a redirect waits out an overload. */
export const MAX_WAIT_MS = 1_000;
const MAX_RETRY_MS = 1_000;

export class ClickBuffer {
  private pending: ClickRow[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  /** Running inserts and the clicks each one writes. */
  private inFlight = new Map<Promise<void>, ClickRow[]>();
  /** Called after the next insert finishes, successful or not (see writeSoon). */
  private writeWaiters: (() => void)[] = [];
  private failures = 0;
  private closed = false;
  /** One promise shared by every redirect waiting out an overload; settles on drain or after MAX_WAIT_MS. */
  private overload: { promise: Promise<void>; resolve: () => void } | null = null;
  /** Total clicks written; read by metrics and tests. */
  written = 0;
  /** How long a click waits for the timer (FLUSH_MS; tests lengthen it to keep clicks buffered). */
  flushMs = FLUSH_MS;

  constructor(
    private sql: Sql,
    private log: Logger,
    private onWritten: (count: number, seconds: number) => void = () => undefined,
  ) {}

  add(row: ClickRow) {
    this.pending.push(row);
    if (this.pending.length >= EAGER_ROWS && this.inFlight.size < MAX_IN_FLIGHT && this.failures === 0) this.startWrites();
    else if (!this.timer) this.schedule(this.flushMs);
  }

  get size() {
    return this.pending.length;
  }

  /** How long the oldest pending click has waited, ms; 0 when none is pending. */
  oldestWaitMs(now = Date.now()): number {
    const oldest = this.pending[0];
    return oldest ? now - oldest.created_at : 0;
  }

  /** Which of these clicks are still held here (waiting, or in an insert not yet finished). */
  held(ids: ReadonlySet<string>): Set<string> {
    const found = new Set<string>();
    const look = (rows: ClickRow[]) => {
      for (const row of rows) if (ids.has(row.id)) found.add(row.id);
    };
    look(this.pending);
    for (const rows of this.inFlight.values()) look(rows);
    return found;
  }

  /**
   * Writes these clicks without waiting for the timer and resolves true once none of them is held
   * here any more (written, or refused for good), false if some still are at `deadline` (the
   * database is failing). While an insert is running it is waited for rather than joined by
   * another, so many callers at once still make a few larger inserts. Never throws.
   */
  async writeSoon(ids: ReadonlySet<string>, deadline: number): Promise<boolean> {
    for (;;) {
      if (this.held(ids).size === 0) return true;
      const left = deadline - Date.now();
      if (left <= 0) return false;
      // while failing, the retry timer paces the writes
      if (this.inFlight.size === 0 && this.failures === 0) this.startWrites();
      await this.nextWrite(left);
    }
  }

  /** Resolves when the next insert finishes, or after `ms`. */
  private nextWrite(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timeout = setTimeout(done, ms);
      function done() {
        clearTimeout(timeout);
        resolve();
      }
      this.writeWaiters.push(done);
    });
  }

  /**
   * Null normally; while the oldest pending click has waited OVERLOAD_AGE_MS (inserts are not
   * keeping up), a promise that settles once the backlog is young again.
   */
  backpressure(now = Date.now()): Promise<void> | null {
    if (this.overload) return this.overload.promise;
    // while the database fails, waiting would only stall redirects: they go on, clicks stay buffered
    if (this.oldestWaitMs(now) < OVERLOAD_AGE_MS || this.closed || this.failures > 0) return null;
    let resolve!: () => void;
    const promise = new Promise<void>((r) => (resolve = r));
    const timeout = setTimeout(() => this.endOverload(), MAX_WAIT_MS);
    this.overload = {
      promise,
      resolve: () => {
        clearTimeout(timeout);
        resolve();
      },
    };
    return promise;
  }

  private endOverload() {
    const overload = this.overload;
    this.overload = null;
    overload?.resolve();
  }

  private schedule(ms: number) {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.startWrites();
    }, ms);
  }

  /** Starts inserts for pending clicks, up to MAX_IN_FLIGHT at once (one at a time while failing). */
  private startWrites() {
    while (this.pending.length > 0 && this.inFlight.size < MAX_IN_FLIGHT) {
      this.startWrite(this.pending.splice(0, BATCH_ROWS));
      if (this.failures > 0) break;
    }
  }

  private startWrite(batch: ClickRow[]) {
    const write: Promise<void> = this.insert(batch)
      .then(
        () => {
          this.failures = 0;
        },
        (error) => {
          // keep the clicks, ahead of newer ones, and try again with backoff
          this.pending = batch.concat(this.pending);
          this.failures++;
          const wait = Math.min(MAX_RETRY_MS, FLUSH_MS * 2 ** this.failures);
          this.log.error('click flush failed; retrying', { clicks: this.pending.length, retryInMs: wait, error });
          if (!this.closed) this.schedule(wait);
        },
      )
      .finally(() => {
        this.inFlight.delete(write);
        this.afterWrite();
      });
    this.inFlight.set(write, batch);
  }

  private afterWrite() {
    if (this.overload && (this.oldestWaitMs() < OVERLOAD_AGE_MS || this.failures > 0)) this.endOverload();
    if (!this.closed && this.failures === 0) {
      if (this.pending.length >= EAGER_ROWS) this.startWrites();
      else if (this.pending.length > 0 && !this.timer) this.schedule(this.flushMs);
    }
    const waiters = this.writeWaiters;
    this.writeWaiters = [];
    for (const wake of waiters) wake();
  }

  private async insert(rows: ClickRow[]) {
    const started = performance.now();
    try {
      await this.insertRows(rows);
    } catch (error) {
      // A row the database refuses for good (class 22 data, 23 integrity) must not block the rest:
      // write the batch row by row and drop only the refused rows.
      if (!refusedForGood(error)) throw error;
      for (const row of rows) {
        try {
          await this.insertRows([row]);
        } catch (rowError) {
          if (!refusedForGood(rowError)) throw rowError;
          this.log.error('click dropped: refused by the database', { clickId: row.id, error: rowError });
        }
      }
    }
    this.written += rows.length;
    this.onWritten(rows.length, (performance.now() - started) / 1000);
  }

  /**
   * One multi-row insert from one JSON parameter: JSON.stringify is native and fast, where eight
   * text arrays cost an escaping pass per value in the driver (the largest share of the
   * redirect's CPU after the HTTP stack). No replacer: with one, the engine leaves its fast path
   * (four times slower); json_to_recordset ignores the keys it is not asked for (created_at).
   */
  private async insertRows(rows: ClickRow[]) {
    const json = JSON.stringify(rows);
    await this.sql`
      insert into clicks (id, link_id, partner_id, campaign_id, ip_hash, user_agent, referrer, uncredited_reason,
        sub_id, country, device, browser, referrer_domain)
      select id, link_id, partner_id, campaign_id, ip_hash, user_agent, referrer, uncredited_reason,
        sub_id, country, device, browser, referrer_domain
      from json_to_recordset(${json}::text::json) as r(
        id text, link_id text, partner_id text, campaign_id text, ip_hash text, user_agent text, referrer text, uncredited_reason text,
        sub_id text, country text, device text, browser text, referrer_domain text)
      on conflict (id) do nothing`;
  }

  /** Writes everything pending now and waits for it (tests, shutdown). Throws if a write failed. */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    for (;;) {
      while (this.pending.length > 0 && this.inFlight.size < MAX_IN_FLIGHT) this.startWrite(this.pending.splice(0, BATCH_ROWS));
      if (this.inFlight.size === 0) return;
      const failures = this.failures;
      await Promise.all(this.inFlight.keys());
      if (this.failures > failures) throw new Error('click flush failed');
    }
  }

  /**
   * Stops the timer and writes what is pending, retrying for up to `timeoutMs`
   * (SIGTERM: clicks already answered must not be lost).
   */
  async close(timeoutMs = 10_000): Promise<void> {
    this.closed = true;
    this.endOverload();
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        await this.flush();
        if (this.pending.length === 0) return;
      } catch {
        if (Date.now() >= deadline) {
          this.log.error('clicks lost at shutdown', { clicks: this.pending.length });
          return;
        }
        await Bun.sleep(Math.min(MAX_RETRY_MS, Math.max(0, deadline - Date.now())));
      }
    }
  }
}

/** The columns written (created_at is the time in the id, derived by the database). */

function refusedForGood(error: unknown): boolean {
  return isDataException(error) || (error instanceof Error && error.name === 'PostgresError' && String((error as { code?: string }).code).startsWith('23'));
}
