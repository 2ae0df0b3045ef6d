// Postgres advisory locks for jobs: with several replicas sharing one database, a job body runs in
// one process at a time. The lock is held by one reserved connection for the whole run (a run spans
// many transactions), and Postgres drops it if that process dies.
import type { Sql } from './index';

export const LOCKS = {
  approval: 0x7061_7031, // "pa01"
  payouts: 0x7061_7032, // "pa02"
  fxRates: 0x7061_6678, // "pafx"
} as const;

/** Runs `body` if the lock is free; answers `{ ran: false }` at once when another process holds it. */
export async function withAdvisoryLock<T>(
  sql: Sql,
  key: number,
  body: () => Promise<T>,
): Promise<{ ran: true; result: T } | { ran: false }> {
  const conn = await sql.reserve();
  try {
    const [row] = await conn`select pg_try_advisory_lock(${key}::bigint) as locked`;
    if (!row!.locked) return { ran: false };
    try {
      return { ran: true, result: await body() };
    } finally {
      await conn`select pg_advisory_unlock(${key}::bigint)`;
    }
  } finally {
    conn.release();
  }
}
