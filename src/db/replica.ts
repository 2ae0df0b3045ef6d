// Where dashboard, report and export reads go (DATABASE_REPLICA_URL): a streaming replica through its
// own pool while it is up and close enough to the primary, else the primary. Writes, reads inside a
// write's transaction and sign-in never come here: they use ctx.sql.
import type { Logger } from '../lib/log';
import { openSql, type Sql } from './index';

export type ReadTarget = 'primary' | 'replica';

export type ReadState = {
  /** Whether DATABASE_REPLICA_URL is set. */
  configured: boolean;
  /** Where report reads go now. */
  using: ReadTarget;
  /** The replica's replay lag at the last check, in seconds; null when unknown (down, or not configured). */
  lagSeconds: number | null;
  /** Why the primary is used although a replica is configured. */
  reason: 'down' | 'lagging' | 'not a standby' | null;
};

export type ReadRouter = {
  /** The pool for a report read now; checks the replica first when its last check is older than the interval. */
  sql(): Promise<Sql>;
  /**
   * Runs a report read on the pool of the moment; when the replica fails it on a connection error
   * (gone since the last check) it is marked down and the read is run again on the primary.
   */
  run<T>(work: (sql: Sql) => Promise<T>): Promise<T>;
  state(): ReadState;
  close(): Promise<void>;
};

export type ReadRouterOptions = {
  primary: Sql;
  replicaUrl?: string;
  maxLagSeconds: number;
  log: Logger;
  /** How often the replica is checked; default a third of the lag bound, from 0.5 to 5 s. */
  checkEveryMs?: number;
};

/** Errors that say the server cannot be reached or went away, not that the query was wrong. */
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE', 'CONNECT_TIMEOUT', 'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', '57P01', '57P02', '57P03', '08000', '08001', '08003', '08006']);

export function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && CONNECTION_CODES.has(code);
}

export function createReadRouter(options: ReadRouterOptions): ReadRouter {
  const { primary, replicaUrl, maxLagSeconds, log } = options;
  if (!replicaUrl) {
    const state: ReadState = { configured: false, using: 'primary', lagSeconds: null, reason: null };
    return { sql: async () => primary, run: (work) => work(primary), state: () => state, close: async () => {} };
  }
  const interval = options.checkEveryMs ?? Math.round(Math.min(5, Math.max(0.5, maxLagSeconds / 3)) * 1000);
  // its own pool: a slow report never takes a connection the writers need; a short connect timeout
  // so a replica that went away costs one check, not every request
  const replica = openSql(replicaUrl, { max: 10, connectTimeoutSeconds: 2, idleTimeoutSeconds: 60 });
  let state: ReadState = { configured: true, using: 'primary', lagSeconds: null, reason: 'down' };
  let checkedAt = 0;
  let checking: Promise<void> | null = null;
  let logged: string | null = null;

  const settle = (next: ReadState) => {
    state = next;
    // the switch is logged once, not per request
    const key = `${next.using}:${next.reason ?? ''}`;
    if (key === logged) return;
    const first = logged === null;
    logged = key;
    if (next.using === 'replica') log.info('report reads go to the replica (DATABASE_REPLICA_URL)', { lagSeconds: next.lagSeconds });
    else if (!first || next.reason !== 'down') log.warn('report reads go to the primary: the replica is ' + next.reason, { lagSeconds: next.lagSeconds, maxLagSeconds });
    else log.warn('report reads go to the primary: the replica is down', {});
  };

  const markDown = (error: unknown) => {
    checkedAt = Date.now();
    settle({ configured: true, using: 'primary', lagSeconds: null, reason: 'down' });
    log.debug('replica check failed', { error: String((error as Error)?.message ?? error) });
  };

  async function check(): Promise<void> {
    try {
      // the primary's position first: a replica that has replayed it is not behind at all, however
      // long ago its last transaction was (an idle program)
      const [{ lsn }] = (await primary`select pg_current_wal_lsn()::text as lsn`) as unknown as [{ lsn: string }];
      const [row] = await replica<{ standby: boolean; caught_up: boolean | null; lag: number | null }[]>`
        select pg_is_in_recovery() as standby,
               pg_last_wal_replay_lsn() >= ${lsn}::pg_lsn as caught_up,
               extract(epoch from now() - pg_last_xact_replay_timestamp())::float8 as lag`;
      checkedAt = Date.now();
      if (!row!.standby) return settle({ configured: true, using: 'primary', lagSeconds: null, reason: 'not a standby' });
      const lag = row!.caught_up ? 0 : Math.max(0, row!.lag ?? Number.POSITIVE_INFINITY);
      const lagSeconds = Number.isFinite(lag) ? Math.round(lag * 10) / 10 : null;
      if (lag > maxLagSeconds) settle({ configured: true, using: 'primary', lagSeconds, reason: 'lagging' });
      else settle({ configured: true, using: 'replica', lagSeconds, reason: null });
    } catch (error) {
      markDown(error);
    }
  }

  async function current(): Promise<Sql> {
    if (Date.now() - checkedAt >= interval) {
      checking ??= check().finally(() => (checking = null));
      // while the replica is down, requests are not made to wait for it to answer again: the
      // check runs beside them and the next request uses the replica once it is back
      if (state.using === 'replica') await checking;
    }
    return state.using === 'replica' ? replica : primary;
  }

  return {
    sql: current,
    async run(work) {
      const sql = await current();
      if (sql === primary) return work(primary);
      try {
        return await work(sql);
      } catch (error) {
        // a standby cancels a long read that holds back its replay (a recovery conflict): that read
        // is run on the primary, the replica stays in use
        if ((error as { code?: unknown } | null)?.code === '40001') return work(primary);
        if (!isConnectionError(error)) throw error;
        markDown(error);
        return work(primary);
      }
    },
    state: () => state,
    async close() {
      await checking;
      await replica.end({ timeout: 1 });
    },
  };
}
