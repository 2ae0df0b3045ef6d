import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { EXPONENTS, isKnownCurrency } from '../../src/lib/money';
import { startService, type TestService } from '../support/service';

let svc: TestService;
beforeAll(async () => {
  svc = await startService({ HOLDBACK_DAYS: '45' });
}, 60_000);
afterAll(() => svc.stop());

const base = { name: 'Spring', destinationUrl: 'https://shop.example/landing?ref=x', currency: 'USD' };

describe('currency table', () => {
  test.each([
    ['USD', 2],
    ['EUR', 2],
    ['JPY', 0],
    ['KRW', 0],
    ['KWD', 3],
    ['BHD', 3],
  ])('%s has %d decimals', (code, exponent) => {
    expect(isKnownCurrency(code)).toBe(true);
    expect(EXPONENTS[code]).toBe(exponent);
  });
  test.each(['usd', 'XXX', 'ABC', 'US', 'toString', '__proto__'])('%s is not a currency', (code) => {
    expect(isKnownCurrency(code)).toBe(false);
  });
});

describe('creating campaigns', () => {
  test('a campaign is stored with its rules; holdbackDays null means HOLDBACK_DAYS', async () => {
    const rules = [
      { eventType: 'invoice_paid', kind: 'percent', percent: 20, maxOccurrences: 12 },
      { eventType: 'signup', kind: 'flat', amount: '5.00', match: { plan: 'pro' } },
    ];
    const res = await svc.api('POST', '/v1/campaigns', { body: { ...base, rules } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ ...base, holdbackDays: null, rules, archivedAt: null });
    expect(res.body.id).toMatch(/^cmp_[0-9a-z]{26}$/);
    expect(new Date(res.body.createdAt).toISOString()).toBe(res.body.createdAt);
    const [row] = await svc.sql`select name, destination_url, currency, holdback_days, rules from campaigns where id = ${res.body.id}`;
    expect(row).toEqual({ name: 'Spring', destination_url: base.destinationUrl, currency: 'USD', holdback_days: null, rules });
  });

  test('the unprefixed path works too, with an explicit holdback', async () => {
    const res = await svc.api('POST', '/campaigns', { body: { ...base, currency: 'JPY', holdbackDays: 7 } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ currency: 'JPY', holdbackDays: 7, rules: [] });
  });

  test.each([
    ['missing name', { ...base, name: undefined }, 'name'],
    ['blank name', { ...base, name: '   ' }, 'name'],
    ['ftp destination', { ...base, destinationUrl: 'ftp://shop.example/' }, 'destinationUrl'],
    ['relative destination', { ...base, destinationUrl: '/landing/page' }, 'destinationUrl'],
    ['javascript destination', { ...base, destinationUrl: 'javascript:alert(1)' }, 'destinationUrl'],
    ['destination with spaces', { ...base, destinationUrl: 'https://shop.example/a b' }, 'destinationUrl'],
    ['lower-case currency', { ...base, currency: 'usd' }, 'currency'],
    ['unknown currency', { ...base, currency: 'XYZ' }, 'currency'],
    ['negative holdback', { ...base, holdbackDays: -1 }, 'holdbackDays'],
    ['percent rule without percent', { ...base, rules: [{ eventType: 'signup', kind: 'percent' }] }, 'rules.0.percent'],
    ['flat rule without amount', { ...base, rules: [{ eventType: 'signup', kind: 'flat' }] }, 'rules.0.amount'],
    ['flat rule with a percent', { ...base, rules: [{ eventType: 'signup', kind: 'flat', amount: '1', percent: 5 }] }, 'rules.0.percent'],
    ['percent over 100', { ...base, rules: [{ eventType: 'signup', kind: 'percent', percent: 101 }] }, 'rules.0.percent'],
    ['unknown rule kind', { ...base, rules: [{ eventType: 'signup', kind: 'tiered' }] }, 'rules.0.kind'],
    ['cents in a JPY amount', { ...base, currency: 'JPY', rules: [{ eventType: 'signup', kind: 'flat', amount: '10.5' }] }, 'rules.0.amount'],
    ['a NUL character', { ...base, name: 'Spring\u0000' }, 'name'],
    ['3 decimals in USD', { ...base, rules: [{ eventType: 'signup', kind: 'flat', amount: '1.005' }] }, 'rules.0.amount'],
  ])('%s is a 400 naming the field', async (_label, body, field) => {
    const res = await svc.api('POST', '/v1/campaigns', { body });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_body');
    expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  test('an unknown field of a rule is a 400 naming it, no campaign stored', async () => {
    const res = await svc.api('POST', '/v1/campaigns', { body: { ...base, name: 'Bonus rule', rules: [{ eventType: 'signup', kind: 'flat', amount: '1', bonus: true }] } });
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([{ field: 'rules.0.bonus', message: 'unknown field' }]);
    expect((await svc.sql`select count(*)::int as n from campaigns where name = 'Bonus rule'`)[0]!.n).toBe(0);
  });

  test('KWD takes 3 decimals', async () => {
    const res = await svc.api('POST', '/v1/campaigns', {
      body: { ...base, currency: 'KWD', rules: [{ eventType: 'signup', kind: 'flat', amount: '1.250' }] },
    });
    expect(res.status).toBe(201);
  });

  test('a body that is not JSON is a 400', async () => {
    const res = await svc.api('POST', '/v1/campaigns', { raw: '{nope', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_body');
  });
});

describe('reading and listing', () => {
  test('GET one answers the record; unknown and malformed ids are 404', async () => {
    const created = (await svc.api('POST', '/v1/campaigns', { body: base })).body;
    expect((await svc.api('GET', `/v1/campaigns/${created.id}`)).body).toEqual(created);
    const unknown = await svc.api('GET', '/v1/campaigns/cmp_00000000000000000000000000');
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('not_found');
    expect((await svc.api('GET', '/v1/campaigns/nonsense')).status).toBe(404);
  });

  test('lists page newest first with a cursor and filter by archived', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await svc.api('POST', '/v1/campaigns', { body: { ...base, name: `page ${i}` } })).body.id);
    const first = await svc.api('GET', '/v1/campaigns?limit=2');
    expect(first.status).toBe(200);
    expect(first.body.campaigns.map((c: { id: string }) => c.id)).toEqual([ids[4], ids[3]]);
    const second = await svc.api('GET', `/v1/campaigns?limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body.campaigns.map((c: { id: string }) => c.id)).toEqual([ids[2], ids[1]]);

    await svc.api('PATCH', `/v1/campaigns/${ids[4]}`, { body: { archived: true } });
    const archived = await svc.api('GET', '/v1/campaigns?archived=true');
    expect(archived.body.campaigns.map((c: { id: string }) => c.id)).toEqual([ids[4]]);
    const live = await svc.api('GET', '/v1/campaigns?archived=false&limit=200');
    expect(live.body.campaigns.map((c: { id: string }) => c.id)).not.toContain(ids[4]);
    expect(live.body.nextCursor).toBeNull();
  });

  test.each([
    ['limit=0', 'limit'],
    ['limit=201', 'limit'],
    ['limit=abc', 'limit'],
    ['cursor=ptn_01m7ybq733fmkj19s062wdy782', 'cursor'],
    ['archived=maybe', 'archived'],
  ])('%s is a 400', async (query, field) => {
    const res = await svc.api('GET', `/v1/campaigns?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_query');
    expect(res.body.details[0].field).toBe(field);
  });
});

describe('updating and archiving', () => {
  test('PATCH changes only the fields given', async () => {
    const created = (await svc.api('POST', '/v1/campaigns', { body: { ...base, holdbackDays: 10 } })).body;
    const res = await svc.api('PATCH', `/v1/campaigns/${created.id}`, {
      body: { name: 'Summer', rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 12.5 }] },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: created.id,
      name: 'Summer',
      destinationUrl: base.destinationUrl,
      holdbackDays: 10,
      rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 12.5 }],
    });
    const cleared = await svc.api('PATCH', `/v1/campaigns/${created.id}`, { body: { holdbackDays: null } });
    expect(cleared.body.holdbackDays).toBeNull();
  });

  test('archive and unarchive; archiving twice keeps the first time', async () => {
    const created = (await svc.api('POST', '/v1/campaigns', { body: base })).body;
    const archived = await svc.api('PATCH', `/v1/campaigns/${created.id}`, { body: { archived: true } });
    expect(archived.body.archivedAt).not.toBeNull();
    const again = await svc.api('PATCH', `/v1/campaigns/${created.id}`, { body: { archived: true } });
    expect(again.body.archivedAt).toBe(archived.body.archivedAt);
    const renamed = await svc.api('PATCH', `/v1/campaigns/${created.id}`, { body: { name: 'Still archived' } });
    expect(renamed.body.archivedAt).toBe(archived.body.archivedAt);
    const back = await svc.api('PATCH', `/v1/campaigns/${created.id}`, { body: { archived: false } });
    expect(back.body.archivedAt).toBeNull();
    const [row] = await svc.sql`select archived_at from campaigns where id = ${created.id}`;
    expect(row!.archived_at).toBeNull();
  });

  test('changing the currency is refused when a flat amount has too many decimals for it', async () => {
    const created = (await svc.api('POST', '/v1/campaigns', { body: { ...base, rules: [{ eventType: 'signup', kind: 'flat', amount: '2.50' }] } })).body;
    const res = await svc.api('PATCH', `/v1/campaigns/${created.id}`, { body: { currency: 'JPY' } });
    expect(res.status).toBe(400);
    expect(res.body.details[0].field).toBe('rules.0.amount');
    const ok = await svc.api('PATCH', `/v1/campaigns/${created.id}`, { body: { currency: 'EUR' } });
    expect(ok.body.currency).toBe('EUR');
  });

  test('errors: unknown campaign 404, bad values 400', async () => {
    expect((await svc.api('PATCH', '/v1/campaigns/cmp_00000000000000000000000000', { body: { name: 'x' } })).status).toBe(404);
    const created = (await svc.api('POST', '/v1/campaigns', { body: base })).body;
    for (const body of [{ destinationUrl: 'mailto:a@b.co' }, { currency: 'EURO' }, { archived: 'yes' }, { holdbackDays: 1.5 }]) {
      const res = await svc.api('PATCH', `/v1/campaigns/${created.id}`, { body });
      expect(res.status).toBe(400);
    }
  });
});

