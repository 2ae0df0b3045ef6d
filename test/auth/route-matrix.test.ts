// The security matrix, built from the app's own route table (app.routes): every API route the app
// serves is called by every kind of caller, and each answer must be what the route's rule allows,
// as authorize() in modules/auth/plugin.ts reads it. The rules are written down here (RULES) and
// must equal what each route declares (the auth macro's detail['x-auth']); a route with no rule
// must be on the public allow-list. So a new route cannot skip authentication, nor this matrix,
// and a rule cannot loosen without this file changing too.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { createApp } from '../../src/app';
import { createApiKey } from '../../src/modules/auth/keys';
import { securityOf, type AuthRule } from '../../src/modules/auth/plugin';
import { SCOPES, type Scope } from '../../src/modules/auth/scopes';
import { apiRoles, pageRoles, roleAllows, ROLES, type Role } from '../../src/modules/auth/roles';
import { insertCommission } from '../support/lifecycle-fixtures';
import { startReceiver, type Receiver } from '../support/receiver';
import { startService, type ApiResponse, type TestService } from '../support/service';
import { LOCAL_RECEIVERS } from '../support/webhooks';

// about 1,700 calls in one test; a loaded machine is slow, not broken
setDefaultTimeout(300_000);

const ADMIN_EMAIL = 'admin@operator.example';

/**
 * Routes that need no credentials, each for a reason: sign-in, operations, documents, share links
 * and their browser client, static files, CORS preflights, and a provider webhook (its signature is
 * the credential). The /admin and /portal pages check their own session (test/web/*.security.test.ts).
 */
const PUBLIC_ROUTES = new Set([
  // the start page: links to the admin, the portal and the docs
  'GET /',
  'POST /auth/magic-link',
  'POST /auth/signup',
  'GET /auth/magic',
  'POST /auth/logout',
  // single sign-on: the provider's answer and the browser's state cookie are the credential (test/team/sso.test.ts)
  'GET /auth/oidc/start',
  'GET /auth/oidc/callback',
  'GET /healthz',
  'GET /readyz',
  'GET /metrics',
  'GET /openapi.json',
  'GET /docs',
  'GET /assets/swagger-ui.js',
  'GET /assets/swagger-ui.css',
  'GET /assets/docs.js',
  'GET /assets/docs.css',
  'GET /assets/:name',
  'GET /favicon.ico',
  'GET /brand.css',
  'GET /unsubscribe',
  // the embedded referral page: its signed token is the credential (test/embed/tokens.test.ts)
  'GET /embed',
  'POST /unsubscribe',
  'GET /r/:slug',
  'GET /client.js',
  'OPTIONS /clicks',
  'OPTIONS /v1/clicks',
  'OPTIONS /identify',
  'OPTIONS /v1/identify',
  'POST /webhooks/stripe',
  'POST /v1/webhooks/stripe',
  'POST /webhooks/paddle',
  'POST /v1/webhooks/paddle',
  'POST /webhooks/lemonsqueezy',
  'POST /v1/webhooks/lemonsqueezy',
]);
const PAGES = /^\/(admin|portal)(\/|$)/;
/** The pages anyone may open: signing in and up. Every other page wants its own kind of session. */
const PUBLIC_PAGES = new Set(['GET /admin/sign-in', 'POST /admin/sign-in', 'GET /portal/sign-in', 'POST /portal/sign-in', 'GET /portal/sign-up', 'POST /portal/sign-up']);

const P = { partner: true } as const;
/**
 * Who may call each API route (served unprefixed and under /v1): the contract this matrix holds the
 * app to. A route's declared rule must be the one written here, so a rule cannot change, nor a route
 * appear, without this table changing with it; and the calls below are judged by this table.
 */
