// Every list route with and without each of its filters, in both URL forms: an absent filter filters
// nothing, a given one keeps exactly the rows that match it (across pages), and the admin pages'
// filter forms behave the same. The rows are made through the API where a user would make them.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createApp } from '../../src/app';
import { createSession, SESSION_COOKIE } from '../../src/modules/auth/sessions';
import { newId } from '../../src/lib/ids';
import { insertCommission } from '../support/lifecycle-fixtures';
import { startReceiver, type Receiver } from '../support/receiver';
import { startService, type TestService } from '../support/service';
import { LOCAL_RECEIVERS } from '../support/webhooks';

const ADMIN = 'boss@example.com';

let svc: TestService;
let rcv: Receiver;

/** What the test made, as a user would remember it. */
const made = {
  campaigns: [] as { id: string; archived: boolean }[],
  partners: [] as { id: string; email: string }[],
  keys: [] as { id: string; partnerId: string | null }[],
  links: [] as { id: string; partnerId: string; campaignId: string }[],
  commissions: [] as { id: string; eventId: string; partnerId: string; campaignId: string; status: string }[],
  payouts: [] as { id: string; partnerId: string; currency: string; status: string }[],
  endpoints: [] as { id: string; active: boolean }[],
  deliveries: [] as { id: string; status: string; event: string }[],
};
let ann: string;
let bob: string;
let usd: string;
let eur: string;
let hooked: string;

