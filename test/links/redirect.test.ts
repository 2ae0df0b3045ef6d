import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sha256 } from '../../src/lib/crypto';
import { MAX_IN_FLIGHT, MAX_WAIT_MS, OVERLOAD_AGE_MS } from '../../src/modules/links/buffer';
import { eventually } from '../support/eventually';
import { startService, type TestService } from '../support/service';
import { campaign, link, partner } from './helpers';

let svc: TestService;
beforeAll(async () => {
  svc = await startService();
}, 60_000);
afterAll(() => svc.stop());

const follow = (url: string, headers: Record<string, string> = {}) => fetch(url, { redirect: 'manual', headers });
const clickOf = (location: string) => new URL(location).searchParams.get('pp_click');

describe('GET /r/:slug', () => {
  test('302 to the destination with pp_click added, its query and fragment kept; the buffer writes the click by itself', async () => {
    const cmp = await campaign(svc, 'https://shop.example/landing?ref=partner&x=a%20b#plans');
    const ptn = await partner(svc, [cmp]);
    const l = await link(svc, ptn, cmp);
    const res = await follow(l.url, { 'user-agent': 'Mozilla/5.0 Test', referer: 'https://blog.example/post' });
    expect(res.status).toBe(302);
    expect(res.headers.get('cache-control')).toContain('no-store');
    const location = res.headers.get('location')!;
    const clickId = clickOf(location)!;
    expect(clickId).toMatch(/^clk_[0-9a-z]{26}$/);
    expect(location).toBe(`https://shop.example/landing?ref=partner&x=a%20b&pp_click=${clickId}#plans`);

    // no flush asked for: the buffer's timer writes it (how soon is measured by bench/redirect.ts)
    const row = await eventually(async () => {
      const [row] = await svc.sql`select link_id, partner_id, campaign_id, ip_hash, user_agent, referrer, created_at from clicks where id = ${clickId}`;
      expect(row).toBeDefined();
      return row!;
    });
    expect(row).toMatchObject({
      link_id: l.id,
      partner_id: ptn,
      campaign_id: cmp,
      user_agent: 'Mozilla/5.0 Test',
      referrer: 'https://blog.example/post',
    });
    // hashed with the install's salt, never the raw address
    const [{ click_salt }] = (await svc.sql`select click_salt from settings`) as unknown as [{ click_salt: string }];
    expect(row.ip_hash).toBe(sha256(`${click_salt}:127.0.0.1`));
    expect(row.ip_hash).not.toContain('127.0.0.1');
  });

  test('destinations without a query get ?pp_click; the share link\'s own query is passed on', async () => {
    const cmp = await campaign(svc, 'https://shop.example/');
    const l = await link(svc, await partner(svc, [cmp]), cmp);
    const plain = (await follow(l.url)).headers.get('location')!;
    expect(plain).toBe(`https://shop.example/?pp_click=${clickOf(plain)}`);
    const utm = (await follow(`${l.url}?utm_source=news&utm_medium=mail&pp_click=clk_forged`)).headers.get('location')!;
    expect(utm).toBe(`https://shop.example/?utm_source=news&utm_medium=mail&pp_click=${clickOf(utm)}`);
    expect(clickOf(utm)).toMatch(/^clk_[0-9a-z]{26}$/);
  });

  test('slugs match in any case', async () => {
    const cmp = await campaign(svc);
    const l = await link(svc, await partner(svc, [cmp]), cmp, 'CaseMix');
    expect((await follow(`${svc.url}/r/casemix`)).status).toBe(302);
    expect((await follow(`${svc.url}/r/CASEMIX`)).status).toBe(302);
    expect((await follow(l.url)).status).toBe(302);
  });

  test('an unknown slug is a small HTML 404 page; so is a malformed one; no auth is needed and /v1/r does not exist', async () => {
    for (const path of ['/r/unknown-slug', '/r/x', '/r/%3Cscript%3E']) {
      const res = await follow(svc.url + path);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toContain('text/html');
      const html = await res.text();
      expect(html).toContain('Link not found');
      expect(html).not.toContain('<script>');
    }
    const cmp = await campaign(svc);
    const l = await link(svc, await partner(svc, [cmp]), cmp);
    const v1 = await follow(`${svc.url}/v1/r/${l.slug}`);
    expect(v1.status).toBe(404);
  });

  test('when the database cannot be asked, an uncached link answers a 503 page, not a JSON error', async () => {
    await svc.sql`alter table links rename to links_away`;
    try {
      const res = await follow(`${svc.url}/r/not-cached-yet`);
      expect(res.status).toBe(503);
      expect(res.headers.get('content-type')).toContain('text/html');
      expect(res.headers.get('retry-after')).toBe('30');
    } finally {
      await svc.sql`alter table links_away rename to links`;
    }
  });

  test('a link created after its slug was looked up (and missed) works at once', async () => {
    expect((await follow(`${svc.url}/r/later-slug`)).status).toBe(404);
    const cmp = await campaign(svc);
    await link(svc, await partner(svc, [cmp]), cmp, 'later-slug');
    expect((await follow(`${svc.url}/r/later-slug`)).status).toBe(302);
  });

  test('a revoked partner\'s link redirects without pp_click and records nothing; reinstating records again', async () => {
    const cmp = await campaign(svc, 'https://shop.example/p?a=1');
    const ptn = await partner(svc, [cmp]);
    const l = await link(svc, ptn, cmp);
    const before = (await follow(l.url)).headers.get('location')!; // now cached
    expect(clickOf(before)).not.toBeNull();

    expect((await svc.api('POST', `/v1/partners/${ptn}/revoke`, { body: {} })).status).toBe(200);
    const revoked = await follow(l.url);
    expect(revoked.status).toBe(302);
    expect(revoked.headers.get('location')).toBe('https://shop.example/p?a=1');

    await svc.api('POST', `/v1/partners/${ptn}/reinstate`);
    const after = (await follow(l.url)).headers.get('location')!;
    expect(clickOf(after)).not.toBeNull();
    await svc.ctx.links.clicks.flush();
    const ids = (await svc.sql`select id from clicks where link_id = ${l.id} order by id`).map((r) => r.id);
    expect(ids).toEqual([clickOf(before), clickOf(after)]);
  });

  test('a revoke made outside this process (another replica) reaches the cache through NOTIFY', async () => {
    const cmp = await campaign(svc);
    const ptn = await partner(svc, [cmp]);
    const l = await link(svc, ptn, cmp);
    expect(clickOf((await follow(l.url)).headers.get('location')!)).not.toBeNull();
    await svc.sql`update partners set revoked_at = now() where id = ${ptn}`;
    // the NOTIFY reaches the cache's LISTEN connection on its own time
    await eventually(async () => expect(clickOf((await follow(l.url)).headers.get('location')!)).toBeNull());
  });

  test('changing a campaign destination applies to cached links at once', async () => {
    const cmp = await campaign(svc, 'https://old.example/');
    const l = await link(svc, await partner(svc, [cmp]), cmp);
    expect((await follow(l.url)).headers.get('location')).toStartWith('https://old.example/?pp_click=');
    await svc.api('PATCH', `/v1/campaigns/${cmp}`, { body: { destinationUrl: 'https://new.example/welcome' } });
    expect((await follow(l.url)).headers.get('location')).toStartWith('https://new.example/welcome?pp_click=');
  });

  test('an archived campaign\'s links keep redirecting and recording clicks', async () => {
    const cmp = await campaign(svc);
    const l = await link(svc, await partner(svc, [cmp]), cmp);
    await svc.api('PATCH', `/v1/campaigns/${cmp}`, { body: { archived: true } });
    expect(clickOf((await follow(l.url)).headers.get('location')!)).not.toBeNull();
  });

  test('many clicks at once all land, in multi-row batches', async () => {
    const cmp = await campaign(svc);
    const l = await link(svc, await partner(svc, [cmp]), cmp);
    const locations = await Promise.all(Array.from({ length: 300 }, () => follow(l.url).then((r) => r.headers.get('location')!)));
    const ids = new Set(locations.map(clickOf));
    expect(ids.size).toBe(300);
    await svc.ctx.links.clicks.flush();
    const [{ count }] = (await svc.sql`select count(*)::int as count from clicks where link_id = ${l.id}`) as unknown as [{ count: number }];
    expect(count).toBe(300);
  });

  test('a failed flush keeps the clicks and writes them once the database takes them again', async () => {
    const cmp = await campaign(svc);
    const l = await link(svc, await partner(svc, [cmp]), cmp);
    await follow(l.url); // cache the link while the table is there
    await svc.sql`alter table clicks rename to clicks_away`;
    let clickId: string | null;
    try {
      clickId = clickOf((await follow(l.url)).headers.get('location')!);
      await expect(svc.ctx.links.clicks.flush()).rejects.toThrow('click flush failed');
      expect(await svc.sql`select id from clicks_away where id = ${clickId}`).toHaveLength(0);
    } finally {
      await svc.sql`alter table clicks_away rename to clicks`;
    }
    // nobody flushes again: the buffer's own retry writes it
    await eventually(async () => expect(await svc.sql`select id from clicks where id = ${clickId}`).toHaveLength(1));
  });
});