const RULES: Record<string, AuthRule> = {
  'POST /partners': 'partners:write',
  'GET /partners': 'partners:read',
  'GET /partners/:id': { scope: 'partners:read', ...P },
  'PATCH /partners/:id': { scope: 'partners:write', ...P },
  'POST /partners/:id/invite': 'admin',
  'POST /partners/:id/revoke': 'partners:write',
  'DELETE /partners/:id': 'admin',
  'POST /partners/:id/reinstate': 'partners:write',
  'POST /partners/:id/approve': 'partners:write',
  'POST /partners/:id/decline': 'partners:write',
  'GET /partners/:id/commission-snapshot': { scope: 'partners:read', ...P },
  'POST /partners/:id/api-keys': 'admin',
  'POST /api-keys': 'admin',
  'GET /api-keys': 'admin',
  'DELETE /api-keys/:id': 'admin',
  'POST /events': 'events:write',
  'POST /attribution/events': 'events:write',
  'POST /events/batch': 'events:write',
  'GET /events': { scope: 'events:read', ...P },
  'GET /commissions': { scope: 'commissions:read', ...P },
  'GET /commissions/:id': { scope: 'commissions:read', ...P },
  'GET /commissions/:id/history': { scope: 'commissions:read', ...P },
  'POST /commissions/:id/approve': 'commissions:write',
  'POST /commissions/:id/reverse': 'commissions:write',
  'POST /payouts/run': 'payouts:write',
  'GET /payouts': { scope: 'payouts:read', ...P },
  'GET /payouts.csv': { scope: 'payouts:read', ...P },
  'GET /payouts/:id': { scope: 'payouts:read', ...P },
  'POST /payouts/:id/mark-paid': 'payouts:write',
  'POST /payouts/:id/mark-failed': 'payouts:write',
  'POST /payouts/settle': 'payouts:write',
  'GET /partners/:id/payout-method': { scope: 'partners:read', ...P },
  'PUT /partners/:id/payout-method': { scope: 'partners:write', ...P },
  'GET /partners/:id/tax-profile': { scope: 'partners:read', ...P },
  'PUT /partners/:id/tax-profile': { scope: 'partners:write', ...P },
  'GET /tax/1099-nec.csv': 'tax:read',
  'GET /payouts/:id/invoice.pdf': { scope: 'payouts:read', ...P },
  'POST /webhooks': 'admin',
  'GET /webhooks': 'webhooks:read',
  'GET /webhooks/:id': 'webhooks:read',
  'PATCH /webhooks/:id': 'webhooks:write',
  'DELETE /webhooks/:id': 'webhooks:write',
  'GET /webhooks/:id/deliveries': 'webhooks:read',
  'GET /webhooks/:id/deliveries/:deliveryId': 'webhooks:read',
  'POST /webhooks/:id/test': 'webhooks:write',
  'POST /webhooks/:id/deliveries/:deliveryId/retry': 'webhooks:write',
  'POST /webhooks/:id/rotate-secret': 'webhooks:write',
  'POST /campaigns': 'campaigns:write',
  'GET /campaigns': { scope: 'campaigns:read', ...P },
  'GET /campaigns/:id': { scope: 'campaigns:read', ...P },
  'PATCH /campaigns/:id': 'campaigns:write',
  'POST /campaigns/:id/preview': 'campaigns:write',
  'POST /groups': 'campaigns:write',
  'GET /groups': 'campaigns:read',
  'GET /groups/:id': 'campaigns:read',
  'PATCH /groups/:id': 'campaigns:write',
  'POST /codes': { scope: 'campaigns:write', ...P },
  'GET /codes': { scope: 'campaigns:read', ...P },
  'GET /codes/:id': { scope: 'campaigns:read', ...P },
  'PATCH /codes/:id': 'campaigns:write',
  'GET /settings': 'admin',
  'PATCH /settings': 'admin',
  'PUT /fx-rates': 'admin',
  'POST /links': { scope: 'links:write', ...P },
  // there is no links:read scope: links are partner data
  'GET /links': { scope: 'partners:read', ...P },
  'GET /links/:id/qr.svg': { scope: 'partners:read', ...P },
  'GET /links/:id/qr.png': { scope: 'partners:read', ...P },
  'POST /clicks': { scope: 'events:write', publishable: true },
  'POST /identify': { scope: 'events:write', publishable: true },
  // resources have no scope of their own: they are campaign material
  'POST /resources': 'campaigns:write',
  'GET /resources': { scope: 'campaigns:read', ...P },
  'GET /resources/:id/file': { scope: 'campaigns:read', ...P },
  'DELETE /resources/:id': 'campaigns:write',
  // moving a whole program in: the admin alone
  'POST /imports': 'admin',
  // the operator's backend mints embedded pages; a partner may not, not even its own
  'POST /embed-tokens': 'partners:write',
  // the team: the admin key or an owner's session (the role table narrows 'admin' to owners)
  'GET /team': 'admin',
  'POST /team': 'admin',
  'PATCH /team/:id': 'admin',
  'DELETE /team/:id': 'admin',
  // who changed what: the admin key or session, or a key given audit:read
  'GET /audit-log': 'audit:read',
};

/** The route's name in RULES, BODIES and QUERIES: without the /v1 prefix. */
const nameOf = (route: { method: string; path: string }) => `${route.method} ${route.path.replace(/^\/v1(?=\/)/, '')}`;

/** A served route: its declared rule (detail['x-auth']) and the rule RULES gives it. */
type Route = { method: string; path: string; declared: AuthRule | undefined; rule: AuthRule | undefined; security: unknown };

let svc: TestService;
let receiver: Receiver;
let routes: Route[];

// the partner whose data the calls name, another partner, and what they own
let owner: string;
let otherPartner: string;
let campaignId: string;
let commissionId: string;
let payoutId: string;
let endpointId: string;
let deliveryId: string;
let resourceId: string;
let linkId: string;
let apiKeyId: string;
let eventId: string;
let slug: string;
let codeId: string;
let groupId: string;
let memberId: string;

// the callers' credentials
let ownerKey: string;
let otherKey: string;
let publishableKey: string;
let revokedAdminKey: string;
let revokedScopedKey: string;
let revokedPartnerKey: string;
let ownerSession: string;
let endedSession: string;
let adminSession: string;
/** A signed-in team member of each role; the owner is the ADMIN_EMAILS admin. */
const roleSessions = new Map<Role, string>();
const scopedKeys = new Map<string, string>();

/** A scoped key holding exactly `scopes` (made once per set). */
async function scopedKey(scopes: readonly Scope[]): Promise<string> {
  const name = [...scopes].sort().join(',');
  let key = scopedKeys.get(name);
  if (!key) scopedKeys.set(name, (key = await svc.scopedKey([...scopes])));
  return key;
}

/** Signs `email` in through a magic link, as a browser would; answers the session cookie. */
async function signIn(email: string): Promise<string> {
  const before = svc.mail.messages.length;
  expect((await svc.api('POST', '/auth/magic-link', { key: null, body: { email } })).status).toBe(202);
  const link = await svc.mail.magicLink(email, (m) => svc.mail.messages.indexOf(m) >= before);
  const res = await fetch(link, { redirect: 'manual' });
  expect(res.status).toBe(302);
  const cookie = res.headers.get('set-cookie')!.split(';')[0]!;
  expect(cookie).toMatch(/^partnerd_session=./);
  return cookie;
}