async function ok<T = any>(method: string, path: string, body?: unknown, status = 200): Promise<T> {
  const res = await svc.api(method, path, body === undefined ? {} : { body });
  if (res.status !== status) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

beforeAll(async () => {
  [svc, rcv] = await Promise.all([startService({ ADMIN_EMAILS: ADMIN, ...LOCAL_RECEIVERS }), startReceiver()]);

  const campaign = async (name: string, currency: string, archived = false) => {
    const { id } = await ok('POST', '/v1/campaigns', { name, destinationUrl: 'https://shop.example.com/', currency }, 201);
    if (archived) await ok('PATCH', `/v1/campaigns/${id}`, { archived: true });
    made.campaigns.push({ id, archived });
    return id;
  };
  usd = await campaign('Dollars', 'USD');
  eur = await campaign('Euros', 'EUR');
  await campaign('Old', 'USD', true);

  const partner = async (email: string, campaignIds: string[]) => {
    const { id } = await ok('POST', '/v1/partners', { email, name: email.split('@')[0], sendInvite: false, campaignIds }, 201);
    made.partners.push({ id, email });
    return id;
  };
  ann = await partner('ann@example.com', [usd, eur]);
  bob = await partner('bob@example.com', [usd]);

  for (const partnerId of [ann, bob]) made.keys.push({ id: (await ok('POST', `/v1/partners/${partnerId}/api-keys`, { name: 'k' }, 201)).id, partnerId });
  made.keys.push({ id: (await ok('POST', '/v1/api-keys', { name: 'reader', scopes: ['partners:read'] }, 201)).id, partnerId: null });

  for (const [partnerId, campaignId] of [[ann, usd], [ann, eur], [bob, usd]] as const) {
    made.links.push({ id: (await ok('POST', '/v1/links', { partnerId, campaignId }, 201)).id, partnerId, campaignId });
  }

  // commissions in every status: three approved ones go into payouts (one paid, one failed, one pending)
  const commission = async (partnerId: string, campaignId: string, status: 'accrued' | 'approved') => {
    const id = await insertCommission(svc.sql, { partnerId, campaignId, amount: 1000, currency: campaignId === eur ? 'EUR' : 'USD', status });
    const { eventId } = await ok('GET', `/v1/commissions/${id}`);
    const row = { id, eventId, partnerId, campaignId, status: status as string };
    made.commissions.push(row);
    return row;
  };
  const annUsd = await commission(ann, usd, 'approved');
  const annEur = await commission(ann, eur, 'approved');
  const bobUsd = await commission(bob, usd, 'approved');
  const { payouts } = await ok('POST', '/v1/payouts/run');
  expect(payouts).toHaveLength(3);
  for (const p of payouts) made.payouts.push({ id: p.id, partnerId: p.partnerId, currency: p.currency, status: 'pending' });
  for (const c of [annUsd, annEur, bobUsd]) c.status = 'paid';
  const payoutOf = (partnerId: string, currency: string) => made.payouts.find((p) => p.partnerId === partnerId && p.currency === currency)!;
  await ok('POST', `/v1/payouts/${payoutOf(ann, 'USD').id}/mark-paid`, {});
  payoutOf(ann, 'USD').status = 'paid';
  await ok('POST', `/v1/payouts/${payoutOf(ann, 'EUR').id}/mark-failed`, { reason: 'bounced' });
  payoutOf(ann, 'EUR').status = 'failed';
  annEur.status = 'approved'; // a failed payout releases its commissions
  await commission(ann, usd, 'accrued');
  const approved = await commission(bob, usd, 'accrued');
  await ok('POST', `/v1/commissions/${approved.id}/approve`);
  approved.status = 'approved';
  const reversed = await commission(ann, eur, 'accrued');
  await ok('POST', `/v1/commissions/${reversed.id}/reverse`, { reason: 'refund' });
  reversed.status = 'reversed';

  // endpoints (registered last: nothing above is delivered to them), one paused; deliveries in every status
  for (const active of [true, false]) {
    const { endpoint } = await ok('POST', '/v1/webhooks', { url: `${rcv.url}/hook`, events: ['partner.activated'] }, 201);
    if (!active) await ok('PATCH', `/v1/webhooks/${endpoint.id}`, { active: false });
    made.endpoints.push({ id: endpoint.id, active });
  }
  hooked = made.endpoints[0]!.id;
  const send = async (event?: string) => {
    const d = await ok('POST', `/v1/webhooks/${hooked}/test${event ? `?event=${event}` : ''}`);
    made.deliveries.push({ id: d.id, status: d.status, event: d.event });
  };
  await send();
  await send('partner.created');
  rcv.respond = () => new Response('down', { status: 502 });
  await send();
  // one still waiting in the queue (due in an hour)
  const [envelope] = await svc.sql`select event_id from webhook_deliveries where endpoint_id = ${hooked} limit 1`;
  const queued = newId('event');
  await svc.sql`
    insert into webhook_deliveries (id, endpoint_id, event_id, event, next_attempt_at)
    values (${queued}, ${hooked}, ${envelope!.event_id}, 'webhook.test', now() + interval '1 hour')`;
  made.deliveries.push({ id: queued, status: 'pending', event: 'webhook.test' });
  expect(new Set(made.deliveries.map((d) => d.status))).toEqual(new Set(['pending', 'succeeded', 'failed']));
  expect(new Set(made.commissions.map((c) => c.status))).toEqual(new Set(['accrued', 'approved', 'paid', 'reversed']));
}, 60_000);
afterAll(async () => {
  await svc?.stop();
  await rcv?.stop();
});

/** Every id a list answers, following nextCursor two rows at a time (filters kept on every page). */
async function allIds(path: string, key: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const res: { status: number; body: any } = await svc.api('GET', `${path}${sep}limit=2${cursor ? `&cursor=${cursor}` : ''}`);
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    ids.push(...res.body[key].map((row: { id: string }) => row.id));
    cursor = res.body.nextCursor;
  } while (cursor);
  return ids;
}

const sorted = (ids: string[]) => [...ids].sort();
const idsOf = <T extends { id: string }>(rows: T[], keep: (row: T) => boolean = () => true) => sorted(rows.filter(keep).map((r) => r.id));

type Case = [label: string, path: () => string, key: string, expected: () => string[]];