describe('overload', () => {
  test('when inserts cannot keep up, redirects wait for the backlog instead of piling clicks up', async () => {
    const cmp = await campaign(svc);
    const l = await link(svc, await partner(svc, [cmp]), cmp);
    await follow(l.url); // cached
    await svc.ctx.links.clicks.flush();
    const clicks = svc.ctx.links.clicks;
    const writtenBefore = clicks.written;
    const stuckInserts = async () =>
      (await svc.sql`
        select count(*)::int as n from pg_stat_activity
        where datname = current_database() and wait_event_type = 'Lock' and query like '%insert into clicks%'`)[0]!.n;
    // a held lock makes every insert wait
    const locker = await svc.sql.reserve();
    await locker`begin`;
    await locker`lock table clicks in exclusive mode`;
    let waited: Promise<{ status: number; clickId: string | null; pending: number; written: number; ms: number }>;
    try {
      // clicks, each taken out of memory by an insert that then waits, as many as may run at once
      for (let i = 0; i < MAX_IN_FLIGHT; i++) {
        expect((await follow(l.url)).status).toBe(302);
        await eventually(() => expect(clicks.size).toBe(0));
      }
      await eventually(async () => expect(await stuckInserts()).toBe(MAX_IN_FLIGHT));
      // the next stays in memory, and only becomes a backlog by getting old: a real wait, part of
      // the scenario, until the buffer itself says its oldest click has waited that long
      expect((await follow(l.url)).status).toBe(302);
      expect(clicks.size).toBe(1);
      await eventually(() => expect(clicks.oldestWaitMs()).toBeGreaterThanOrEqual(OVERLOAD_AGE_MS), { interval: 10 });

      const sent = performance.now();
      waited = follow(l.url).then((res) => ({
        status: res.status,
        clickId: clickOf(res.headers.get('location')!),
        // the buffer as it was when the answer came
        pending: clicks.size,
        written: clicks.written - writtenBefore,
        ms: performance.now() - sent,
      }));
      // its click joined the backlog, which stays stuck until the lock goes
      await eventually(() => expect(clicks.size).toBe(2));
      expect(clicks.written - writtenBefore).toBe(0);
    } finally {
      await locker`commit`;
      locker.release();
    }
    const answer = await waited!;
    expect(answer.status).toBe(302);
    // it answered only once inserts went through again and no click was left waiting in memory.
    // (A redirect waits MAX_WAIT_MS at most: only a machine stalled that long between the lines
    // above would see that limit answer first, which is not held against it.)
    if (answer.ms < MAX_WAIT_MS) {
      expect(answer.pending).toBe(0);
      expect(answer.written).toBeGreaterThan(0);
    }
    await svc.ctx.links.clicks.flush();
    expect(await svc.sql`select 1 from clicks where id = ${answer.clickId}`).toHaveLength(1);
    expect(await svc.sql`select 1 from clicks where link_id = ${l.id}`).toHaveLength(MAX_IN_FLIGHT + 3);
  });
});

