// Deep links (issue 12): a link may land on its own page of the campaign's site. POST /v1/links takes
// `destinationUrl` on the campaign destination's host only; GET /r/:slug lands there with pp_click.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eventually } from '../support/eventually';
import { startService, type TestService } from '../support/service';
import { campaign, partner } from './helpers';

let svc: TestService;
let cmp: string;
let ptn: string;
beforeAll(async () => {
  svc = await startService();
  cmp = await campaign(svc, 'https://shop.example/landing?ref=partner#plans');
  ptn = await partner(svc, [cmp]);
}, 60_000);
afterAll(() => svc.stop());

const follow = (url: string) => fetch(url, { redirect: 'manual' });

describe('POST /v1/links with destinationUrl', () => {
  test('a page of the same host is stored, answered and followed with UTM kept and pp_click added', async () => {
    const deep = 'https://shop.example/pricing/team?utm_source=blog&utm_medium=post&utm_campaign=spring#faq';
    const res = await svc.api('POST', '/v1/links', { body: { partnerId: ptn, campaignId: cmp, slug: 'deep-team', destinationUrl: deep } });
    expect(res.status).toBe(201);
    expect(res.body.destinationUrl).toBe(deep);
    const [row] = await svc.sql`select destination_url from links where id = ${res.body.id}`;
    expect(row!.destination_url).toBe(deep);

    const location = (await follow(res.body.url)).headers.get('location')!;
    const clickId = new URL(location).searchParams.get('pp_click')!;
    expect(clickId).toMatch(/^clk_[0-9a-z]{26}$/);
    expect(location).toBe(`https://shop.example/pricing/team?utm_source=blog&utm_medium=post&utm_campaign=spring&pp_click=${clickId}#faq`);

    // the API lists it with its destination; a link without one says null and lands on the campaign's
    const plain = await svc.api('POST', '/v1/links', { body: { partnerId: ptn, campaignId: cmp } });
    expect(plain.body.destinationUrl).toBeNull();
    const list = await svc.api('GET', `/v1/links?partnerId=${ptn}`);
    expect(list.body.links.find((l: { id: string }) => l.id === res.body.id).destinationUrl).toBe(deep);
    const back = (await follow(plain.body.url)).headers.get('location')!;
    expect(back).toStartWith('https://shop.example/landing?ref=partner&pp_click=clk_');
    expect(back).toEndWith('#plans');
  });

  test('a partner key may make deep links for itself', async () => {
    const key = await svc.partnerKey(ptn);
    const res = await svc.api('POST', '/v1/links', { key, body: { campaignId: cmp, destinationUrl: 'http://shop.example/blog' } });
    expect(res.status).toBe(201);
    expect((await follow(res.body.url)).headers.get('location')).toStartWith('http://shop.example/blog?pp_click=clk_');
  });

  test.each([
    ['another host', 'https://evil.example/pricing', "must be on the campaign's site, shop.example"],
    ['a host ending like it', 'https://shop.example.evil.example/', "must be on the campaign's site"],
    ['another port', 'https://shop.example:8443/', "must be on the campaign's site"],
    ['javascript:', 'javascript:alert(1)', 'absolute http or https URL'],
    ['ftp:', 'ftp://shop.example/file', 'absolute http or https URL'],
    ['a bare path', '/pricing', 'absolute http or https URL'],
    ['a space', 'https://shop.example/a b', 'must not contain spaces'],
    ['over 2048 characters', `https://shop.example/${'a'.repeat(2048)}`, ''],
  ])('%s is a 400 invalid_body naming destinationUrl', async (_, destinationUrl, message) => {
    const before = (await svc.sql`select count(*)::int as n from links`)[0]!.n;
    const res = await svc.api('POST', '/v1/links', { body: { partnerId: ptn, campaignId: cmp, destinationUrl } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_body');
    expect(res.body.message).toContain('destinationUrl');
    if (message) expect(res.body.details[0]).toEqual({ field: 'destinationUrl', message: expect.stringContaining(message) });
    expect((await svc.sql`select count(*)::int as n from links`)[0]!.n).toBe(before);
  });

  test('the deep link travels in the cached entry, and a change in the database reaches it (NOTIFY)', async () => {
    const res = await svc.api('POST', '/v1/links', { body: { partnerId: ptn, campaignId: cmp, destinationUrl: 'https://shop.example/cached' } });
    expect((await follow(res.body.url)).headers.get('location')).toStartWith('https://shop.example/cached?pp_click=');
    await svc.sql`update links set destination_url = 'https://shop.example/moved' where id = ${res.body.id}`;
    await eventually(async () => expect((await follow(res.body.url)).headers.get('location')).toStartWith('https://shop.example/moved?pp_click='));
  });
});