const CASES: Case[] = [
  ['partners', () => '/partners', 'partners', () => idsOf(made.partners)],
  ['partners by email (any case)', () => '/partners?email=ANN@example.com', 'partners', () => [ann]],
  ['partners by unknown email', () => '/partners?email=nobody@example.com', 'partners', () => []],

  ['api keys', () => '/api-keys', 'apiKeys', () => idsOf(made.keys)],
  ['api keys of a partner', () => `/api-keys?partnerId=${bob}`, 'apiKeys', () => idsOf(made.keys, (k) => k.partnerId === bob)],

  ['events', () => '/events', 'events', () => sorted(made.commissions.map((c) => c.eventId))],

  ['commissions', () => '/commissions', 'commissions', () => idsOf(made.commissions)],
  ...(['accrued', 'approved', 'paid', 'reversed'] as const).map(
    (status): Case => [`commissions ${status}`, () => `/commissions?status=${status}`, 'commissions', () => idsOf(made.commissions, (c) => c.status === status)],
  ),
  ['commissions of a partner', () => `/commissions?partnerId=${ann}`, 'commissions', () => idsOf(made.commissions, (c) => c.partnerId === ann)],
  ['commissions of a campaign', () => `/commissions?campaignId=${eur}`, 'commissions', () => idsOf(made.commissions, (c) => c.campaignId === eur)],
  ['commissions approved of a partner', () => `/commissions?status=approved&partnerId=${bob}`, 'commissions', () =>
    idsOf(made.commissions, (c) => c.status === 'approved' && c.partnerId === bob)],
  ['commissions from the past to the future', () => '/commissions?from=2000-01-01T00:00:00Z&to=2999-01-01T00:00:00Z', 'commissions', () => idsOf(made.commissions)],
  ['commissions from the future', () => '/commissions?from=2999-01-01T00:00:00Z', 'commissions', () => []],

  ['payouts', () => '/payouts', 'payouts', () => idsOf(made.payouts)],
  ...(['pending', 'paid', 'failed'] as const).map(
    (status): Case => [`payouts ${status}`, () => `/payouts?status=${status}`, 'payouts', () => idsOf(made.payouts, (p) => p.status === status)],
  ),
  ['payouts of a partner', () => `/payouts?partnerId=${ann}`, 'payouts', () => idsOf(made.payouts, (p) => p.partnerId === ann)],
  ['payouts in a currency (any case)', () => '/payouts?currency=usd', 'payouts', () => idsOf(made.payouts, (p) => p.currency === 'USD')],

  ['webhook endpoints', () => '/webhooks', 'endpoints', () => idsOf(made.endpoints)],
  ['webhook endpoints active', () => '/webhooks?active=true', 'endpoints', () => idsOf(made.endpoints, (e) => e.active)],
  ['webhook endpoints paused', () => '/webhooks?active=0', 'endpoints', () => idsOf(made.endpoints, (e) => !e.active)],

  ['deliveries', () => `/webhooks/${hooked}/deliveries`, 'deliveries', () => idsOf(made.deliveries)],
  ...(['pending', 'succeeded', 'failed'] as const).map(
    (status): Case => [`deliveries ${status}`, () => `/webhooks/${hooked}/deliveries?status=${status}`, 'deliveries', () => idsOf(made.deliveries, (d) => d.status === status)],
  ),
  ['deliveries of an event type', () => `/webhooks/${hooked}/deliveries?event=partner.created`, 'deliveries', () =>
    idsOf(made.deliveries, (d) => d.event === 'partner.created')],

  ['campaigns', () => '/campaigns', 'campaigns', () => idsOf(made.campaigns)],
  ['campaigns archived', () => '/campaigns?archived=true', 'campaigns', () => idsOf(made.campaigns, (c) => c.archived)],
  ['campaigns live', () => '/campaigns?archived=false', 'campaigns', () => idsOf(made.campaigns, (c) => !c.archived)],

  ['links', () => '/links', 'links', () => idsOf(made.links)],
  ['links of a partner', () => `/links?partnerId=${ann}`, 'links', () => idsOf(made.links, (l) => l.partnerId === ann)],
  ['links of a campaign', () => `/links?campaignId=${usd}`, 'links', () => idsOf(made.links, (l) => l.campaignId === usd)],
];

