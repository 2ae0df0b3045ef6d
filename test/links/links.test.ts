import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startService, type TestService } from '../support/service';
import { campaign, link, partner } from './helpers';

let svc: TestService;
let cmp: string;
let otherCmp: string;
let ptn: string;
let otherPtn: string;
beforeAll(async () => {
  svc = await startService();
  cmp = await campaign(svc);
  otherCmp = await campaign(svc);
  ptn = await partner(svc, [cmp]);
  otherPtn = await partner(svc, [cmp, otherCmp]);
}, 60_000);
afterAll(() => svc.stop());

describe('creating links', () => {
  test('a generated slug, the share url and the row', async () => {
    const res = await svc.api('POST', '/v1/links', { body: { partnerId: ptn, campaignId: cmp } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ partnerId: ptn, campaignId: cmp });
    expect(res.body.id).toMatch(/^lnk_[0-9a-z]{26}$/);
    expect(res.body.slug).toMatch(/^[a-z2-9]{8}$/);
    expect(res.body.url).toBe(`${svc.config.baseUrl}/r/${res.body.slug}`);
    const [row] = await svc.sql`select slug, partner_id, campaign_id from links where id = ${res.body.id}`;
    expect(row).toEqual({ slug: res.body.slug, partner_id: ptn, campaign_id: cmp });
  });

  test('a custom slug; taken (in any case) is a 409', async () => {
    const res = await svc.api('POST', '/links', { body: { partnerId: ptn, campaignId: cmp, slug: 'Spring_Sale-24' } });
    expect(res.status).toBe(201);
    expect(res.body.url).toEndWith('/r/Spring_Sale-24');
    for (const slug of ['Spring_Sale-24', 'spring_sale-24']) {
      const dup = await svc.api('POST', '/v1/links', { body: { partnerId: otherPtn, campaignId: cmp, slug } });
      expect(dup.status).toBe(409);
      expect(dup.body.code).toBe('conflict');
    }
  });

  test.each([
    ['ab', 'too short'],
    ['a'.repeat(65), 'too long'],
    ['has space', 'space'],
    ['slash/y', 'slash'],
    ['ünïcode', 'non-ASCII'],
    ['dot.ted', 'dot'],
    ['admin', 'reserved'],
    ['Portal', 'reserved, any case'],
  ])('slug %j (%s) is a 400', async (slug) => {
    const res = await svc.api('POST', '/v1/links', { body: { partnerId: ptn, campaignId: cmp, slug } });
    expect(res.status).toBe(400);
    expect(res.body.details[0].field).toBe('slug');
  });

  test('errors: missing fields, unknown partner or campaign, archived campaign, campaign not held, revoked partner', async () => {
    expect((await svc.api('POST', '/v1/links', { body: { campaignId: cmp } })).status).toBe(400);
    expect((await svc.api('POST', '/v1/links', { body: { partnerId: ptn } })).status).toBe(400);
    expect((await svc.api('POST', '/v1/links', { body: { partnerId: 'ptn_00000000000000000000000000', campaignId: cmp } })).status).toBe(404);
    expect((await svc.api('POST', '/v1/links', { body: { partnerId: 'nonsense', campaignId: cmp } })).status).toBe(404);
    expect((await svc.api('POST', '/v1/links', { body: { partnerId: ptn, campaignId: 'cmp_00000000000000000000000000' } })).status).toBe(404);
    const notHeld = await svc.api('POST', '/v1/links', { body: { partnerId: ptn, campaignId: otherCmp } });
    expect(notHeld.status).toBe(403);

    const archived = await campaign(svc);
    const holder = await partner(svc, [archived]);
    await svc.api('PATCH', `/v1/campaigns/${archived}`, { body: { archived: true } });
    const res = await svc.api('POST', '/v1/links', { body: { partnerId: holder, campaignId: archived } });
    expect(res.status).toBe(409);

    const revoked = await partner(svc, [cmp]);
    await svc.api('POST', `/v1/partners/${revoked}/revoke`, { body: {} });
    const refused = await svc.api('POST', '/v1/links', { body: { partnerId: revoked, campaignId: cmp } });
    expect(refused.status).toBe(403);
    expect(await svc.sql`select id from links where partner_id = ${revoked}`).toHaveLength(0);
  });
});

