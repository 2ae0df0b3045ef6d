// Operations: health, readiness, metrics, OpenAPI, migrations, configuration and the process itself.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { loadConfig, ConfigError } from '../src/config';
import { openSql } from '../src/db';
import { listMigrations, migrate } from '../src/db/migrate';
import { eventually } from './support/eventually';
import { createTestDatabase } from './support/postgres';
import { freePort, startService, type TestService } from './support/service';
import { contractChecker } from './support/contract';
import { createApp, createFetch } from '../src/app';
import { createLogger } from '../src/lib/log';
import { createContext } from '../src/server';

let svc: TestService;
beforeAll(async () => {
  svc = await startService();
});
afterAll(() => svc.stop());

describe('operations endpoints', () => {
  test('healthz and readyz answer 200 without a key', async () => {
    expect(await svc.api('GET', '/healthz', { key: null })).toMatchObject({ status: 200, body: { ok: true } });
    expect(await svc.api('GET', '/readyz', { key: null })).toMatchObject({ status: 200, body: { ok: true } });
  });

  test('readyz answers 503 with the documented error while the database is unreachable', async () => {
    const port = await freePort();
    const deadDatabase = `postgres://postgres@127.0.0.1:${await freePort()}/postgres`;
    const config = loadConfig({ PORT: String(port), BASE_URL: `http://127.0.0.1:${port}`, DATABASE_URL: deadDatabase, ADMIN_API_KEY: svc.adminKey });
    const ctx = createContext(config, openSql(deadDatabase, { max: 1 }), createLogger('silent'));
    const server = Bun.serve({ port, hostname: '127.0.0.1', fetch: createFetch(ctx, createApp(ctx)) });
    try {
      const res = await fetch(`http://127.0.0.1:${port}/readyz`);
      const body = await res.json();
      expect(res.status).toBe(503);
      expect(body).toEqual({ code: 'unavailable', message: expect.any(String) });
      // the answer is one the document lists (the service's own document, the same code)
      const check = await contractChecker(svc.url)();
      expect(() => check({ method: 'GET', path: '/readyz', status: 503, contentType: res.headers.get('content-type') ?? '', body })).not.toThrow();
    } finally {
      await server.stop(true);
      await ctx.sql.end({ timeout: 1 });
      ctx.mailer.close();
    }
  });

  test('metrics are Prometheus text counting requests', async () => {
    await svc.api('GET', '/partners');
    const res = await fetch(`${svc.url}/metrics`);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const text = await res.text();
    expect(text).toContain('# TYPE partnerd_http_requests_total counter');
    expect(text).toMatch(/partnerd_http_requests_total\{method="GET",route="\/partners",status="200"\} \d+/);
    expect(text).toContain('partnerd_http_request_duration_seconds_bucket');
  });

  test('metric labels are the matched route templates: unknown paths and odd ids add no series', async () => {
    const series = async () => (await (await fetch(`${svc.url}/metrics`)).text()).split('\n').filter((l) => l.startsWith('partnerd_http_requests_total{'));
    const partner = await svc.api('POST', '/v1/partners', { body: { email: 'metrics@example.com', name: 'M', sendInvite: false } });
    const hit = (i: number) => [
      svc.api('GET', `/v1/partners/${partner.body.id}`),
      svc.api('GET', `/v1/partners/ptn_${String(i).padStart(26, '0')}`),
      svc.api('GET', `/v1/partners/not-an-id-${i}`),
      svc.api('GET', `/no/such/path/${i}`, { key: null }),
      svc.api('GET', `/r/slug-${i}`, { key: null }),
      svc.api('PUT', `/v1/partners/${i}`),
    ];
    for (let i = 0; i < 20; i++) await Promise.all(hit(i));
    const before = await series();
    for (let i = 20; i < 200; i++) await Promise.all(hit(i));
    const after = await series();
    // 180 more rounds of distinct paths and methods: the same series, only larger counts
    expect(after.map((l) => l.replace(/ \d+$/, ''))).toEqual(before.map((l) => l.replace(/ \d+$/, '')));
    const text = after.join('\n');
    expect(text).toContain('{method="GET",route="/v1/partners/:id",status="200"}');
    expect(text).toContain('{method="GET",route="/v1/partners/:id",status="404"}');
    expect(text).toContain('{method="GET",route="unmatched",status="404"}');
    expect(text).toContain('{method="GET",route="/r/:slug",status="404"}');
    expect(text).toContain('{method="PUT",route="unmatched",status="404"}');
    expect(text).not.toContain('not-an-id');
    expect(text).not.toContain('no/such');
  });

  test('every response carries a request id, and a sane incoming one is kept', async () => {
    const res = await svc.api('GET', '/healthz', { headers: { 'x-request-id': 'abc-123' } });
    expect(res.headers.get('x-request-id')).toBe('abc-123');
    const other = await svc.api('GET', '/healthz', { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(other.headers.get('x-request-id')).toMatch(/^[0-9a-z]{26}$/);
  });

  test('the OpenAPI document lists the partner routes with their schemas, and /docs points its viewer at it', async () => {
    const res = await svc.api('GET', '/openapi.json', { key: null });
    expect(res.status).toBe(200);
    expect(res.body.openapi).toMatch(/^3\./);
    const create = res.body.paths['/v1/partners'].post;
    expect(create.requestBody.content['application/json'].schema.required).toEqual(expect.arrayContaining(['email', 'name']));
    expect(res.body.paths['/v1/partners/{id}']).toBeDefined();
    // bodies are JSON objects only: no form media types advertised, but for the two file uploads
    const mediaTypes = new Set<string>();
    for (const [path, item] of Object.entries<any>(res.body.paths)) {
      for (const op of Object.values<any>(item)) for (const m of Object.keys(op.requestBody?.content ?? {})) mediaTypes.add(m === 'multipart/form-data' ? `${m} ${path}` : m);
    }
    expect([...mediaTypes].sort()).toEqual(['application/json', 'multipart/form-data /v1/imports', 'multipart/form-data /v1/resources']);
    const docs = await fetch(`${svc.url}/docs`);
    expect(docs.status).toBe(200);
    // the page in a browser, offline: test/web/docs.test.ts
    const html = await docs.text();
    expect(html).toContain('/openapi.json');
    expect(html).toContain('<script src="/assets/swagger-ui.js">');
  });
});

describe('migrations', () => {
  test('a second run applies nothing, and two racing runners apply each file once', async () => {
    const server = await globalThis.__partnerdTestServer!;
    const admin = openSql(server.adminUrl, { max: 1 });
    const name = `partnerd_tmig_${process.pid}_${Date.now()}`;
    await admin.unsafe(`create database ${name}`);
    await admin.end();
    const url = new URL(server.adminUrl);
    url.pathname = `/${name}`;
    const a = openSql(url.toString(), { max: 2 });
    const b = openSql(url.toString(), { max: 2 });
    try {
      const [first, second] = await Promise.all([migrate(a), migrate(b)]);
      const all = (await listMigrations()).map((m) => m.version);
      expect([...first, ...second].sort()).toEqual(all);
      expect(await migrate(a)).toEqual([]);
      const rows = await a`select version from schema_migrations order by version`;
      expect(rows.map((r) => r.version)).toEqual(all);
    } finally {
      await a.end();
      await b.end();
      const cleanup = openSql(server.adminUrl, { max: 1 });
      await cleanup.unsafe(`drop database if exists ${name} with (force)`);
      await cleanup.end();
    }
  });
});

describe('configuration', () => {
  test('defaults are complete', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ port: 3000, dataDir: './data', partnerSignup: 'closed', holdbackDays: 30, webhookTimeoutMs: 10000, webhookAutoRetry: false });
  });

  test('each bad value is named', () => {
    const bad: Record<string, string> = {
      PORT: 'eighty',
      BASE_URL: 'localhost:3000',
      DATABASE_URL: 'mysql://x',
      PARTNER_SIGNUP: 'maybe',
      HOLDBACK_DAYS: '-1',
      APPROVAL_CRON: 'every hour',
      MIN_PAYOUT: '1e3',
      WEBHOOK_AUTO_RETRY: 'yes',
      LOG_LEVEL: 'chatty',
      ADMIN_EMAILS: 'a@b.example, nope',
      ADMIN_API_KEY: 'short',
      SMTP_URL: 'http://mail',
    };
    try {
      loadConfig(bad);
      throw new Error('accepted bad configuration');
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const message = (error as Error).message;
      for (const name of Object.keys(bad)) expect(message).toContain(`${name}:`);
    }
  });

  test('a number out of its range is refused with its name, not changed into another', () => {
    const out: Record<string, string> = {
      EVENT_BATCH_MAX: '5000',
      EVENT_BATCH_CONCURRENCY: '0',
      WEBHOOK_CONCURRENCY: '0',
      MAIL_TIMEOUT_MS: '0',
      PORT: '70000',
      TRUST_PROXY: '50',
    };
    for (const [name, value] of Object.entries(out)) {
      expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
      try {
        loadConfig({ [name]: value });
      } catch (error) {
        expect((error as ConfigError).problems).toEqual([expect.stringMatching(new RegExp(`^${name}: must be from \\d+ to \\d+ \\(got "${value}"\\)$`))]);
      }
    }
    // the bounds themselves are fine
    expect(loadConfig({ EVENT_BATCH_MAX: '1000' }).eventBatch.maxSize).toBe(1000);
    expect(loadConfig({ EVENT_BATCH_MAX: '1' }).eventBatch.maxSize).toBe(1);
  });

  test('EVENT_BATCH_MAX=5000 stops `bun run start` with its name', async () => {
    const proc = Bun.spawn(['bun', 'run', 'src/index.ts'], {
      env: { ...process.env, EVENT_BATCH_MAX: '5000', LOG_LEVEL: 'info', DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' },
      stdout: 'pipe',
      stderr: 'pipe',
    });
    expect(await proc.exited).toBe(2);
    expect(await new Response(proc.stderr).text()).toContain('EVENT_BATCH_MAX: must be from 1 to 1000 (got "5000")');
  });

  test('a bad value stops `bun run start` with its name, before touching any database', async () => {
    const proc = Bun.spawn(['bun', 'run', 'src/index.ts'], {
      env: { ...process.env, PORT: 'eighty', LOG_LEVEL: 'info', DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' },
      stdout: 'pipe',
      stderr: 'pipe',
    });
    const code = await proc.exited;
    const stderr = await new Response(proc.stderr).text();
    expect(code).toBe(2);
    expect(stderr).toContain('PORT');
  });
});

describe('the process', () => {
  test('starts on DATABASE_URL, answers readyz, applies nothing twice, and stops on SIGTERM', async () => {
    const server = await globalThis.__partnerdTestServer!;
    const db = await createTestDatabase(server);
    await db.sql.end();
    const run = async () => {
      const port = await freePort();
      const proc = Bun.spawn(['bun', 'run', 'src/index.ts'], {
        env: { ...process.env, PORT: String(port), DATABASE_URL: db.url, LOG_LEVEL: 'info', ADMIN_API_KEY: '' },
        stdout: 'pipe',
        stderr: 'pipe',
      });
      await eventually(async () => expect(await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.ok, () => false)).toBe(true), {
        timeout: 10_000,
      });
      proc.kill('SIGTERM');
      expect(await proc.exited).toBe(0);
      return new Response(proc.stdout).text();
    };
    const first = await run();
    const second = await run();
    // the template is migrated already, so neither start applies anything; a key is generated once
    expect(first).not.toContain('migrations applied');
    expect(first).toContain('generated an admin API key');
    expect(second).not.toContain('generated an admin API key');
    expect(second).toContain('"msg":"stopped"');
    await db.drop();
  }, 30_000);
});

describe('configuration secrets', () => {
  test('a bad secret is named but its value is not echoed', () => {
    try {
      loadConfig({ ADMIN_API_KEY: 'has a space', DATABASE_URL: 'mysql://user:hunter2@db/x' });
      throw new Error('accepted bad configuration');
    } catch (error) {
      const message = (error as Error).message;
      expect(message).toContain('ADMIN_API_KEY:');
      expect(message).toContain('DATABASE_URL:');
      expect(message).not.toContain('hunter2');
      expect(message).not.toContain('has a space');
    }
  });

  test('any long enough admin key is accepted', () => {
    expect(loadConfig({ ADMIN_API_KEY: 'test-admin-key' }).adminApiKey).toBe('test-admin-key');
  });
});
