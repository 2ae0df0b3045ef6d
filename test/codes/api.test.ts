// POST/GET /v1/codes, GET/PATCH /v1/codes/:id over HTTP: what is stored, who may do what, and bad
// input answered with a clear error and nothing written.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { campaign, partner } from '../support/chain';
import { startService, type TestService } from '../support/service';

let svc: TestService;
let campaignId: string;
let otherCampaign: string;
let owner: string;
let other: string;
let ownerKey: string;
beforeAll(async () => {
  svc = await startService();
  campaignId = await campaign(svc, {});
  otherCampaign = await campaign(svc, { name: 'Other program' });
  owner = await partner(svc, 'podcaster@example.com', [campaignId]);
  other = await partner(svc, 'blogger@example.com', [campaignId, otherCampaign]);
  ownerKey = await svc.partnerKey(owner);
}, 60_000);
afterAll(() => svc.stop());

const codeCount = async () => (await svc.sql`select count(*)::int as n from promotion_codes`)[0]!.n as number;
const create = (body: Record<string, unknown>, key?: string) => svc.api('POST', '/v1/codes', { body, key });

describe('happy', () => {
  test('an admin creates a code: 201 with the code as typed, stored once', async () => {
    const res = await create({ code: 'Podcast20', partnerId: owner, campaignId });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^pcd_[0-9a-z]{26}$/),
      code: 'Podcast20',
      partnerId: owner,
      campaignId,
      stripePromotionCodeId: null,
      createdAt: expect.any(String),
      archivedAt: null,
    });
    const rows = await svc.sql`select code, partner_id, campaign_id, archived_at from promotion_codes where id = ${res.body.id}`;
    expect([...rows]).toEqual([{ code: 'Podcast20', partner_id: owner, campaign_id: campaignId, archived_at: null }]);
    expect((await svc.api('GET', `/v1/codes/${res.body.id}`)).body).toEqual(res.body);
  });

  test('a partner creates its own code; partnerId may be left out', async () => {
    const res = await create({ code: 'SELF-MADE_1', campaignId }, ownerKey);
    expect(res.status).toBe(201);
    expect(res.body.partnerId).toBe(owner);
  });

  test('list: newest first, filters by partner and campaign, pages with a cursor', async () => {
    const a = (await create({ code: 'LIST-A', partnerId: other, campaignId })).body.id;
    const b = (await create({ code: 'LIST-B', partnerId: other, campaignId: otherCampaign })).body.id;
    const byPartner = await svc.api('GET', `/v1/codes?partnerId=${other}`);
    expect(byPartner.status).toBe(200);
    expect(byPartner.body.codes.map((c: { id: string }) => c.id)).toEqual([b, a]);
    const byCampaign = await svc.api('GET', `/v1/codes?campaignId=${otherCampaign}`);
    expect(byCampaign.body.codes.map((c: { id: string }) => c.id)).toEqual([b]);
    const page1 = await svc.api('GET', `/v1/codes?partnerId=${other}&limit=1`);
    expect(page1.body).toMatchObject({ codes: [{ id: b }], nextCursor: b });
    const page2 = await svc.api('GET', `/v1/codes?partnerId=${other}&limit=1&cursor=${page1.body.nextCursor}`);
    expect(page2.body).toMatchObject({ codes: [{ id: a }], nextCursor: null });
  });

  test('archive and unarchive', async () => {
    const { id } = (await create({ code: 'SEASONAL', partnerId: owner, campaignId })).body;
    const archived = await svc.api('PATCH', `/v1/codes/${id}`, { body: { archived: true } });
    expect(archived.status).toBe(200);
    expect(archived.body.archivedAt).toEqual(expect.any(String));
    const again = await svc.api('PATCH', `/v1/codes/${id}`, { body: { archived: true } });
    expect(again.body.archivedAt).toBe(archived.body.archivedAt);
    const back = await svc.api('PATCH', `/v1/codes/${id}`, { body: { archived: false } });
    expect(back.body.archivedAt).toBeNull();
    expect((await svc.sql`select archived_at from promotion_codes where id = ${id}`)[0]!.archived_at).toBeNull();
  });
});