describe('TRUST_PROXY', () => {
  test('with one trusted proxy the last X-Forwarded-For address is hashed', async () => {
    const proxied = await startService({ TRUST_PROXY: '1' });
    try {
      const cmp = await campaign(proxied);
      const l = await link(proxied, await partner(proxied, [cmp]), cmp);
      const res = await follow(l.url, { 'x-forwarded-for': '10.9.9.9, 203.0.113.7' });
      const clickId = clickOf(res.headers.get('location')!);
      await proxied.ctx.links.clicks.flush();
      const [row] = await proxied.sql`select ip_hash from clicks where id = ${clickId}`;
      const [{ click_salt }] = (await proxied.sql`select click_salt from settings`) as unknown as [{ click_salt: string }];
      expect(row!.ip_hash).toBe(sha256(`${click_salt}:203.0.113.7`));
    } finally {
      await proxied.stop();
    }
  });

  test('without it X-Forwarded-For is ignored', async () => {
    const cmp = await campaign(svc);
    const l = await link(svc, await partner(svc, [cmp]), cmp);
    const clickId = clickOf((await follow(l.url, { 'x-forwarded-for': '203.0.113.7' })).headers.get('location')!);
    await svc.ctx.links.clicks.flush();
    const [row] = await svc.sql`select ip_hash from clicks where id = ${clickId}`;
    const [{ click_salt }] = (await svc.sql`select click_salt from settings`) as unknown as [{ click_salt: string }];
    expect(row!.ip_hash).toBe(sha256(`${click_salt}:127.0.0.1`));
  });
});