describe('partners making their own links', () => {
  test('a partner key creates links for itself only, for campaigns it holds', async () => {
    const key = await svc.partnerKey(ptn);
    const own = await svc.api('POST', '/v1/links', { key, body: { campaignId: cmp } });
    expect(own.status).toBe(201);
    expect(own.body.partnerId).toBe(ptn);
    expect((await svc.api('POST', '/v1/links', { key, body: { campaignId: cmp, partnerId: ptn } })).status).toBe(201);
    expect((await svc.api('POST', '/v1/links', { key, body: { campaignId: cmp, partnerId: otherPtn } })).status).toBe(403);
    expect((await svc.api('POST', '/v1/links', { key, body: { campaignId: otherCmp } })).status).toBe(403);
  });

  test('a revoked partner whose key still works cannot create links', async () => {
    const revoked = await partner(svc, [cmp]);
    const key = await svc.partnerKey(revoked);
    await svc.api('POST', `/v1/partners/${revoked}/revoke`, { body: { reason: 'fraud' } });
    const res = await svc.api('POST', '/v1/links', { key, body: { campaignId: cmp } });
    expect(res.status).toBe(403);
  });
});

describe('listing links', () => {
  let p: string;
  let q: string;
  let made: string[];
  beforeAll(async () => {
    p = await partner(svc, [cmp, otherCmp]);
    q = await partner(svc, [cmp]);
    made = [];
    made.push((await link(svc, p, cmp)).id);
    made.push((await link(svc, p, otherCmp)).id);
    made.push((await link(svc, p, cmp)).id);
    await link(svc, q, cmp);
  });

  test('admins filter by partner and campaign, newest first, with a cursor', async () => {
    const all = await svc.api('GET', `/v1/links?partnerId=${p}`);
    expect(all.status).toBe(200);
    expect(all.body.links.map((l: { id: string }) => l.id)).toEqual([...made].reverse());
    expect(all.body.links[0]).toMatchObject({ partnerId: p, campaignId: cmp, url: expect.stringContaining('/r/') });
    const first = await svc.api('GET', `/links?partnerId=${p}&limit=2`);
    expect(first.body.links.map((l: { id: string }) => l.id)).toEqual([made[2], made[1]]);
    const rest = await svc.api('GET', `/v1/links?partnerId=${p}&limit=2&cursor=${first.body.nextCursor}`);
    expect(rest.body).toEqual({ links: [expect.objectContaining({ id: made[0] })], nextCursor: null });
    const byCampaign = await svc.api('GET', `/v1/links?partnerId=${p}&campaignId=${otherCmp}`);
    expect(byCampaign.body.links.map((l: { id: string }) => l.id)).toEqual([made[1]]);
    expect((await svc.api('GET', '/v1/links?limit=500')).status).toBe(400);
    expect((await svc.api('GET', '/v1/links?cursor=cmp_01m7ybq733fmkj19s062wdy782')).status).toBe(400);
    const nul = await svc.api('GET', '/v1/links?partnerId=%00');
    expect(nul.status).toBe(400);
    expect(nul.body.code).toBe('invalid_query');
  });

  test('partners see only their own links', async () => {
    const key = await svc.partnerKey(q);
    const res = await svc.api('GET', '/v1/links', { key });
    expect(res.status).toBe(200);
    expect(res.body.links.length).toBeGreaterThan(0);
    expect(res.body.links.every((l: { partnerId: string }) => l.partnerId === q)).toBe(true);
    expect((await svc.api('GET', `/v1/links?partnerId=${q}`, { key })).status).toBe(200);
    expect((await svc.api('GET', `/v1/links?partnerId=${p}`, { key })).status).toBe(403);
  });
});

describe('who may call', () => {
  test('every kind of key against POST and GET /v1/links', async () => {
    const keys: Record<string, string | null> = {
      none: null,
      wrong: 'sk_0000000000000000000000000000000000000000000',
      publishable: await svc.publishableKey(),
      scopedWithout: await svc.scopedKey(['campaigns:read', 'events:write']),
      scopedWith: await svc.scopedKey(['links:write']),
      scopedReader: await svc.scopedKey(['partners:read']),
      admin: svc.adminKey,
    };
    const expected: Record<string, [number, number]> = {
      none: [401, 401],
      wrong: [401, 401],
      publishable: [403, 403],
      scopedWithout: [403, 403],
      scopedWith: [201, 403],
      scopedReader: [403, 200],
      admin: [201, 200],
    };
    for (const [name, key] of Object.entries(keys)) {
      const post = await svc.api('POST', '/v1/links', { key, body: { partnerId: ptn, campaignId: cmp } });
      const get = await svc.api('GET', '/v1/links', { key });
      expect([name, post.status, get.status]).toEqual([name, ...expected[name]!]);
    }
  });
});
