// Every list's order agrees with its createdAt: rows made many at once (requests racing for the
// database pool, transactions committing out of order) and rows written by a replica whose clock
// lags come back newest first by createdAt on every page, and the cursors hand out every row once.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { idTime, newId } from '../../src/lib/ids';
import { referredUser } from '../support/chain';
import { insertCommission } from '../support/lifecycle-fixtures';
import { startReceiver, type Receiver } from '../support/receiver';
import { startService, type TestService } from '../support/service';
import { LOCAL_RECEIVERS } from '../support/webhooks';

const MANY = 50;

let svc: TestService;
let rcv: Receiver;
/** The ids each list should answer, as the creating calls answered them. */
const made = {
  partners: [] as string[],
  apiKeys: [] as string[],
  events: [] as string[],
  commissions: [] as string[],
  payouts: [] as string[],
  endpoints: [] as string[],
  deliveries: [] as string[],
  campaigns: [] as string[],
  links: [] as string[],
};
let hooked: string;

async function created(method: string, path: string, body?: unknown): Promise<any> {
  const res = await svc.api(method, path, body === undefined ? {} : { body });
  if (res.status !== 201 && res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** `n` calls at once. */
const many = <T>(n: number, call: (i: number) => Promise<T>) => Promise.all(Array.from({ length: n }, (_, i) => call(i)));

beforeAll(async () => {
  [svc, rcv] = await Promise.all([startService(LOCAL_RECEIVERS), startReceiver()]);

  // an endpoint for every event: each creation below also writes a delivery in its transaction
  const { endpoint } = await created('POST', '/v1/webhooks', { url: `${rcv.url}/all`, events: ['*'] });
  hooked = endpoint.id;
  const others = await many(MANY / 2, () => created('POST', '/v1/webhooks', { url: `${rcv.url}/quiet`, events: ['partner.activated'] }));
  made.endpoints = [hooked, ...others.map((r) => r.endpoint.id)];

  made.campaigns = (await many(MANY / 2, (i) => created('POST', '/v1/campaigns', { name: `C${i}`, destinationUrl: 'https://shop.example.com/', currency: 'USD' }))).map((c) => c.id);
  made.partners = (
    await many(MANY, (i) => created('POST', '/v1/partners', { email: `p${i}@example.com`, name: `P${i}`, sendInvite: false, campaignIds: made.campaigns }))
  ).map((p) => p.id);
  // another replica, whose clock runs five minutes behind, writes partners meanwhile
  for (let i = 0; i < 5; i++) {
    const id = newId('partner', Date.now() - 5 * 60_000 + i);
    await svc.sql`insert into partners (id, email, name) values (${id}, ${`lagging${i}@example.com`}, 'Lagging')`;
    made.partners.push(id);
  }
  made.apiKeys = (await many(MANY, (i) => created('POST', '/v1/api-keys', { name: `K${i}`, scopes: ['partners:read'] }))).map((k) => k.id);
  made.links = (
    await many(MANY, (i) => created('POST', '/v1/links', { partnerId: made.partners[i % MANY]!, campaignId: made.campaigns[i % made.campaigns.length]! }))
  ).map((l) => l.id);

  // referred customers paying at once (each customer's events queue behind one another)
  const rules = [{ eventType: 'invoice_paid', kind: 'percent', percent: 10 }];
  const users = await Promise.all(['u1', 'u2', 'u3'].map((userId) => referredUser(svc, { rules, userId })));
  made.partners.push(...users.map((u) => u.partnerId));
  made.campaigns.push(...users.map((u) => u.campaignId));
  made.links.push(...(await svc.sql`select id from links where partner_id = any(${users.map((u) => u.partnerId)})`).map((r) => r.id as string));
  made.apiKeys.push(...(await svc.sql`select id from api_keys where kind = 'publishable'`).map((r) => r.id as string)); // identify's
  made.events = (await many(MANY, (i) => created('POST', '/v1/events', { userId: users[i % 3]!.userId, type: 'invoice_paid', amount: 1000 + i, currency: 'USD' }))).map((e) => e.id);
  made.commissions = (await svc.sql`select id from commissions where event_id = any(${made.events})`).map((r) => r.id as string);
  expect(made.commissions).toHaveLength(MANY);

  // a payout for each of the partners, from an approved commission each (with its own event)
  const approved = await many(MANY, (i) => insertCommission(svc.sql, { partnerId: made.partners[i]!, campaignId: made.campaigns[0]!, amount: 500, status: 'approved' }));
  made.commissions.push(...approved);
  made.events.push(...(await svc.sql`select event_id from commissions where id = any(${approved})`).map((r) => r.event_id as string));
  made.payouts = (await created('POST', '/v1/payouts/run')).payouts.map((p: { id: string }) => p.id);
  expect(made.payouts).toHaveLength(MANY);

  made.deliveries = (await svc.sql`select id from webhook_deliveries where endpoint_id = ${hooked}`).map((r) => r.id as string);
  expect(made.deliveries.length).toBeGreaterThan(MANY);
}, 120_000);
afterAll(async () => {
  await svc?.stop();
  await rcv?.stop();
});

test.each<[string, () => string, keyof typeof made]>([
  ['partners', () => '/v1/partners', 'partners'],
  ['api keys', () => '/v1/api-keys', 'apiKeys'],
  ['events', () => '/v1/events', 'events'],
  ['commissions', () => '/v1/commissions', 'commissions'],
  ['payouts', () => '/v1/payouts', 'payouts'],
  ['webhook endpoints', () => '/v1/webhooks', 'endpoints'],
  ['deliveries', () => `/v1/webhooks/${hooked}/deliveries`, 'deliveries'],
  ['campaigns', () => '/v1/campaigns', 'campaigns'],
  ['links', () => '/v1/links', 'links'],
])('%s: newest first by createdAt on every page, every row once', async (_label, path, key) => {
  const seen: { id: string; createdAt: string }[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res: { status: number; body: any } = await svc.api('GET', `${path()}?limit=7${cursor ? `&cursor=${cursor}` : ''}`);
    expect(res.status).toBe(200);
    const page: { id: string; createdAt: string }[] = res.body[key];
    const times = page.map((row) => Date.parse(row.createdAt));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    seen.push(...page);
    cursor = res.body.nextCursor;
    pages++;
  } while (cursor);
  expect(pages).toBeGreaterThan(3);
  // across pages too: the first row of a page is not newer than the last of the one before
  const times = seen.map((row) => Date.parse(row.createdAt));
  expect(times).toEqual([...times].sort((a, b) => b - a));
  const ids = seen.map((row) => row.id);
  expect(new Set(ids).size).toBe(ids.length);
  expect([...ids].sort()).toEqual([...made[key]].sort());
  // createdAt is the moment the id records
  expect(seen.filter((row) => row.createdAt !== idTime(row.id).toISOString())).toEqual([]);
});
