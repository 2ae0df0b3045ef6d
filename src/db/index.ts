// The one postgres.js instance of the process, and how it is opened and closed.
import postgres from 'postgres';
import type { Config } from '../config';
import type { Logger } from '../lib/log';
import { startEmbeddedPostgres } from './embedded';

export type Sql = postgres.Sql<{ bigint: bigint }>;
/** A transaction: what a function needs when its advisory locks must last until the caller commits. */
export type Transaction = postgres.TransactionSql<{ bigint: bigint }>;
export type Tx = Transaction | Sql;

export function openSql(url: string, options: { max?: number; connectTimeoutSeconds?: number; idleTimeoutSeconds?: number } = {}): Sql {
  const parsed = new URL(url);
  return postgres(url, {
    user: decodeURIComponent(parsed.username) || 'postgres',
    max: options.max ?? 20,
    ...(options.connectTimeoutSeconds ? { connect_timeout: options.connectTimeoutSeconds } : {}),
    ...(options.idleTimeoutSeconds ? { idle_timeout: options.idleTimeoutSeconds } : {}),
    onnotice: () => undefined,
    types: { bigint: postgres.BigInt },
    connection: { application_name: 'partnerd' },
  });
}

export type Database = { sql: Sql; url: string; close(): Promise<void> };

/** Connects to DATABASE_URL, or starts the embedded server in DATA_DIR when it is unset. */
export async function openDatabase(config: Config, log: Logger): Promise<Database> {
  const embedded = config.databaseUrl ? undefined : await startEmbeddedPostgres(config.dataDir, log);
  const url = config.databaseUrl ?? embedded!.url;
  const sql = openSql(url);
  return {
    sql,
    url,
    async close() {
      await sql.end({ timeout: 5 });
      await embedded?.stop();
    },
  };
}

/**
 * Runs `work` in a transaction: the caller's when it passes one, else a new one. A change and its
 * audit entry (modules/audit) commit together either way.
 */
export function inTransaction<T>(sql: Tx, work: (tx: Transaction) => Promise<T>): Promise<T> {
  if ('begin' in sql && typeof sql.begin === 'function') return (sql as Sql).begin((tx) => work(tx)) as Promise<T>;
  return work(sql as Transaction);
}
