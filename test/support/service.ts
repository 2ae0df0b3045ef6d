// A whole Partnerd service for one test file: its own database (cloned from the template), a real
// SMTP catcher, the HTTP server on a free port, and helpers to call it.
import { createServer } from 'node:net';
import { loadConfig, type Config } from '../../src/config';
import { openSql, type Sql } from '../../src/db';
import { createLogger } from '../../src/lib/log';
import { bootstrapAdminKey, createApiKey } from '../../src/modules/auth/keys';
import type { Scope } from '../../src/modules/auth/scopes';
import { createContext, serve } from '../../src/server';
import type { AppContext } from '../../src/context';
import { checkOutboxRow, contractChecker, takeViolations } from './contract';
import { startMailCatcher, type MailCatcher } from './mail';
import { createTestDatabase } from './postgres';

export const ADMIN_KEY = 'sk_admin_test0000000000000000000000000000000000';

export type ApiResponse<T = any> = { status: number; body: T; headers: Headers };

export type TestService = {
  url: string;
  sql: Sql;
  ctx: AppContext;
  config: Config;
  mail: MailCatcher;
  adminKey: string;
  /** Calls the API; `key` defaults to the admin key, `null` sends no Authorization header. */
  api<T = any>(
    method: string,
    path: string,
    options?: { key?: string | null; body?: unknown; headers?: Record<string, string>; raw?: string },
  ): Promise<ApiResponse<T>>;
  scopedKey(scopes: Scope[]): Promise<string>;
  publishableKey(): Promise<string>;
  partnerKey(partnerId: string): Promise<string>;
  /** Sends every due webhook delivery now and waits until each is sent and recorded. */
  deliverWebhooks(): Promise<void>;
  /** Sends every due email of the outbox now and waits until each is recorded. */
  deliverEmails(): Promise<void>;
  stop(): Promise<void>;
};

export function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const srv = createServer();
    srv.once('error', fail);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => ok(port));
    });
  });
}

/** Calls a service over HTTP; every answer is checked against its published OpenAPI document. */
function apiClient(url: string): TestService['api'] {
  const contract = contractChecker(url);
  return async (method, path, options = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    const key = options.key === undefined ? ADMIN_KEY : options.key;
    if (key !== null) headers.authorization = `Bearer ${key}`;
    let body: string | undefined = options.raw;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(url + path, { method, headers, body, redirect: 'manual' });
    const text = await res.text();
    const contentType = res.headers.get('content-type') ?? '';
    let parsed: unknown = text;
    if (contentType.includes('json')) parsed = text === '' ? undefined : JSON.parse(text);
    (await contract())({ method, path: path.split('?')[0]!, status: res.status, contentType, body: parsed });
    return { status: res.status, body: parsed as any, headers: res.headers };
  };
}

export type ServiceDatabase = { url: string; sql: Sql; drop(): Promise<void> };

/** `database`: a migrated database of the caller's own (a server it started) instead of a clone of the template. */
export async function startService(env: Record<string, string> = {}, options: { database?: ServiceDatabase } = {}): Promise<TestService> {
  const db = options.database ?? (await createTestDatabase(await globalThis.__partnerdTestServer!));
  const mail = await startMailCatcher();
  const port = await freePort();
  const config = loadConfig({
    PORT: String(port),
    BASE_URL: `http://127.0.0.1:${port}`,
    DATABASE_URL: db.url,
    SMTP_URL: mail.url,
    ADMIN_API_KEY: ADMIN_KEY,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    ...env,
  });
  await bootstrapAdminKey(db.sql, config.adminApiKey);
  const ctx = createContext(config, db.sql, createLogger(config.logLevel));
  const running = serve(ctx, '127.0.0.1');

  const api = apiClient(running.url);

  return {
    url: running.url,
    sql: db.sql,
    ctx,
    config,
    mail,
    adminKey: ADMIN_KEY,
    api,
    scopedKey: async (scopes) => (await createApiKey(db.sql, { name: 'test', kind: 'scoped', scopes })).key,
    publishableKey: async () => (await createApiKey(db.sql, { name: 'test', kind: 'publishable' })).key,
    partnerKey: async (partnerId) => (await createApiKey(db.sql, { name: 'test', kind: 'partner', partnerId })).key,
    deliverWebhooks: () => running.dispatcher.drain(),
    deliverEmails: () => running.mailWorker.drain(),
    async stop() {
      await running.stop();
      // every event this service wrote, also those built in SQL (payout runs, bulk approval)
      const rows = await db.sql`select id, type, data, created_at from webhook_events where not synthetic`;
      for (const row of rows) checkOutboxRow({ id: row.id, type: row.type, data: row.data, created: row.created_at.toISOString() });
      ctx.mailer.close();
      await mail.stop();
      await db.drop();
      const problems = takeViolations();
      if (problems.length > 0) throw new Error(`outbound events broke the contract:\n${problems.join('\n')}`);
    },
  };
}

export type Replica = { url: string; ctx: AppContext; api: TestService['api']; stop(): Promise<void> };

/**
 * A second replica of `svc`: the same database, its own connection pool, HTTP server and in-memory
 * state (link cache, click buffer), as another process behind the same load balancer would have.
 */
export async function startReplica(svc: TestService): Promise<Replica> {
  const config = loadConfig({
    PORT: String(await freePort()),
    BASE_URL: svc.config.baseUrl,
    DATABASE_URL: svc.config.databaseUrl!,
    SMTP_URL: svc.mail.url,
    ADMIN_API_KEY: ADMIN_KEY,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
  });
  const sql = openSql(config.databaseUrl!, { max: 5 });
  const ctx = createContext(config, sql, createLogger(config.logLevel));
  const running = serve(ctx, '127.0.0.1');
  return {
    url: running.url,
    ctx,
    api: apiClient(running.url),
    async stop() {
      await running.stop();
      ctx.mailer.close();
      await sql.end({ timeout: 5 });
    },
  };
}

/** Rows of the outbox for one event type, oldest first. */
export async function outbox(sql: Sql, type?: string): Promise<{ id: string; type: string; data: any }[]> {
  const rows = await sql`
    select id, type, data from webhook_events
    ${type ? sql`where type = ${type}` : sql``}
    order by id`;
  const out = rows.map((r) => ({ id: r.id as string, type: r.type as string, data: r.data }));
  out.forEach(checkOutboxRow);
  return out;
}