describe.each(['', '/v1'])('lists at %s/...', (prefix) => {
  test.each(CASES)('%s', async (_label, path, key, expected) => {
    const ids = await allIds(prefix + path(), key);
    expect(ids).toHaveLength(new Set(ids).size);
    expect(sorted(ids)).toEqual(expected());
  });
});

describe('bad filter values', () => {
  test.each<[string, string]>([
    ['/commissions?status=pending', 'status'],
    ['/payouts?status=done', 'status'],
    [`/webhooks/ENDPOINT/deliveries?status=sent`, 'status'],
    ['/campaigns?archived=maybe', 'archived'],
    ['/webhooks?active=yes', 'active'],
  ])('%s is a 400 naming the field and the allowed values', async (path, field) => {
    for (const prefix of ['', '/v1']) {
      const res = await svc.api('GET', prefix + path.replace('ENDPOINT', hooked));
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'invalid_query', details: [{ field, message: expect.stringMatching(/^must be /) }] });
    }
  });

  test('no query parameter of any route has a default (an absent one would be filled in)', () => {
    const withDefault: string[] = [];
    for (const route of createApp(svc.ctx).routes) {
      const query = (route.hooks as { query?: { properties?: Record<string, { default?: unknown }> } }).query;
      for (const [name, schema] of Object.entries(query?.properties ?? {})) {
        if ('default' in schema) withDefault.push(`${route.method} ${route.path} ?${name}`);
      }
    }
    expect(withDefault).toEqual([]);
  });
});

describe('the payouts CSV takes the same filters', () => {
  test.each<[string, string, (p: (typeof made.payouts)[number]) => boolean]>([
    ['no filter', '', () => true],
    ['status=paid', 'status=paid', (p) => p.status === 'paid'],
    ['currency=EUR', 'currency=EUR', (p) => p.currency === 'EUR'],
  ])('%s', async (_label, query, keep) => {
    const res = await fetch(`${svc.url}/v1/payouts.csv?${query}`, { headers: { authorization: `Bearer ${svc.adminKey}` } });
    expect(res.status).toBe(200);
    const ids = (await res.text()).trim().split('\n').slice(1).map((line) => line.split(',')[0]!);
    expect(sorted(ids)).toEqual(idsOf(made.payouts, keep));
  });
});

describe('admin filter forms', () => {
  /** The row ids (data-id) of the admin page's table, as the signed-in admin sees it. */
  async function rowIds(path: string): Promise<string[]> {
    const { token } = await createSession(svc.sql, { kind: 'admin', email: ADMIN });
    const res = await fetch(`${svc.url}${path}`, { headers: { cookie: `${SESSION_COOKIE}=${token}` } });
    expect(res.status).toBe(200);
    return sorted([...(await res.text()).matchAll(/<tr data-id="([^"]+)"/g)].map((m) => m[1]!));
  }

  test.each<[string, () => string, () => string[]]>([
    ['commissions, nothing chosen', () => '/admin/commissions', () => idsOf(made.commissions)],
    ['commissions, every field Any', () => '/admin/commissions?status=&campaignId=&partner=', () => idsOf(made.commissions)],
    ['commissions, status paid', () => '/admin/commissions?status=paid', () => idsOf(made.commissions, (c) => c.status === 'paid')],
    ['commissions, a campaign', () => `/admin/commissions?campaignId=${eur}`, () => idsOf(made.commissions, (c) => c.campaignId === eur)],
    ['payouts, nothing chosen', () => '/admin/payouts', () => idsOf(made.payouts)],
    ['payouts, status Any', () => '/admin/payouts?status=', () => idsOf(made.payouts)],
    ['payouts, status failed', () => '/admin/payouts?status=failed', () => idsOf(made.payouts, (p) => p.status === 'failed')],
  ])('%s', async (_label, path, expected) => {
    expect(await rowIds(path())).toEqual(expected());
  });
});
