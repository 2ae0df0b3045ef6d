// Applies migrations/NNNN_name.sql in order, each in its own transaction, under an advisory lock
// so that replicas starting together apply each file exactly once.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Sql } from './index';

export const MIGRATIONS_DIR = join(import.meta.dir, '..', '..', 'migrations');
const LOCK_KEY = 0x7061_7274; // "part"

export type Migration = { version: string; name: string; file: string };

export async function listMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f)).sort();
  return files.map((file) => ({ version: file.slice(0, 4), name: file.slice(5, -4), file: join(dir, file) }));
}

/**
 * Applies pending migrations; answers the versions it applied. Each file runs in its own
 * transaction that first takes the advisory lock and re-reads what is applied, so a replica that
 * waited on the lock skips what the other one just did. A second call is a no-op.
 */
export async function migrate(sql: Sql, dir = MIGRATIONS_DIR): Promise<string[]> {
  const migrations = await listMigrations(dir);
  const applied: string[] = [];
  await sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${LOCK_KEY})`;
    await tx`
      create table if not exists schema_migrations (
        version text primary key,
        name text not null,
        applied_at timestamptz not null default now()
      )`;
  });
  for (const m of migrations) {
    await sql.begin(async (tx) => {
      await tx`select pg_advisory_xact_lock(${LOCK_KEY})`;
      const [done] = await tx`select 1 from schema_migrations where version = ${m.version}`;
      if (done) return;
      await tx.unsafe(await Bun.file(m.file).text());
      await tx`insert into schema_migrations (version, name) values (${m.version}, ${m.name})`;
      applied.push(m.version);
    });
  }
  return applied;
}

/** Whether every migration on disk has been applied (readiness). */
export async function migrationsApplied(sql: Sql, dir = MIGRATIONS_DIR): Promise<boolean> {
  const migrations = await listMigrations(dir);
  const rows = await sql`select version from schema_migrations`.catch(() => []);
  const done = new Set(rows.map((r) => r.version as string));
  return migrations.every((m) => done.has(m.version));
}
