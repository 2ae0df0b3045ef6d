// The PostgreSQL server a test run uses: DATABASE_URL's server when set (CI runs this against the
// machine's PostgreSQL 15), otherwise an embedded PostgreSQL 18 in a temporary folder.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { startEmbeddedPostgres } from '../../src/db/embedded';
import { openSql, type Sql } from '../../src/db';
import { migrate } from '../../src/db/migrate';
import { createLogger } from '../../src/lib/log';

export type TestServer = { adminUrl: string; template: string; stop(): Promise<void> };

export function databaseUrl(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

export async function startTestServer(): Promise<TestServer> {
  const log = createLogger('silent');
  let adminUrl = process.env.DATABASE_URL;
  let stopEmbedded = async () => {};
  if (!adminUrl) {
    const dir = mkdtempSync(`${tmpdir()}/partnerd-test-`);
    chmodSync(dir, 0o755);
    const embedded = await startEmbeddedPostgres(dir, log);
    adminUrl = embedded.url;
    stopEmbedded = async () => {
      await embedded.stop();
      rmSync(dir, { recursive: true, force: true });
    };
  }
  const template = `partnerd_tpl_${process.pid}_${Date.now()}`;
  const admin = openSql(adminUrl, { max: 2 });
  await admin.unsafe(`create database ${template}`);
  const tpl = openSql(databaseUrl(adminUrl, template), { max: 2 });
  await migrate(tpl);
  await tpl.end();
  await admin.end();
  return {
    adminUrl,
    template,
    async stop() {
      const sql = openSql(adminUrl!, { max: 1 });
      const rows = await sql`select datname from pg_database where datname like ${`partnerd_t%_${process.pid}_%`}`;
      for (const row of rows) await sql.unsafe(`drop database if exists ${row.datname} with (force)`);
      await sql.end();
      await stopEmbedded();
    },
  };
}

let counter = 0;

/** A fresh database cloned from the migrated template (fast: a file copy). */
/** A database for one test file, migrated (the server's template); `empty`: no schema at all (an upgrade test migrates it itself). */
export async function createTestDatabase(server: TestServer, options: { empty?: boolean } = {}): Promise<{ url: string; sql: Sql; drop(): Promise<void> }> {
  const name = `partnerd_t${++counter}_${process.pid}_${Date.now()}`;
  const admin = openSql(server.adminUrl, { max: 1 });
  await admin.unsafe(`create database ${name} template ${options.empty ? 'template0' : server.template}`);
  // a test needs what it committed visible to every connection, not kept through a power cut: its
  // commits do not wait for the disk (tests kill the service, never PostgreSQL)
  await admin.unsafe(`alter database ${name} set synchronous_commit = off`);
  await admin.end();
  const url = databaseUrl(server.adminUrl, name);
  const sql = openSql(url, { max: 10 });
  return {
    url,
    sql,
    async drop() {
      await sql.end({ timeout: 1 });
      const a = openSql(server.adminUrl, { max: 1 });
      await a.unsafe(`drop database if exists ${name} with (force)`);
      await a.end();
    },
  };
}