describe('bad input: a clear error, nothing written', () => {
  const cases: [string, Record<string, unknown>, number, string, string][] = [
    ['too short', { code: 'AB' }, 400, 'invalid_body', 'code: must be 3-40 characters long'],
    ['too long', { code: 'A'.repeat(41) }, 400, 'invalid_body', 'code: must be 3-40 characters long'],
    ['a space', { code: 'SAVE 20' }, 400, 'invalid_body', 'code: may only contain A-Z a-z 0-9 _ -'],
    ['a letter outside A-Z', { code: 'ÉTÉ20' }, 400, 'invalid_body', 'code: may only contain A-Z a-z 0-9 _ -'],
    ['punctuation', { code: 'SAVE20!' }, 400, 'invalid_body', 'code: may only contain A-Z a-z 0-9 _ -'],
    ['no code', { code: undefined }, 400, 'invalid_body', 'code'],
    ['a number for a code', { code: 12345 }, 400, 'invalid_body', 'code'],
    ['unknown campaign', { campaignId: 'cmp_01jd8x0000000000000000000a' }, 404, 'not_found', 'campaign not found'],
    ['unknown partner', { partnerId: 'ptn_01jd8x0000000000000000000a' }, 404, 'not_found', 'partner not found'],
    ['no partner (admin)', { partnerId: undefined }, 400, 'invalid_body', 'partnerId: required'],
  ];
  for (const [label, change, status, code, message] of cases) {
    test(label, async () => {
      const before = await codeCount();
      const res = await create({ code: 'GOODCODE', partnerId: owner, campaignId, ...change });
      expect(res.status).toBe(status);
      expect(res.body.code).toBe(code);
      expect(res.body.message).toContain(message);
      expect(await codeCount()).toBe(before);
    });
  }

  test('the 3- and 40-character bounds are accepted', async () => {
    expect((await create({ code: 'a_-', partnerId: owner, campaignId })).status).toBe(201);
    expect((await create({ code: 'Z'.repeat(40), partnerId: owner, campaignId })).status).toBe(201);
  });

  test('a duplicate ignoring case is 409 conflict, and the first code is untouched', async () => {
    expect((await create({ code: 'Summer24', partnerId: owner, campaignId })).status).toBe(201);
    const before = await codeCount();
    const res = await create({ code: 'sUMMER24', partnerId: other, campaignId: otherCampaign });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ code: 'conflict', message: expect.stringContaining('is taken'), details: [{ field: 'code', message: 'is taken' }] });
    expect(await codeCount()).toBe(before);
    expect([...(await svc.sql`select code, partner_id from promotion_codes where lower(code) = 'summer24'`)]).toEqual([{ code: 'Summer24', partner_id: owner }]);
  });

  test('racing creates of one code ignoring case: exactly one wins, the others are 409', async () => {
    const answers = await Promise.all(['RACE-X', 'race-x', 'Race-X', 'RACE-x', 'rAcE-X'].map((code) => create({ code, partnerId: owner, campaignId })));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409, 409, 409]);
    expect(await svc.sql`select 1 from promotion_codes where lower(code) = 'race-x'`).toHaveLength(1);
  });

  test('a partner is 403 for a campaign it does not hold, and for another partner', async () => {
    const before = await codeCount();
    const foreign = await create({ code: 'NOTMINE', campaignId: otherCampaign }, ownerKey);
    expect(foreign.status).toBe(403);
    expect(foreign.body).toMatchObject({ code: 'forbidden', message: expect.stringContaining('does not hold this campaign') });
    const forOther = await create({ code: 'NOTMINE', partnerId: other, campaignId }, ownerKey);
    expect(forOther.status).toBe(403);
    expect(forOther.body.message).toContain('only create codes for themselves');
    // the admin is held to the same rule for the partner named
    const admin = await create({ code: 'NOTMINE', partnerId: owner, campaignId: otherCampaign });
    expect(admin.status).toBe(403);
    expect(await codeCount()).toBe(before);
  });

  test('a revoked partner gets no codes (403); an archived campaign none either (409)', async () => {
    const revoked = await partner(svc, 'gone@example.com', [campaignId]);
    expect((await svc.api('POST', `/v1/partners/${revoked}/revoke`, { body: { reason: 'fraud' } })).status).toBe(200);
    const archivedCampaign = await campaign(svc, { name: 'Old program' });
    const holder = await partner(svc, 'holder@example.com', [archivedCampaign]);
    expect((await svc.api('PATCH', `/v1/campaigns/${archivedCampaign}`, { body: { archived: true } })).status).toBe(200);
    const before = await codeCount();
    const a = await create({ code: 'REVOKED1', partnerId: revoked, campaignId });
    expect(a.status).toBe(403);
    expect(a.body.message).toContain('revoked');
    const b = await create({ code: 'ARCHIVED1', partnerId: holder, campaignId: archivedCampaign });
    expect(b.status).toBe(409);
    expect(b.body.message).toContain('archived');
    expect(await codeCount()).toBe(before);
  });

  test('PATCH: unknown code 404, a body without archived 400, nothing changes', async () => {
    const { id } = (await create({ code: 'PATCHME', partnerId: owner, campaignId })).body;
    expect((await svc.api('PATCH', '/v1/codes/pcd_01jd8x0000000000000000000a', { body: { archived: true } })).status).toBe(404);
    expect((await svc.api('PATCH', '/v1/codes/not-an-id', { body: { archived: true } })).status).toBe(404);
    const bad = await svc.api('PATCH', `/v1/codes/${id}`, { body: { archived: 'yes' } });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('invalid_body');
    expect((await svc.api('PATCH', `/v1/codes/${id}`, { body: {} })).status).toBe(400);
    expect((await svc.sql`select archived_at from promotion_codes where id = ${id}`)[0]!.archived_at).toBeNull();
  });

  test('a NUL character is a 400 and nothing is written', async () => {
    const before = await codeCount();
    const res = await create({ code: 'NUL\u0000CODE', partnerId: owner, campaignId });
    expect(res.status).toBe(400);
    expect(await codeCount()).toBe(before);
  });

  test('a garbled cursor or limit is a 400', async () => {
    expect((await svc.api('GET', '/v1/codes?cursor=ptn_01jd8x0000000000000000000a')).status).toBe(400);
    expect((await svc.api('GET', '/v1/codes?limit=0')).status).toBe(400);
  });
});

