// A conversion right after the click: the click may still be in a redirect's write buffer (on this
// replica or another one) when identify and the event arrive, and must be attributed all the same.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startReplica, startService, type Replica, type TestService } from '../support/service';
import { BROWSER_UA } from '../support/chain';
import { campaign, link, partner } from './helpers';

let svc: TestService;
let replica: Replica;
let slug: string;
let ptn: string;
let pk: string;
beforeAll(async () => {
  svc = await startService();
  replica = await startReplica(svc);
  const cmp = await campaign(svc, 'https://shop.example/start');
  ptn = await partner(svc, [cmp]);
  slug = (await link(svc, ptn, cmp, 'fast-conversion')).slug;
  pk = await svc.publishableKey();
  // both services up and listening (link cache, salt, connections, LISTEN)
  for (const [from, to] of [['a', 'b'], ['b', 'a']] as const) {
    await identify(node(to), 'warm-up', [await redirect(node(from))]);
  }
  // clicks stay buffered unless something asks for them: a test cannot pass by the timer's luck
  for (const ctx of [svc.ctx, replica.ctx]) {
    ctx.links.clicks.flushMs = 60_000;
    await ctx.links.clicks.flush(); // and no timer of the warm-up left running
  }
}, 60_000);
afterAll(async () => {
  await replica.stop();
  await svc.stop();
});

type Api = TestService['api'];
type Node = { url: string; api: Api };
const node = (which: 'a' | 'b'): Node => (which === 'a' ? svc : replica);

let users = 0;
const nextUser = () => `fast-user-${++users}`;

/** A visitor follows the share link on `on`; answers the click id of the 302. */
async function redirect(on: Node): Promise<string> {
  const res = await fetch(`${on.url}/r/${slug}`, { redirect: 'manual', headers: { 'user-agent': BROWSER_UA } });
  expect(res.status).toBe(302);
  return new URL(res.headers.get('location')!).searchParams.get('pp_click')!;
}

async function clickApi(on: Node): Promise<string> {
  const res = await on.api('POST', '/v1/clicks', { key: pk, body: { slug, userAgent: BROWSER_UA } });
  expect(res.status).toBe(201);
  return res.body.clickId;
}

async function identify(on: Node, userId: string, clickIds: string[]) {
  const res = await on.api('POST', '/v1/identify', { key: pk, body: { userId, clickIds } });
  expect(res.status).toBe(200);
}

/** POST /v1/events, then what was recorded for it: its attribution status and credited clicks. */
async function recordEvent(on: Node, userId: string) {
  const res = await on.api('POST', '/v1/events', { body: { userId, type: 'signup' } });
  expect(res.status).toBe(201);
  const [event] = await svc.sql`select attribution_status from events where id = ${res.body.id}`;
  const credited = await svc.sql`select click_id, partner_id from attributions where event_id = ${res.body.id}`;
  return { status: event!.attribution_status as string, credited: credited.map((r) => ({ clickId: r.click_id, partnerId: r.partner_id })) };
}

describe('one service', () => {
  test('a redirect followed at once by identify and POST /v1/events is attributed', async () => {
    const user = nextUser();
    const clickId = await redirect(node('a'));
    await identify(node('a'), user, [clickId]);
    expect(await recordEvent(node('a'), user)).toEqual({ status: 'attributed', credited: [{ clickId, partnerId: ptn }] });
  });

  test('POST /v1/clicks followed at once by identify and POST /attribution/events is attributed', async () => {
    const user = nextUser();
    const clickId = await clickApi(node('a'));
    await identify(node('a'), user, [clickId]);
    const res = await svc.api('POST', '/attribution/events', { body: { userId: user, type: 'signup' } });
    expect(res.status).toBe(201);
    expect(res.body.attribution.status).toBe('attributed');
    expect(res.body.attribution.touches.map((t: { clickId: string }) => t.clickId)).toEqual([clickId]);
  });
});

describe('two replicas on one database', () => {
  test('a redirect on replica A, identify and the event on replica B at once: attributed', async () => {
    const user = nextUser();
    const clickId = await redirect(node('a'));
    await identify(node('b'), user, [clickId]);
    expect(await recordEvent(node('b'), user)).toEqual({ status: 'attributed', credited: [{ clickId, partnerId: ptn }] });
  });

  test('POST /v1/clicks on replica B, identify on A, the event on B: attributed', async () => {
    const user = nextUser();
    const clickId = await clickApi(node('b'));
    await identify(node('a'), user, [clickId]);
    expect(await recordEvent(node('b'), user)).toEqual({ status: 'attributed', credited: [{ clickId, partnerId: ptn }] });
  });

  test('clicks on both replicas, identified together on one of them: every one counts', async () => {
    await svc.api('PATCH', '/v1/settings', { body: { attributionModel: 'linear' } });
    try {
      const user = nextUser();
      const clicks = [await redirect(node('a')), await redirect(node('b')), await clickApi(node('a'))];
      await identify(node('b'), user, clicks);
      const recorded = await recordEvent(node('a'), user);
      expect(recorded.status).toBe('attributed');
      expect(recorded.credited.map((c) => c.clickId).sort()).toEqual([...clicks].sort());
    } finally {
      await svc.api('PATCH', '/v1/settings', { body: { attributionModel: 'last_click' } });
    }
  });
});

describe('click ids identify cannot find', () => {
  test('an unknown id (old or recent) is still joined, and identify answers', async () => {
    const user = nextUser();
    const old = 'clk_01h00000000000000000000000'; // 2023: never waited for
    const recent = (await redirect(node('a'))).replace(/.{6}$/, '000000'); // made just now, but by nobody
    await identify(node('b'), user, [old, recent]);
    const rows = await svc.sql`select click_id from identity_clicks where user_id = ${user} order by click_id`;
    expect(rows.map((r) => r.click_id)).toEqual([old, recent].sort());
    expect(await recordEvent(node('b'), user)).toEqual({ status: 'no_click', credited: [] });
  });
});