async function created<T = any>(res: Promise<ApiResponse<T>>): Promise<T> {
  const answer = await res;
  if (answer.status >= 300) throw new Error(`fixture: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
}

const newEndpoint = async () => (await created(svc.api('POST', '/v1/webhooks', { body: { url: `${receiver.url}/hook`, events: ['*'] } }))).endpoint.id as string;
const newDelivery = async (endpoint: string) => (await created(svc.api('POST', `/v1/webhooks/${endpoint}/test`))).id as string;

// a second payout run while one is under way is refused (409): every run here, fixture or route
// under test, waits for the one before
let payoutQueue: Promise<unknown> = Promise.resolve();
function oneRunAtATime<T>(run: () => Promise<T>): Promise<T> {
  const next = payoutQueue.then(run);
  payoutQueue = next.catch(() => undefined);
  return next;
}

const newPayout = () =>
  oneRunAtATime(async () => {
    await insertCommission(svc.sql, { partnerId: owner, campaignId, amount: 1000, status: 'approved' });
    const run = await created(svc.api('POST', '/v1/payouts/run'));
    return run.payouts.find((p: { partnerId: string }) => p.partnerId === owner).id as string;
  });

beforeAll(async () => {
  receiver = await startReceiver();
  svc = await startService({ ...LOCAL_RECEIVERS, ADMIN_EMAILS: ADMIN_EMAIL, STRIPE_WEBHOOK_SECRET: 'whsec_matrix', PADDLE_WEBHOOK_SECRET: 'pdl_ntfset_matrix', LEMONSQUEEZY_WEBHOOK_SECRET: 'lsq_matrix',
    // the matrix sets the owner's payout method; without a hold the payout runs it makes still pay them
    PAYOUT_METHOD_HOLD_HOURS: '0',
    // the tax-profile routes store forms: they need the key
    ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64') });
  routes = createApp(svc.ctx).routes.map((r) => {
    const detail = (r.hooks as { detail?: Record<string, unknown> }).detail ?? {};
    const route = { method: r.method, path: r.path };
    return { ...route, declared: detail['x-auth'] as AuthRule | undefined, rule: RULES[nameOf(route)], security: detail.security };
  });

  campaignId = (await created(svc.api('POST', '/v1/campaigns', { body: { name: 'Matrix', destinationUrl: 'https://shop.example.com/', currency: 'USD' } }))).id;
  owner = (await created(svc.api('POST', '/v1/partners', { body: { email: 'owner@example.com', name: 'Owner', sendInvite: false, campaignIds: [campaignId] } }))).id;
  otherPartner = (await created(svc.api('POST', '/v1/partners', { body: { email: 'other@example.com', name: 'Other', sendInvite: false, campaignIds: [] } }))).id;
  slug = (await created(svc.api('POST', '/v1/links', { body: { campaignId, partnerId: owner } }))).slug;
  codeId = (await created(svc.api('POST', '/v1/codes', { body: { code: 'MATRIX', partnerId: owner, campaignId } }))).id;
  groupId = (await created(svc.api('POST', '/v1/groups', { body: { name: 'Matrix group' } }))).id;
  resourceId = await newResource();
  linkId = (await svc.sql`select id from links where slug = ${slug}`)[0]!.id;
  commissionId = await insertCommission(svc.sql, { partnerId: owner, campaignId, amount: 500, status: 'accrued' });
  eventId = (await created(svc.api('POST', '/v1/events', { body: { userId: 'matrix-user', type: 'signup' } }))).id;
  payoutId = await newPayout();
  // paid, so that it has an invoice (GET /payouts/:id/invoice.pdf)
  await created(svc.api('POST', `/v1/payouts/${payoutId}/mark-paid`, { body: {} }));
  await created(svc.api('PUT', `/v1/partners/${owner}/tax-profile`, { body: W9 }));
  endpointId = await newEndpoint();
  deliveryId = await newDelivery(endpointId);
  apiKeyId = (await created(svc.api('POST', '/v1/api-keys', { body: { name: 'listed', scopes: ['partners:read'] } }))).id;

  ownerKey = await svc.partnerKey(owner);
  otherKey = await svc.partnerKey(otherPartner);
  publishableKey = await svc.publishableKey();

  // revoked keys: an admin key rotated out, a scoped key holding every scope and the owner's own
  // partner key, each revoked the way the service does it
  const admin = await createApiKey(svc.sql, { name: 'rotated out', kind: 'admin', source: 'env' });
  await svc.sql`update api_keys set revoked_at = now() where id = ${admin.id}`;
  revokedAdminKey = admin.key;
  const scoped = await createApiKey(svc.sql, { name: 'every scope', kind: 'scoped', scopes: [...SCOPES] });
  await created(svc.api('DELETE', `/v1/api-keys/${scoped.id}`));
  revokedScopedKey = scoped.key;
  const partnerKey = await created(svc.api('POST', `/v1/partners/${owner}/api-keys`, { body: { name: 'revoked' } }));
  await created(svc.api('DELETE', `/v1/api-keys/${partnerKey.id}`));
  revokedPartnerKey = partnerKey.key;

  ownerSession = await signIn('owner@example.com');
  endedSession = await signIn('owner@example.com');
  expect((await fetch(`${svc.url}/auth/logout`, { method: 'POST', headers: { cookie: endedSession, origin: svc.url } })).status).toBe(200);
  adminSession = await signIn(ADMIN_EMAIL);
  roleSessions.set('owner', adminSession);
  for (const role of ROLES.filter((r) => r !== 'owner')) {
    memberId = (await created(svc.api('POST', '/v1/team', { body: { email: `team-${role}@operator.example`, role } }))).id;
    roleSessions.set(role, await signIn(`team-${role}@operator.example`));
  }
}, 90_000);

afterAll(async () => {
  await svc?.stop();
  await receiver?.stop();
});

// ---- what each route is called with

/** Path parameters by the collection they name: a real id of that kind. */
type Fixtures = { [collection: string]: () => string | Promise<string> };

/** For reads and partner routes: the owner's data (a partner route must see its own and only its own). */
const shared = (): Fixtures => ({
  partners: () => owner,
  commissions: () => commissionId,
  // the review queue's actions on one commission (/admin/review/:id/approve)
  review: () => commissionId,
  // the applications queue's confirm pages name a partner (/admin/applications/:id/approve)
  applications: () => owner,
  payouts: () => payoutId,
  // an email template's preview (/admin/emails/:name/preview)
  emails: () => 'payout_sent',
  campaigns: () => campaignId,
  codes: () => codeId,
  groups: () => groupId,
  resources: () => resourceId,
  links: () => linkId,
  webhooks: () => endpointId,
  deliveries: () => deliveryId,
  'api-keys': () => apiKeyId,
  // the admin's event page (/admin/events/:id); no API route names one event
  events: () => eventId,
  // the team page's member actions (/admin/team/:id/role) and a session's end (/admin/sessions/:id/end)
  team: () => memberId,
  sessions: () => '0'.repeat(24),
});

/** For state changes: a fresh target per call, so no call spoils another's (revoke, delete, mark paid). */
function fresh(route: string): Fixtures {
  let endpoint: Promise<string> | undefined;
  return {
    // invited and pending for the route that re-sends the invite, revoked for the one that reinstates,
    // an application waiting for review for the ones that approve and decline
    partners: async () => {
      const { id } = await created(svc.api('POST', '/v1/partners', { body: { email: `fresh-${unique()}@example.com`, name: 'Fresh', sendInvite: route.endsWith('/invite') } }));
      if (route.endsWith('/reinstate')) await created(svc.api('POST', `/v1/partners/${id}/revoke`, { body: { reason: 'to reinstate' } }));
      if (route.endsWith('/approve') || route.endsWith('/decline')) await svc.sql`update partners set activated_at = null, applied_at = now() where id = ${id}`;
      return id as string;
    },
    commissions: () => insertCommission(svc.sql, { partnerId: owner, campaignId, amount: 500, status: 'accrued' }),
    payouts: newPayout,
    campaigns: async () => (await created(svc.api('POST', '/v1/campaigns', { body: { name: 'Fresh', destinationUrl: 'https://shop.example.com/', currency: 'USD' } }))).id,
    codes: async () => (await created(svc.api('POST', '/v1/codes', { body: { code: `FRESH-${unique()}`, partnerId: owner, campaignId } }))).id,
    groups: async () => (await created(svc.api('POST', '/v1/groups', { body: { name: 'Fresh group' } }))).id,
    resources: newResource,
    webhooks: () => (endpoint ??= newEndpoint()),
    deliveries: async () => newDelivery(await (endpoint ??= newEndpoint())),
    'api-keys': async () => (await created(svc.api('POST', '/v1/api-keys', { body: { name: 'to revoke', scopes: ['partners:read'] } }))).id,
    team: async () => (await created(svc.api('POST', '/v1/team', { body: { email: `member-${unique()}@operator.example`, role: 'viewer' } }))).id,
  };
}

const unique = () => crypto.randomUUID().slice(0, 8);

/** A file resource of the matrix campaign (the owner holds it; the other partner does not). */
async function newResource(): Promise<string> {
  const form = new FormData();
  form.set('file', new File([new TextEncoder().encode('%PDF-1.4\n%%EOF\n')], 'guide.pdf'));
  form.set('campaignId', campaignId);
  const res = await fetch(`${svc.url}/v1/resources`, { method: 'POST', body: form, headers: bearer(svc.adminKey) });
  if (res.status !== 201) throw new Error(`resource: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}

const W9 = {
  form: 'w9', legalName: 'Owner', taxClassification: 'individual', tinType: 'ssn', tin: '123-45-6789',
  address: { line1: '1 Main St', city: 'Springfield', region: 'IL', postalCode: '62701', country: 'US' },
  signature: { name: 'Owner', agreed: true },
};

/** Valid bodies, so that validation (which runs before the auth check) never answers first. */
const BODIES: Record<string, () => unknown | Promise<unknown>> = {
  'POST /partners': () => ({ email: `new-${unique()}@example.com`, name: 'New', sendInvite: false }),
  'PATCH /partners/:id': () => ({ notifications: { monthlyStatement: false } }),
  'POST /partners/:id/revoke': () => ({ reason: 'matrix' }),
  'POST /partners/:id/decline': () => ({ reason: 'matrix' }),
  'POST /partners/:id/api-keys': () => ({ name: 'partner key' }),
  'POST /api-keys': () => ({ name: 'scoped', scopes: ['partners:read'] }),
  'POST /events': () => ({ userId: `user-${unique()}`, type: 'signup' }),
  'POST /attribution/events': () => ({ userId: `user-${unique()}`, type: 'signup' }),
  'POST /events/batch': () => ({ events: [{ userId: `user-${unique()}`, type: 'signup' }] }),
  'POST /commissions/:id/reverse': () => ({ reason: 'refund' }),
  'POST /payouts/:id/mark-paid': () => ({ reference: 'wire-1' }),
  'POST /payouts/:id/mark-failed': () => ({ reason: 'bounced' }),
  'POST /payouts/settle': async () => ({ payouts: [{ id: await newPayout(), status: 'paid', reference: 'wire-2' }] }),
  'PUT /partners/:id/payout-method': () => ({ type: 'manual' }),
  'PUT /partners/:id/tax-profile': () => W9,
  'POST /webhooks': () => ({ url: `${receiver.url}/hook`, events: ['*'] }),
  'PATCH /webhooks/:id': () => ({ label: 'renamed' }),
  'POST /campaigns': () => ({ name: 'New', destinationUrl: 'https://shop.example.com/', currency: 'USD' }),
  'PATCH /campaigns/:id': () => ({ name: 'Renamed' }),
  'POST /campaigns/:id/preview': () => ({ rules: [], days: 30 }),
  'POST /groups': () => ({ name: 'Group' }),
  'PATCH /groups/:id': () => ({ name: 'Renamed group' }),
  'POST /codes': () => ({ code: `CODE-${unique()}`, partnerId: owner, campaignId }),
  'PATCH /codes/:id': () => ({ archived: true }),
  'PATCH /settings': () => ({}),
  'PUT /fx-rates': () => ({ date: '2026-01-02', base: 'EUR', rates: { USD: 1.1 } }),
  'POST /links': () => ({ campaignId, partnerId: owner }),
  'POST /clicks': () => ({ slug }),
  'POST /identify': () => ({ userId: `user-${unique()}`, clickIds: [] }),
  'POST /resources': () => ({ kind: 'text', title: 'Copy', body: 'Try it: {{link}}', campaignId }),
  // multipart: a dry run of a one-partner Rewardful export
  'POST /imports': () => {
    const form = new FormData();
    form.set('source', 'rewardful');
    form.set('dryRun', 'true');
    form.set('campaignId', campaignId);
    form.set('affiliates.csv', new Blob(['id,email\naff_1,matrix@example.com\n']), 'affiliates.csv');
    form.set('referrals.csv', new Blob(['id,affiliate_id,stripe_customer_id\n']), 'referrals.csv');
    form.set('commissions.csv', new Blob(['id,affiliate_id,referral_id,amount_cents,currency,state\n']), 'commissions.csv');
    return form;
  },
  'POST /embed-tokens': () => ({ partnerId: owner }),
  'POST /team': () => ({ email: `invited-${unique()}@operator.example`, role: 'support' }),
  'PATCH /team/:id': () => ({ role: 'finance' }),
};

/** Filters naming the owner: partner routes must refuse them to any other partner. */
const QUERIES: Record<string, () => string> = {
  'GET /commissions': () => `partnerId=${owner}`,
  'GET /payouts': () => `partnerId=${owner}`,
  'GET /payouts.csv': () => `partnerId=${owner}`,
  'GET /links': () => `partnerId=${owner}`,
  'GET /codes': () => `partnerId=${owner}`,
  'GET /tax/1099-nec.csv': () => `year=${new Date().getUTCFullYear()}`,
};

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);
const ruleParts = (rule: AuthRule) => ({ partner: false, publishable: false, ...(typeof rule === 'string' ? { scope: rule } : rule) });

