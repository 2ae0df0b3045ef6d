// GET and HEAD /r/:slug are answered by Bun's route table ahead of Elysia (src/server.ts). What the
// general fetch wrapper gives every answer must not be lost on that path: the request id, the
// metrics, the access log line; and whatever the table does not take (other methods, other path
// shapes) must still reach the router as before.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/lib/log';
import { bootstrapAdminKey } from '../../src/modules/auth/keys';
import { createContext, serve, type RunningServer } from '../../src/server';
import type { AppContext } from '../../src/context';
import { createTestDatabase } from '../support/postgres';
import { ADMIN_KEY, freePort } from '../support/service';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let ctx: AppContext;
let running: RunningServer;
/** The service's log lines (level info, so the access log is written). */
const lines: Record<string, unknown>[] = [];
let slug = '';
let url = '';

const follow = (path: string, init: RequestInit = {}) => fetch(url + path, { redirect: 'manual', ...init });
const GENERATED_ID = /^[0-9a-z]{26}$/;

beforeAll(async () => {
  db = await createTestDatabase(await globalThis.__partnerdTestServer!);
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  const config = loadConfig({ PORT: String(port), BASE_URL: url, DATABASE_URL: db.url, ADMIN_API_KEY: ADMIN_KEY, LOG_LEVEL: 'info' });
  await bootstrapAdminKey(db.sql, ADMIN_KEY);
  ctx = createContext(config, db.sql, createLogger('info', {}, (line) => lines.push(JSON.parse(line))));
  running = serve(ctx, '127.0.0.1');
  const call = async (path: string, body: unknown) =>
    (await (await fetch(url + path, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })).json()) as any;
  const cmp = await call('/v1/campaigns', { name: 'Table', destinationUrl: 'https://shop.example/landing?ref=t', currency: 'USD' });
  const ptn = await call('/v1/partners', { email: 'table@example.com', name: 'T', sendInvite: false, campaignIds: [cmp.id] });
  slug = (await call('/v1/links', { campaignId: cmp.id, partnerId: ptn.id, slug: 'table-link' })).slug;
}, 60_000);

afterAll(async () => {
  await running.stop();
  ctx.mailer.close();
  await db.drop();
});

