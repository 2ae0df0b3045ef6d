import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startService, type TestService } from '../support/service';
import { campaign, link, partner } from './helpers';

let svc: TestService;
let slug: string;
let linkId: string;
let ptn: string;
beforeAll(async () => {
  svc = await startService();
  const cmp = await campaign(svc, 'https://shop.example/start?x=1');
  ptn = await partner(svc, [cmp]);
  const l = await link(svc, ptn, cmp, 'clicks-test');
  slug = l.slug;
  linkId = l.id;
}, 60_000);
afterAll(() => svc.stop());

const CLICK = /^clk_[0-9a-z]{26}$/;

describe('POST /v1/clicks', () => {
  test('a publishable key records a click and gets the destination with pp_click', async () => {
    const key = await svc.publishableKey();
    const res = await svc.api('POST', '/v1/clicks', { key, body: { slug } });
    expect(res.status).toBe(201);
    expect(res.body.clickId).toMatch(CLICK);
    expect(res.body.destinationUrl).toBe(`https://shop.example/start?x=1&pp_click=${res.body.clickId}`);
    await svc.ctx.links.clicks.flush();
    const [row] = await svc.sql`select link_id, partner_id, user_agent from clicks where id = ${res.body.clickId}`;
    expect(row).toMatchObject({ link_id: linkId, partner_id: ptn });
  });

  test('a server key may pass the visitor\'s user agent, referrer and address', async () => {
    const key = await svc.scopedKey(['events:write']);
    const res = await svc.api('POST', '/clicks', {
      key,
      body: { slug: slug.toUpperCase(), userAgent: 'Visitor UA', referrer: 'https://ref.example/', ip: '198.51.100.4' },
    });
    expect(res.status).toBe(201);
    await svc.ctx.links.clicks.flush();
    const [row] = await svc.sql`select user_agent, referrer, ip_hash from clicks where id = ${res.body.clickId}`;
    expect(row).toMatchObject({ user_agent: 'Visitor UA', referrer: 'https://ref.example/' });
    expect(row!.ip_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  test('unknown or malformed slugs are 404, bad bodies 400', async () => {
    expect((await svc.api('POST', '/v1/clicks', { body: { slug: 'no-such-slug' } })).status).toBe(404);
    expect((await svc.api('POST', '/v1/clicks', { body: { slug: 'a b' } })).status).toBe(404);
    expect((await svc.api('POST', '/v1/clicks', { body: {} })).status).toBe(400);
    expect((await svc.api('POST', '/v1/clicks', { body: { slug: 5 } })).status).toBe(400);
    const nul = await svc.api('POST', '/v1/clicks', { body: { slug, userAgent: 'bad\u0000agent' } });
    expect(nul.status).toBe(400);
    expect(nul.body.details[0].field).toBe('userAgent');
  });

  test('a revoked partner\'s link answers the destination without a click', async () => {
    const cmp = await campaign(svc, 'https://shop.example/r');
    const p = await partner(svc, [cmp]);
    const l = await link(svc, p, cmp);
    await svc.api('POST', `/v1/partners/${p}/revoke`, { body: {} });
    const res = await svc.api('POST', '/v1/clicks', { body: { slug: l.slug } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ clickId: null, destinationUrl: 'https://shop.example/r' });
  });
});

describe('POST /v1/identify', () => {
  test('joins a user to clicks, deduplicated; identifying again adds clicks', async () => {
    const key = await svc.publishableKey();
    const a = (await svc.api('POST', '/v1/clicks', { key, body: { slug } })).body.clickId;
    const b = (await svc.api('POST', '/v1/clicks', { key, body: { slug } })).body.clickId;
    const res = await svc.api('POST', '/v1/identify', { key, body: { userId: 'user-42', clickIds: [a, a, b] } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ userId: 'user-42', clickIds: [a, b] });
    const c = (await svc.api('POST', '/v1/clicks', { key, body: { slug } })).body.clickId;
    expect((await svc.api('POST', '/identify', { key, body: { userId: 'user-42', clickIds: [b, c] } })).status).toBe(200);
    const rows = await svc.sql`select click_id from identity_clicks where user_id = 'user-42' order by click_id`;
    expect(rows.map((r) => r.click_id)).toEqual([a, b, c]);
    expect(await svc.sql`select user_id from identities where user_id = 'user-42'`).toHaveLength(1);
  });

  test('works with no clicks, and with clickIds omitted', async () => {
    const key = await svc.publishableKey();
    expect((await svc.api('POST', '/v1/identify', { key, body: { userId: 'no-clicks', clickIds: [] } })).body).toEqual({ userId: 'no-clicks', clickIds: [] });
    expect((await svc.api('POST', '/v1/identify', { key, body: { userId: 'omitted' } })).status).toBe(200);
    const rows = await svc.sql`select user_id from identities where user_id in ('no-clicks', 'omitted') order by user_id`;
    expect(rows.map((r) => r.user_id)).toEqual(['no-clicks', 'omitted']);
    expect(await svc.sql`select 1 from identity_clicks where user_id in ('no-clicks', 'omitted')`).toHaveLength(0);
  });

  test.each([
    ['missing userId', { clickIds: [] }, 'userId'],
    ['empty userId', { userId: '', clickIds: [] }, 'userId'],
    ['blank userId', { userId: '   ', clickIds: [] }, 'userId'],
    ['userId over 200', { userId: 'u'.repeat(201), clickIds: [] }, 'userId'],
    ['21 click ids', { userId: 'u', clickIds: Array.from({ length: 21 }, () => 'clk_01m7ybq7468cwctcx3ea3bzppa') }, 'clickIds'],
    ['a non-click id', { userId: 'u', clickIds: ['lnk_01m7ybq73vcyqbgtwm4g790mc3'] }, 'clickIds.0'],
    ['a non-string click id', { userId: 'u', clickIds: [7] }, 'clickIds.0'],
    ['a NUL in userId', { userId: 'a\u0000b', clickIds: [] }, 'userId'],
  ])('%s is a 400', async (_label, body, field) => {
    const res = await svc.api('POST', '/v1/identify', { body });
    expect(res.status).toBe(400);
    expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
  });
});

describe('CORS', () => {
  test.each(['/v1/identify', '/identify', '/v1/clicks', '/clicks'])('preflight and answers of %s carry CORS headers', async (path) => {
    const pre = await fetch(svc.url + path, {
      method: 'OPTIONS',
      headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('*');
    expect(pre.headers.get('access-control-allow-headers')).toContain('authorization');
    expect(pre.headers.get('access-control-allow-methods')).toContain('POST');
    const denied = await svc.api('POST', path, { key: null, body: path.endsWith('identify') ? { userId: 'u' } : { slug: 'abc' } });
    expect(denied.status).toBe(401);
    expect(denied.headers.get('access-control-allow-origin')).toBe('*');
  });

  test('other API paths carry no CORS headers', async () => {
    const res = await svc.api('GET', '/v1/campaigns');
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('who may call', () => {
  test('every kind of key against clicks and identify', async () => {
    const keys: Record<string, string | null> = {
      none: null,
      wrong: 'pk_000000000000000000000000000000000000000000',
      publishable: await svc.publishableKey(),
      scopedWithout: await svc.scopedKey(['links:write', 'partners:read']),
      scopedWith: await svc.scopedKey(['events:write']),
      partnerOwn: await svc.partnerKey(ptn),
      partnerOther: await svc.partnerKey(await partner(svc, [])),
      admin: svc.adminKey,
    };
    const expected: Record<string, [number, number]> = {
      none: [401, 401],
      wrong: [401, 401],
      publishable: [201, 200],
      scopedWithout: [403, 403],
      scopedWith: [201, 200],
      partnerOwn: [403, 403],
      partnerOther: [403, 403],
      admin: [201, 200],
    };
    for (const [name, key] of Object.entries(keys)) {
      const click = await svc.api('POST', '/v1/clicks', { key, body: { slug } });
      const ident = await svc.api('POST', '/v1/identify', { key, body: { userId: `who-${name}`, clickIds: [] } });
      expect([name, click.status, ident.status]).toEqual([name, ...expected[name]!]);
    }
    const identified = await svc.sql`select user_id from identities where user_id like 'who-%' order by user_id`;
    expect(identified.map((r) => r.user_id)).toEqual(['who-admin', 'who-publishable', 'who-scopedWith']);
  });

  test('a publishable key may do nothing else', async () => {
    const key = await svc.publishableKey();
    expect((await svc.api('GET', '/v1/links', { key })).status).toBe(403);
    expect((await svc.api('POST', '/v1/links', { key, body: { campaignId: 'x', partnerId: 'y' } })).status).toBe(403);
    expect((await svc.api('GET', '/v1/campaigns', { key })).status).toBe(403);
    expect((await svc.api('GET', '/v1/settings', { key })).status).toBe(403);
  });
});
