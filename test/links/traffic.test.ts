// What a click records about its visitor: the sub-ID of the share link, the country of the address
// (never the address), the device type and browser, and the referrer's domain.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { referrerDomain, subOf } from '../../src/modules/links/traffic';
import { BROWSER_UA, campaign, partner } from '../support/chain';
import { startService, type TestService } from '../support/service';

const IPHONE_UA =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const IPAD_UA = 'Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1';
const FIREFOX_UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0';

type Stored = { sub_id: string | null; country: string | null; device: string | null; browser: string | null; referrer_domain: string | null };

async function follow(svc: TestService, path: string, headers: Record<string, string>): Promise<{ location: string; clickId: string }> {
  const res = await fetch(`${svc.url}${path}`, { redirect: 'manual', headers });
  expect(res.status).toBe(302);
  const location = res.headers.get('location')!;
  return { location, clickId: new URL(location).searchParams.get('pp_click')! };
}

async function stored(svc: TestService, clickId: string): Promise<Stored & { row: Record<string, unknown> }> {
  await svc.ctx.links.clicks.flush();
  const [row] = await svc.sql`select * from clicks where id = ${clickId}`;
  expect(row).toBeDefined();
  const { sub_id, country, device, browser, referrer_domain } = row!;
  return { sub_id, country, device, browser, referrer_domain, row: row! };
}

describe('behind a trusted proxy (TRUST_PROXY=1)', () => {
  let svc: TestService;
  let slug: string;
  beforeAll(async () => {
    svc = await startService({ TRUST_PROXY: '1' });
    const campaignId = await campaign(svc, {});
    const partnerId = await partner(svc, 'traffic@example.com', [campaignId]);
    slug = (await svc.api('POST', '/v1/links', { body: { campaignId, partnerId } })).body.slug;
  }, 60_000);
  afterAll(() => svc.stop());

  test('a phone in Germany from a search result: DE, mobile, Safari, google.com, its sub-ID; no address stored', async () => {
    const { location, clickId } = await follow(svc, `/r/${slug}?sub=newsletter-2026_11`, {
      'user-agent': IPHONE_UA,
      'x-forwarded-for': '194.25.2.129',
      referer: 'https://www.Google.com/search?q=pro+plan',
    });
    const click = await stored(svc, clickId);
    expect({ ...click, row: undefined }).toEqual({
      sub_id: 'newsletter-2026_11',
      country: 'DE',
      device: 'mobile',
      browser: 'Safari',
      referrer_domain: 'google.com',
      row: undefined,
    });
    // the address is in no column of the row
    expect(JSON.stringify(click.row)).not.toContain('194.25.2.129');
    // the sub-ID goes on to the destination with the rest of the query
    expect(new URL(location).searchParams.get('sub')).toBe('newsletter-2026_11');
  });

  test('a desktop Firefox in the UK, IPv6 from Google in the US, a tablet: each in its bucket', async () => {
    const uk = await stored(svc, (await follow(svc, `/r/${slug}`, { 'user-agent': FIREFOX_UA, 'x-forwarded-for': '81.2.69.160' })).clickId);
    expect([uk.country, uk.device, uk.browser, uk.referrer_domain, uk.sub_id]).toEqual(['GB', 'desktop', 'Firefox', null, null]);
    const v6 = await stored(svc, (await follow(svc, `/r/${slug}`, { 'user-agent': BROWSER_UA, 'x-forwarded-for': '2001:4860:4860::8888' })).clickId);
    expect([v6.country, v6.device, v6.browser]).toEqual(['US', 'desktop', 'Chrome']);
    const tablet = await stored(svc, (await follow(svc, `/r/${slug}`, { 'user-agent': IPAD_UA, 'x-forwarded-for': '1.1.1.1', referer: 'android-app://com.x' })).clickId);
    expect([tablet.country, tablet.device, tablet.referrer_domain]).toEqual(['AU', 'tablet', null]);
  });

  test('a private address has no country; a malformed sub-ID is left off and the visitor still goes on', async () => {
    for (const sub of ['x'.repeat(65), 'a b', '<script>', '']) {
      const { clickId } = await follow(svc, `/r/${slug}?sub=${encodeURIComponent(sub)}`, { 'user-agent': BROWSER_UA, 'x-forwarded-for': '10.1.2.3' });
      const click = await stored(svc, clickId);
      expect([click.sub_id, click.country]).toEqual([null, null]);
    }
  });

  test('POST /v1/clicks: sub and ip are recorded the same way; a bad sub is a 400 naming it, nothing written', async () => {
    const res = await svc.api('POST', '/v1/clicks', {
      body: { slug, ip: '81.2.69.160', sub: 'yt.video~1', userAgent: IPHONE_UA, referrer: 'https://t.co/abc' },
    });
    expect(res.status).toBe(201);
    const click = await stored(svc, res.body.clickId);
    expect([click.sub_id, click.country, click.device, click.browser, click.referrer_domain]).toEqual(['yt.video~1', 'GB', 'mobile', 'Safari', 't.co']);

    const before = (await svc.sql`select count(*)::int as n from clicks`)[0]!.n;
    const bad = await svc.api('POST', '/v1/clicks', { body: { slug, sub: 'has space' } });
    expect(bad.status).toBe(400);
    expect(bad.body.details.map((d: { field: string }) => d.field)).toEqual(['sub']);
    await svc.ctx.links.clicks.flush();
    expect((await svc.sql`select count(*)::int as n from clicks`)[0]!.n).toBe(before);
  });
});

test('without a trusted proxy X-Forwarded-For is ignored: the socket address (loopback) has no country', async () => {
  const svc = await startService();
  try {
    const campaignId = await campaign(svc, {});
    const partnerId = await partner(svc, 'direct@example.com', [campaignId]);
    const slug = (await svc.api('POST', '/v1/links', { body: { campaignId, partnerId } })).body.slug;
    const { clickId } = await follow(svc, `/r/${slug}`, { 'user-agent': BROWSER_UA, 'x-forwarded-for': '194.25.2.129' });
    expect((await stored(svc, clickId)).country).toBeNull();
  } finally {
    await svc.stop();
  }
}, 60_000);

describe('the pieces', () => {
  test('subOf reads only a well-formed sub', () => {
    expect(subOf('sub=abc&utm_source=x')).toBe('abc');
    expect(subOf('utm_source=x&sub=a%2Eb')).toBe('a.b');
    expect(subOf('sub=a%20b')).toBeNull();
    expect(subOf('nosub=1')).toBeNull();
    expect(subOf('')).toBeNull();
  });
  test('referrerDomain keeps the host of http(s) only, without www.', () => {
    expect(referrerDomain('https://www.example.com/a?b')).toBe('example.com');
    expect(referrerDomain('http://News.Ycombinator.com')).toBe('news.ycombinator.com');
    expect(referrerDomain('ftp://example.com')).toBeNull();
    expect(referrerDomain('not a url')).toBeNull();
    expect(referrerDomain(null)).toBeNull();
  });
});