/** The value of one metrics series (0 when it does not exist yet). */
async function metric(series: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

describe('request ids on every answer of the share link', () => {
  const cases: { label: string; method: string; path: () => string; status: number }[] = [
    { label: 'GET, a redirect', method: 'GET', path: () => `/r/${slug}`, status: 302 },
    { label: 'HEAD, a redirect', method: 'HEAD', path: () => `/r/${slug}`, status: 302 },
    { label: 'an unknown slug, the 404 page', method: 'GET', path: () => '/r/no-such-link', status: 404 },
    { label: 'a malformed slug, the 404 page', method: 'GET', path: () => '/r/%3Cscript%3E', status: 404 },
  ];
  for (const c of cases) {
    test(`${c.label}: the caller's id is echoed, a bad or missing one replaced`, async () => {
      const given = await follow(c.path(), { method: c.method, headers: { 'x-request-id': 'trace.42-a' } });
      expect(given.status).toBe(c.status);
      expect(given.headers.get('x-request-id')).toBe('trace.42-a');
      const bad = await follow(c.path(), { method: c.method, headers: { 'x-request-id': 'not an id!' } });
      expect(bad.headers.get('x-request-id')).toMatch(GENERATED_ID);
      const none = await follow(c.path(), { method: c.method });
      expect(none.headers.get('x-request-id')).toMatch(GENERATED_ID);
      expect(none.headers.get('x-request-id')).not.toBe(bad.headers.get('x-request-id'));
    });
  }
});

test('redirects and 404s are counted under the route /r/:slug, by method and status, with their durations', async () => {
  const get302 = 'partnerd_http_requests_total{method="GET",route="/r/:slug",status="302"}';
  const head302 = 'partnerd_http_requests_total{method="HEAD",route="/r/:slug",status="302"}';
  const get404 = 'partnerd_http_requests_total{method="GET",route="/r/:slug",status="404"}';
  const durations = 'partnerd_http_request_duration_seconds_count{method="GET",route="/r/:slug"}';
  const before = await Promise.all([get302, head302, get404, durations].map(metric));
  for (let i = 0; i < 3; i++) await follow(`/r/${slug}`);
  await follow(`/r/${slug}`, { method: 'HEAD' });
  await follow('/r/missing-link');
  const after = await Promise.all([get302, head302, get404, durations].map(metric));
  expect(after.map((v, i) => v - before[i]!)).toEqual([3, 1, 1, 4]);
});

test('each answer writes its access log line with the request id, method, path and status', async () => {
  await follow(`/r/${slug}?utm_source=log`, { headers: { 'x-request-id': 'log-line-1' } });
  await follow('/r/not-there', { headers: { 'x-request-id': 'log-line-2' } });
  const logged = (id: string) => lines.find((l) => l.msg === 'request' && l.requestId === id);
  expect(logged('log-line-1')).toMatchObject({ level: 'info', method: 'GET', path: `/r/${slug}`, status: 302 });
  expect(typeof logged('log-line-1')!.ms).toBe('number');
  expect(logged('log-line-2')).toMatchObject({ method: 'GET', path: '/r/not-there', status: 404 });
});

test('HEAD redirects like GET and records its click', async () => {
  const res = await follow(`/r/${slug}`, { method: 'HEAD' });
  expect(res.status).toBe(302);
  expect(await res.text()).toBe('');
  const click = new URL(res.headers.get('location')!).searchParams.get('pp_click');
  expect(click).toMatch(/^clk_[0-9a-z]{26}$/);
  await ctx.links.clicks.flush();
  expect(await db.sql`select id from clicks where id = ${click}`).toHaveLength(1);
});

test('query strings pass on without a forged pp_click; a percent-encoded slug and any case find the link', async () => {
  const res = await follow(`/r/TABLE%2Dlink?utm_source=a%20b&pp_click=clk_forged&x=1`);
  expect(res.status).toBe(302);
  const location = res.headers.get('location')!;
  const click = new URL(location).searchParams.get('pp_click')!;
  expect(location).toBe(`https://shop.example/landing?ref=t&utm_source=a%20b&x=1&pp_click=${click}`);
});

describe('what the route table does not take still reaches the router', () => {
  const cases: { label: string; method: string; path: () => string; status: number; json?: string; redirect?: boolean }[] = [
    { label: 'POST on a share link', method: 'POST', path: () => `/r/${slug}`, status: 404, json: 'not_found' },
    { label: 'DELETE on a share link', method: 'DELETE', path: () => `/r/${slug}`, status: 404, json: 'not_found' },
    { label: 'no slug', method: 'GET', path: () => '/r/', status: 404, json: 'not_found' },
    { label: 'a path below a slug', method: 'GET', path: () => `/r/${slug}/more`, status: 404, json: 'not_found' },
    { label: 'a trailing slash (the router redirects it as before)', method: 'GET', path: () => `/r/${slug}/`, status: 302, redirect: true },
  ];
  for (const c of cases) {
    test(`${c.label}: ${c.status}`, async () => {
      const res = await follow(c.path(), { method: c.method });
      expect(res.status).toBe(c.status);
      expect(res.headers.get('x-request-id')).toMatch(GENERATED_ID);
      if (c.json) expect(((await res.json()) as { code: string }).code).toBe(c.json);
      if (c.redirect) expect(res.headers.get('location')).toStartWith('https://shop.example/landing?ref=t&pp_click=clk_');
    });
  }
});

test('when the database cannot be asked, an uncached slug answers the 503 page with its request id', async () => {
  await db.sql`alter table links rename to links_away`;
  try {
    const res = await follow('/r/never-looked-up', { headers: { 'x-request-id': 'db-down-1' } });
    expect(res.status).toBe(503);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(res.headers.get('retry-after')).toBe('30');
    expect(res.headers.get('x-request-id')).toBe('db-down-1');
    expect(await metric('partnerd_http_requests_total{method="GET",route="/r/:slug",status="503"}')).toBe(1);
  } finally {
    await db.sql`alter table links_away rename to links`;
  }
});