describe('partners see only their own codes', () => {
  test('list, filter and read', async () => {
    const mine = (await create({ code: 'MINE-ONLY', partnerId: owner, campaignId })).body.id;
    const theirs = (await create({ code: 'THEIRS-ONLY', partnerId: other, campaignId })).body.id;
    const list = await svc.api('GET', '/v1/codes?limit=200', { key: ownerKey });
    expect(list.status).toBe(200);
    const ids = list.body.codes.map((c: { id: string }) => c.id);
    expect(ids).toContain(mine);
    expect(ids).not.toContain(theirs);
    expect(list.body.codes.every((c: { partnerId: string }) => c.partnerId === owner)).toBe(true);
    expect((await svc.api('GET', `/v1/codes?partnerId=${other}`, { key: ownerKey })).status).toBe(403);
    expect((await svc.api('GET', `/v1/codes/${theirs}`, { key: ownerKey })).status).toBe(403);
    expect((await svc.api('GET', `/v1/codes/${mine}`, { key: ownerKey })).status).toBe(200);
  });

  test('a partner may not archive (admins only)', async () => {
    const mine = (await create({ code: 'KEEP-ME', partnerId: owner, campaignId })).body.id;
    const res = await svc.api('PATCH', `/v1/codes/${mine}`, { key: ownerKey, body: { archived: true } });
    expect(res.status).toBe(403);
    expect((await svc.sql`select archived_at from promotion_codes where id = ${mine}`)[0]!.archived_at).toBeNull();
  });
});