type Call = { path: string; body: unknown; namesOwner: boolean };

/** A call of `route` with real ids and a valid body; `namesOwner` when it names the owner's data. */
async function callOf(route: Route): Promise<Call> {
  const key = nameOf(route);
  const { partner } = ruleParts(route.rule!);
  // partner routes are all called on the owner's data, to tell the owner from any other partner
  const ids = SAFE.has(route.method) || partner ? shared() : fresh(route.path);
  let namesOwner = false;
  const segments = route.path.split('/');
  for (const [i, segment] of segments.entries()) {
    if (!segment.startsWith(':')) continue;
    const collection = segment === ':deliveryId' ? 'deliveries' : segments[i - 1]!;
    const id = ids[collection];
    if (!id) throw new Error(`${route.method} ${route.path}: no fixture for ${segment} of ${collection}; add one to the matrix`);
    segments[i] = await id();
    namesOwner ||= collection !== 'webhooks' && collection !== 'deliveries' && collection !== 'api-keys';
  }
  const query = QUERIES[key]?.();
  namesOwner ||= query?.includes(owner) ?? false;
  const body = await BODIES[key]?.();
  namesOwner ||= JSON.stringify(body ?? null).includes(owner);
  return { path: segments.join('/') + (query ? `?${query}` : ''), body, namesOwner };
}