describe('who may call', () => {
  let campaignId: string;
  let otherCampaignId: string;
  let partnerKey: string;
  beforeAll(async () => {
    otherCampaignId = (await svc.api('POST', '/v1/campaigns', { body: { ...base, name: 'Not held' } })).body.id;
    campaignId = (await svc.api('POST', '/v1/campaigns', { body: { ...base, name: 'Held' } })).body.id;
    const partner = await svc.api('POST', '/v1/partners', {
      body: { email: 'holder@example.com', name: 'Holder', sendInvite: false, campaignIds: [campaignId] },
    });
    partnerKey = await svc.partnerKey(partner.body.id);
  });

  test('no key, an unknown key, a publishable key', async () => {
    const publishable = await svc.publishableKey();
    for (const [method, path] of [
      ['GET', '/v1/campaigns'],
      ['GET', `/v1/campaigns/${campaignId}`],
      ['POST', '/v1/campaigns'],
      ['PATCH', `/v1/campaigns/${campaignId}`],
    ] as const) {
      const body = method === 'GET' ? undefined : base;
      expect((await svc.api(method, path, { key: null, body })).status).toBe(401);
      expect((await svc.api(method, path, { key: 'sk_wrong0000000000000000000000000000000000', body })).status).toBe(401);
      expect((await svc.api(method, path, { key: publishable, body })).status).toBe(403);
    }
  });

  test('scoped keys need campaigns:read to read and campaigns:write to write', async () => {
    const none = await svc.scopedKey(['partners:read']);
    const read = await svc.scopedKey(['campaigns:read']);
    const write = await svc.scopedKey(['campaigns:write']);
    expect((await svc.api('GET', '/v1/campaigns', { key: none })).status).toBe(403);
    expect((await svc.api('GET', `/v1/campaigns/${campaignId}`, { key: none })).status).toBe(403);
    expect((await svc.api('GET', '/v1/campaigns', { key: read })).status).toBe(200);
    expect((await svc.api('GET', `/v1/campaigns/${campaignId}`, { key: read })).status).toBe(200);
    expect((await svc.api('POST', '/v1/campaigns', { key: read, body: base })).status).toBe(403);
    expect((await svc.api('PATCH', `/v1/campaigns/${campaignId}`, { key: read, body: { name: 'x' } })).status).toBe(403);
    expect((await svc.api('POST', '/v1/campaigns', { key: write, body: base })).status).toBe(201);
    expect((await svc.api('PATCH', `/v1/campaigns/${campaignId}`, { key: write, body: { name: 'Held' } })).status).toBe(200);
  });

  test('a partner key reads only the campaigns the partner holds and writes nothing', async () => {
    const list = await svc.api('GET', '/v1/campaigns', { key: partnerKey });
    expect(list.status).toBe(200);
    expect(list.body.campaigns.map((c: { id: string }) => c.id)).toEqual([campaignId]);
    expect((await svc.api('GET', `/v1/campaigns/${campaignId}`, { key: partnerKey })).status).toBe(200);
    expect((await svc.api('GET', `/v1/campaigns/${otherCampaignId}`, { key: partnerKey })).status).toBe(403);
    expect((await svc.api('POST', '/v1/campaigns', { key: partnerKey, body: base })).status).toBe(403);
    expect((await svc.api('PATCH', `/v1/campaigns/${campaignId}`, { key: partnerKey, body: { name: 'mine' } })).status).toBe(403);
  });
});
