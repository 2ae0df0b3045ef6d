// The click write buffer: redirects hand clicks over and answer at once; a timer writes them in
// multi-row inserts. A click acknowledged by a redirect is in the database within FLUSH_MS plus one
// insert; a failed insert keeps the clicks and tries again.
import type { Sql } from '../../db';
import type { Logger } from '../../lib/log';

export type ClickRow = {
  id: string;
  link_id: string;
  partner_id: string;
  campaign_id: string;
  ip_hash: string | null;
  user_agent: string | null;
  referrer: string | null;
  /** Epoch milliseconds (cheaper to send than a formatted timestamp). */
  created_at: number;
};

/** How long a click may wait in memory before its batch is written. */
export const FLUSH_MS = 100;
/** Rows per insert statement. */
const BATCH_ROWS = 5_000;
/** A backlog this large is written at once instead of waiting for the timer. */
const EAGER_ROWS = 1_000;
const MAX_RETRY_MS = 1_000;

export class ClickBuffer {
  private pending: ClickRow[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  private flushing: Promise<void> | null = null;
  private failures = 0;
  private closed = false;
  /** Total clicks written; read by metrics and tests. */
  written = 0;

  constructor(
    private sql: Sql,
    private log: Logger,
    private onWritten: (count: number) => void = () => undefined,
  ) {}

  add(row: ClickRow) {
    this.pending.push(row);
    if (this.pending.length >= EAGER_ROWS && !this.flushing) this.schedule(0);
    else if (!this.timer) this.schedule(FLUSH_MS);
  }

  get size() {
    return this.pending.length;
  }

  private schedule(ms: number) {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      // a failure has already been logged and rescheduled by writePending
      this.flush().catch(() => undefined);
    }, ms);
  }

  /** Writes everything pending now; concurrent callers wait for the same write. */
  flush(): Promise<void> {
    if (this.flushing) return this.flushing.then(() => (this.pending.length > 0 ? this.flush() : undefined));
    if (this.pending.length === 0) return Promise.resolve();
    this.flushing = this.writePending().finally(() => {
      this.flushing = null;
    });
    return this.flushing;
  }

  private async writePending() {
    const batch = this.pending;
    this.pending = [];
    let done = 0;
    try {
      while (done < batch.length) {
        const chunk = batch.slice(done, done + BATCH_ROWS);
        await this.insert(chunk);
        done += chunk.length;
      }
      this.failures = 0;
    } catch (error) {
      // keep what was not written, ahead of newer clicks, and try again with backoff
      this.pending = batch.slice(done).concat(this.pending);
      this.failures++;
      const wait = Math.min(MAX_RETRY_MS, FLUSH_MS * 2 ** this.failures);
      this.log.error('click flush failed; retrying', { clicks: this.pending.length, retryInMs: wait, error });
      if (!this.closed) this.schedule(wait);
      throw error;
    }
    if (this.pending.length > 0 && !this.closed) this.schedule(this.pending.length >= EAGER_ROWS ? 0 : FLUSH_MS);
  }

  private async insert(rows: ClickRow[]) {
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
    this.onWritten(rows.length);
  }

  /** One multi-row insert: a column array each (8 parameters, however many rows), cheap to bind. */
  private async insertRows(rows: ClickRow[]) {
    const col = <K extends keyof ClickRow>(key: K) => rows.map((r) => r[key]);
    await this.sql`
      insert into clicks (id, link_id, partner_id, campaign_id, ip_hash, user_agent, referrer, created_at)
      select id, link_id, partner_id, campaign_id, ip_hash, user_agent, referrer, to_timestamp(ms / 1000.0) from unnest(
        ${col('id')}::text[], ${col('link_id')}::text[], ${col('partner_id')}::text[], ${col('campaign_id')}::text[],
        ${col('ip_hash')}::text[], ${col('user_agent')}::text[], ${col('referrer')}::text[],
        ${col('created_at')}::float8[])
      as c(id, link_id, partner_id, campaign_id, ip_hash, user_agent, referrer, ms)
      on conflict (id) do nothing`;
  }

  /**
   * Stops the timer and writes what is pending, retrying for up to `timeoutMs`
   * (SIGTERM: clicks already answered must not be lost).
   */
  async close(timeoutMs = 10_000): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
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

function refusedForGood(error: unknown): boolean {
  const code = String((error as { code?: string }).code ?? '');
  return code.startsWith('22') || code.startsWith('23');
}