// ---- who calls, and what each must get

type Outcome = 'unauthorized' | 'forbidden' | 'allowed' | 'refused-or-hidden';

type Caller = {
  name: string;
  /** Credentials as headers; a session adds its cookie (and, on state changes, a same-site Origin). */
  headers(route: Route): Promise<Record<string, string> | null>;
  expect(route: Route, call: Call): Outcome;
};

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const session = (cookie: string, origin?: string) => (route: Route) =>
  Promise.resolve({ cookie, ...(SAFE.has(route.method) ? {} : { origin: origin ?? svc.url }) });

const CALLERS: Caller[] = [
  { name: 'no credentials', headers: async () => ({}), expect: () => 'unauthorized' },
  { name: 'unknown key', headers: async () => bearer(`sk_admin_${'x'.repeat(43)}`), expect: () => 'unauthorized' },
  { name: 'unknown session', headers: async () => ({ cookie: `partnerd_session=${'y'.repeat(43)}` }), expect: () => 'unauthorized' },
  { name: 'revoked admin key', headers: async () => bearer(revokedAdminKey), expect: () => 'unauthorized' },
  { name: 'revoked scoped key (every scope)', headers: async () => bearer(revokedScopedKey), expect: () => 'unauthorized' },
  { name: "revoked partner key (the owner's)", headers: async () => bearer(revokedPartnerKey), expect: () => 'unauthorized' },
  { name: 'ended session', headers: (route) => session(endedSession)(route), expect: () => 'unauthorized' },
  {
    name: 'scoped key without the scope',
    headers: async (route) => bearer(await scopedKey(SCOPES.filter((s) => s !== ruleParts(route.rule!).scope))),
    expect: () => 'forbidden',
  },
  {
    // admin-only routes: no scope is enough, so this is the key without any scope they could need
    name: 'scoped key with the scope',
    headers: async (route) => {
      const { scope } = ruleParts(route.rule!);
      return bearer(await scopedKey(scope === 'admin' ? SCOPES : [scope]));
    },
    expect: (route) => (ruleParts(route.rule!).scope === 'admin' ? 'forbidden' : 'allowed'),
  },
  {
    name: "another partner's key",
    headers: async () => bearer(otherKey),
    expect: (route, call) => (!ruleParts(route.rule!).partner ? 'forbidden' : call.namesOwner ? 'refused-or-hidden' : 'allowed'),
  },
  { name: "the owner's partner key", headers: async () => bearer(ownerKey), expect: (route) => (ruleParts(route.rule!).partner ? 'allowed' : 'forbidden') },
  { name: "the owner's session", headers: (route) => session(ownerSession)(route), expect: (route) => (ruleParts(route.rule!).partner ? 'allowed' : 'forbidden') },
  { name: 'publishable key', headers: async () => bearer(publishableKey), expect: (route) => (ruleParts(route.rule!).publishable ? 'allowed' : 'forbidden') },
  { name: 'admin session', headers: (route) => session(adminSession)(route), expect: () => 'allowed' },
  { name: 'admin key', headers: async () => bearer(svc.adminKey), expect: () => 'allowed' },
  // a state change riding on a session cookie must come from our own origin (CSRF)
  {
    name: "the owner's session, cross-site",
    headers: async (route) => (SAFE.has(route.method) ? null : session(ownerSession, 'https://evil.example')(route)),
    expect: () => 'forbidden',
  },
  {
    name: 'admin session, cross-site',
    headers: async (route) => (SAFE.has(route.method) ? null : { cookie: adminSession, 'sec-fetch-site': 'cross-site' }),
    expect: () => 'forbidden',
  },
];

/** Whether `res` is `outcome`; "allowed" means the handler ran and answered as it does for good input. */
function matches(outcome: Outcome, res: ApiResponse, method: string): boolean {
  switch (outcome) {
    case 'unauthorized':
      return res.status === 401 && res.body?.code === 'unauthorized';
    case 'forbidden':
      return res.status === 403 && res.body?.code === 'forbidden';
    case 'refused-or-hidden':
      return (res.status === 403 && res.body?.code === 'forbidden') || (res.status === 404 && res.body?.code === 'not_found');
    case 'allowed':
      // reads are of real ids: 200; state changes of fresh targets: a success
      return SAFE.has(method) ? res.status === 200 : res.status >= 200 && res.status < 300;
  }
}

const described = (res: ApiResponse) => `${res.status} ${typeof res.body === 'string' ? res.body.slice(0, 80) : JSON.stringify(res.body)?.slice(0, 160)}`;

/** A multipart call (an upload route), answered like svc.api's. */
async function sendForm(method: string, path: string, headers: Record<string, string>, form: FormData): Promise<ApiResponse> {
  const res = await fetch(svc.url + path, { method, headers, body: form, redirect: 'manual' });
  const text = await res.text();
  return { status: res.status, body: (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text, headers: res.headers };
}

/** Calls `route` as every caller; answers the mismatches. */
async function checkRoute(route: Route): Promise<{ problems: string[]; calls: number }> {
  const problems: string[] = [];
  let calls = 0;
  await Promise.all(
    CALLERS.map(async (caller) => {
      const headers = await caller.headers(route);
      if (headers === null) return;
      let call: Call | undefined;
      try {
        call = await callOf(route);
        const send = () => (call!.body instanceof FormData ? sendForm(route.method, call!.path, headers, call!.body) : svc.api(route.method, call!.path, { key: null, headers, body: call!.body }));
        const res = await (/\/payouts\/run$/.test(route.path) ? oneRunAtATime(send) : send());
        calls++;
        const outcome = caller.expect(route, call);
        if (!matches(outcome, res, route.method)) {
          problems.push(`${route.method} ${route.path} as ${caller.name}: expected ${outcome}, got ${described(res)}`);
        }
      } catch (error) {
        problems.push(`${route.method} ${route.path} as ${caller.name}${call ? ` (${call.path})` : ''}: ${(error as Error).message}`);
      }
    }),
  );
  return { problems, calls };
}

describe('the route table', () => {
  test('every route has an auth rule or is on the public allow-list', () => {
    const unguarded = routes
      .filter((r) => r.declared === undefined && !PUBLIC_ROUTES.has(`${r.method} ${r.path}`) && !PAGES.test(r.path))
      .map((r) => `route ${r.method} ${r.path} has no auth rule`);
    expect(unguarded).toEqual([]);
  });

  test('every route declares the rule the table gives it', () => {
    const drifted = routes
      .filter((r) => r.declared !== undefined || r.rule !== undefined)
      .filter((r) => !Bun.deepEquals(r.declared, r.rule))
      .map((r) =>
        r.rule === undefined
          ? `route ${r.method} ${r.path} is not in RULES: add the rule it should have`
          : `route ${r.method} ${r.path} declares ${JSON.stringify(r.declared ?? null)}, RULES says ${JSON.stringify(r.rule)}`,
      );
    expect(drifted).toEqual([]);
    const served = new Set(routes.map(nameOf));
    expect(Object.keys(RULES).filter((name) => !served.has(name))).toEqual([]);
  });

  test('the allow-list names only routes the app serves, and none that carries a rule', () => {
    const served = new Map(routes.map((r) => [`${r.method} ${r.path}`, r]));
    expect([...PUBLIC_ROUTES].filter((name) => !served.has(name))).toEqual([]);
    expect([...PUBLIC_ROUTES].filter((name) => served.get(name)?.declared !== undefined)).toEqual([]);
  });

  test('each rule is published as the OpenAPI security of its route', () => {
    const guarded = routes.filter((r) => r.declared !== undefined);
    expect(guarded.length).toBeGreaterThan(0);
    for (const route of guarded) {
      expect({ route: `${route.method} ${route.path}`, security: route.security }).toEqual({ route: `${route.method} ${route.path}`, security: securityOf(route.declared!) });
    }
  });
});

describe('every guarded route against every kind of caller', () => {
  test('each answer is what the route rule says', async () => {
    // judged by the table, so a route whose declared rule drifted fails here too, call by call
    const guarded = routes.filter((r) => r.rule !== undefined || r.declared !== undefined);
    const unknown = guarded.filter((r) => r.rule === undefined).map((r) => `route ${r.method} ${r.path} is not in RULES`);
    expect(unknown).toEqual([]);
    const problems: string[] = [];
    let calls = 0;
    // a few routes at a time: each route's callers run in parallel already
    for (let i = 0; i < guarded.length; i += 4) {
      for (const result of await Promise.all(guarded.slice(i, i + 4).map(checkRoute))) {
        problems.push(...result.problems);
        calls += result.calls;
      }
    }
    expect(problems).toEqual([]);
    // every caller reached every route (state changes also twice cross-site)
    const unsafe = guarded.filter((r) => !SAFE.has(r.method)).length;
    expect(calls).toBe(guarded.length * (CALLERS.length - 2) + unsafe * 2);
  });

  test('a session state change without a same-site Origin changes nothing', async () => {
    const before = (await svc.sql`select count(*)::int as n from links where partner_id = ${owner}`)[0]!.n;
    const foreign: Record<string, string>[] = [{ origin: 'https://evil.example' }, { origin: 'null' }, { 'sec-fetch-site': 'cross-site' }, { 'sec-fetch-site': 'same-site' }];
    for (const headers of foreign) {
      const res = await svc.api('POST', '/v1/links', { key: null, headers: { cookie: ownerSession, ...headers }, body: { campaignId } });
      expect({ headers, status: res.status, code: res.body.code }).toEqual({ headers, status: 403, code: 'forbidden' });
    }
    expect((await svc.sql`select count(*)::int as n from links where partner_id = ${owner}`)[0]!.n).toBe(before);
    // the same call from our own origin goes through: the refusals above were the Origin's doing
    const ok = await svc.api('POST', '/v1/links', { key: null, headers: { cookie: ownerSession, origin: svc.url }, body: { campaignId } });
    expect(ok.status).toBe(201);
    expect(ok.body.partnerId).toBe(owner);
  });
});

/** The roles the one role table (modules/auth/roles.ts) lets through a route; undefined: no rule. */
const rolesOfRoute = (route: Route) => apiRoles(route.method, route.path, ruleParts(route.rule!).scope);
const ROLE_REFUSAL = /your role \(\w+\) may not/i;

describe('every guarded route against each role of the team', () => {
  test('every API route and every admin page has a role rule', () => {
    const guarded = routes.filter((r) => r.rule !== undefined);
    expect(guarded.filter((r) => rolesOfRoute(r) === undefined).map((r) => `route ${r.method} ${r.path} has no role rule (modules/auth/roles.ts)`)).toEqual([]);
    const pages = routes.filter((r) => r.path.startsWith('/admin') && !PUBLIC_PAGES.has(`${r.method} ${r.path}`));
    expect(pages.length).toBeGreaterThan(50);
    expect(pages.filter((r) => pageRoles(r.method, r.path) === undefined).map((r) => `page ${r.method} ${r.path} has no role rule (modules/auth/roles.ts)`)).toEqual([]);
  });

  test('the table keeps what the roles promise: viewers read, the team is the owners\', money is not support\'s', () => {
    const guarded = routes.filter((r) => r.rule !== undefined);
    const let_in = (role: Role) => guarded.filter((r) => roleAllows(role, rolesOfRoute(r))).map(nameOf);
    expect(let_in('viewer').filter((name) => !name.startsWith('GET '))).toEqual([]);
    expect(let_in('owner').length).toBe(guarded.length);
    for (const role of ['admin', 'finance', 'support', 'viewer'] as const) expect(let_in(role).filter((name) => / \/team/.test(name))).toEqual([]);
    const money = guarded.filter((r) => ['commissions:write', 'payouts:write'].includes(ruleParts(r.rule!).scope)).map(nameOf);
    expect(money.length).toBeGreaterThan(5);
    expect(let_in('support').filter((name) => money.includes(name))).toEqual([]);
    expect(money.filter((name) => !let_in('finance').includes(name))).toEqual([]);
  });

  test("each role's session gets what the role table says on every API route: allowed, or 403 and nothing done", async () => {
    const guarded = routes.filter((r) => r.rule !== undefined);
    const problems: string[] = [];
    let calls = 0;
    const check = async (route: Route) => {
      for (const role of ROLES) {
        const allowed = roleAllows(role, rolesOfRoute(route));
        try {
          const call = await callOf(route);
          const headers = await session(roleSessions.get(role)!)(route);
          const send = () => (call.body instanceof FormData ? sendForm(route.method, call.path, headers, call.body) : svc.api(route.method, call.path, { key: null, headers, body: call.body }));
          const res = await (/\/payouts\/run$/.test(route.path) ? oneRunAtATime(send) : send());
          calls++;
          const ok = allowed ? matches('allowed', res, route.method) : matches('forbidden', res, route.method) && ROLE_REFUSAL.test(res.body.message);
          if (!ok) problems.push(`${route.method} ${route.path} as ${role}: expected ${allowed ? 'allowed' : 'a 403 for the role'}, got ${described(res)}`);
        } catch (error) {
          problems.push(`${route.method} ${route.path} as ${role}: ${(error as Error).message}`);
        }
      }
    };
    for (let i = 0; i < guarded.length; i += 4) await Promise.all(guarded.slice(i, i + 4).map(check));
    expect(problems).toEqual([]);
    expect(calls).toBe(guarded.length * ROLES.length);
  }, 300_000);

  test("each role's session gets what the role table says on every admin page: the page, or the shell's 403 and nothing run", async () => {
    // the sign-out of each role would end the session the rest of the matrix uses
    const pages = routes.filter((r) => r.path.startsWith('/admin') && !PUBLIC_PAGES.has(`${r.method} ${r.path}`) && r.path !== '/admin/sign-out');
    const problems: string[] = [];
    // a few pages at a time: a loaded machine resets connections when a hundred arrive at once
    const checkPage = async (route: Route) => {
        const segments = route.path.split('/');
        const ids = shared();
        for (const [i, segment] of segments.entries()) {
          if (!segment.startsWith(':')) continue;
          const id = ids[segment === ':deliveryId' ? 'deliveries' : segments[i - 1]!];
          if (!id) return void problems.push(`${route.method} ${route.path}: no fixture for ${segment}`);
          segments[i] = await id();
        }
        for (const role of ROLES) {
          const allowed = roleAllows(role, pageRoles(route.method, route.path));
          // a change is sent without its CSRF token: the role is checked first, so an allowed role
          // meets the token check (nothing runs either way) and a refused one the role's 403
          const res = await fetch(svc.url + segments.join('/'), {
            method: route.method,
            headers: { cookie: roleSessions.get(role)!, origin: svc.url, 'content-type': 'application/x-www-form-urlencoded' },
            body: route.method === 'POST' ? '' : undefined,
            redirect: 'manual',
          });
          const text = await res.text();
          const refusedForRole = res.status === 403 && ROLE_REFUSAL.test(text) && text.includes('class="nav"');
          const ok = allowed ? !ROLE_REFUSAL.test(text) && (route.method !== 'GET' || res.status === 200) : refusedForRole;
          if (!ok) problems.push(`${route.method} ${route.path} as ${role}: expected ${allowed ? 'the page' : "the shell's 403 for the role"}, got ${res.status} ${text.slice(0, 60)}`);
        }
    };
    for (let i = 0; i < pages.length; i += 6) await Promise.all(pages.slice(i, i + 6).map(checkPage));
    expect(problems).toEqual([]);
  }, 120_000);
});

// pages that only hand a signed-in visitor on (Stripe's onboarding sends partners back to these)
const HAND_OFF_PAGES = new Set(['GET /portal/payouts/stripe/return', 'GET /portal/payouts/stripe/refresh']);

describe('the pages', () => {
  // the pages guard themselves (a session of the right kind, never an API key): whoever else calls
  // is sent to the sign-in page of the area, and nothing runs; see test/web/*.security.test.ts
  test('every admin and portal page, bar signing in, refuses all but its own kind of session', async () => {
    const pages = routes.filter((r) => PAGES.test(r.path) && !PUBLIC_PAGES.has(`${r.method} ${r.path}`));
    expect(pages.length).toBeGreaterThan(0);
    const problems: string[] = [];
    await Promise.all(
      pages.map(async (route) => {
        const area = route.path.startsWith('/admin') ? 'admin' : 'portal';
        const segments = route.path.split('/');
        const ids = shared();
        for (const [i, segment] of segments.entries()) {
          if (!segment.startsWith(':')) continue;
          const id = ids[segment === ':deliveryId' ? 'deliveries' : segments[i - 1]!];
          if (!id) return void problems.push(`${route.method} ${route.path}: no fixture for ${segment}`);
          segments[i] = await id();
        }
        const refused: Record<string, Record<string, string>> = {
          'no credentials': {},
          'admin key': bearer(svc.adminKey),
          'unknown session': { cookie: `partnerd_session=${'y'.repeat(43)}` },
          'ended session': { cookie: endedSession },
          [area === 'admin' ? "a partner's session" : "an admin's session"]: { cookie: area === 'admin' ? ownerSession : adminSession },
        };
        const own = area === 'admin' ? adminSession : ownerSession;
        for (const [who, headers] of Object.entries(refused)) {
          const res = await fetch(svc.url + segments.join('/'), {
            method: route.method,
            headers: { ...headers, origin: svc.url, 'content-type': 'application/x-www-form-urlencoded' },
            body: route.method === 'POST' ? '' : undefined,
            redirect: 'manual',
          });
          const to = res.headers.get('location');
          if (!(res.status === 303 && to === `/${area}/sign-in`) && res.status !== 403) {
            problems.push(`${route.method} ${route.path} as ${who}: expected a redirect to /${area}/sign-in or 403, got ${res.status} ${to ?? ''}`);
          }
        }
        if (route.method === 'GET') {
          const res = await fetch(svc.url + segments.join('/'), { headers: { cookie: own }, redirect: 'manual' });
          // a hand-off page answers its own session with a redirect onwards, never to the sign-in page
          const to = res.headers.get('location');
          const ok = HAND_OFF_PAGES.has(`${route.method} ${route.path}`) ? res.status === 303 && to !== null && !to.endsWith('/sign-in') : res.status === 200;
          if (!ok) problems.push(`${route.method} ${route.path} with its own session: expected ${HAND_OFF_PAGES.has(`${route.method} ${route.path}`) ? 'a redirect onwards' : '200'}, got ${res.status} ${to ?? ''}`);
        }
      }),
    );
    expect(problems).toEqual([]);
    // the refused sign-outs above ended no one's session
    expect((await fetch(`${svc.url}/portal`, { headers: { cookie: ownerSession }, redirect: 'manual' })).status).toBe(200);
    expect((await fetch(`${svc.url}/admin`, { headers: { cookie: adminSession }, redirect: 'manual' })).status).toBe(200);
  });
});
