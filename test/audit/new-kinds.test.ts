// Changes the audit log first missed, one test each: the team (invited, role changed, removed, its
// sessions ended), a payout handed to a rail, a Stripe account's readiness (account.updated), an
// embed token given out, a tax form filed (never its TIN or date of birth) and a 1099 export.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { randomBytes } from 'node:crypto';
import { createSession, SESSION_COOKIE } from '../../src/modules/auth/sessions';
import { deliver, stripeEvent, WEBHOOK_SECRET } from '../billing/fixtures';
import { insertCampaign, insertCommission, insertPartner } from '../support/lifecycle-fixtures';
import { startPayPalStandIn, type PayPalStandIn } from '../support/paypal-standin';
import { startService, type TestService } from '../support/service';
import { startStripeStandIn, type StripeStandIn } from '../support/stripe-standin';
import { W8BEN, W9 } from '../tax/forms';
import { entriesFor, entriesWith, wholeLog, type AuditRow } from './entries';

const OWNER = 'owner@operator.example';
let svc: TestService;
let stripe: StripeStandIn;
let paypal: PayPalStandIn;
let usd: string;

beforeAll(async () => {
  [stripe, paypal] = await Promise.all([startStripeStandIn(), startPayPalStandIn()]);
  svc = await startService({
    ADMIN_EMAILS: OWNER,
    MIN_PAYOUT: '0',
    ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    STRIPE_SECRET_KEY: 'sk_test_audit',
    STRIPE_API_URL: stripe.url,
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    PAYPAL_CLIENT_ID: paypal.clientId,
    PAYPAL_CLIENT_SECRET: paypal.clientSecret,
    PAYPAL_API_URL: paypal.url,
    PAYPAL_WEBHOOK_ID: paypal.webhookId,
    PAYOUT_METHOD_HOLD_HOURS: '0',
  });
  usd = await insertCampaign(svc.sql, { currency: 'USD' });
}, 60_000);
afterAll(async () => {
  await svc.stop();
  stripe.stop();
  paypal.stop();
});

async function entry(targetId: string, action: string): Promise<AuditRow> {
  const found = (await entriesFor(svc.sql, targetId)).filter((e) => e.action === action);
  expect(found.map((e) => e.action)).toEqual([action]);
  return found[0]!;
}

const byKey = { actor_type: 'key', actor_id: expect.stringMatching(/^key_/) };
const asOwner = async (method: string, path: string, body?: unknown) => {
  const { token } = await createSession(svc.sql, { kind: 'admin', email: OWNER });
  return svc.api(method, path, { key: null, body, headers: { cookie: `${SESSION_COOKIE}=${token}`, origin: svc.url } });
};

describe('the team', () => {
  test('a member invited, their role changed, their sessions ended, then removed: by the owner, in a session', async () => {
    const invited = await asOwner('POST', '/v1/team', { email: 'Riley@Operator.example', role: 'viewer' });
    expect(invited.status).toBe(201);
    const id = invited.body.id as string;
    const owner = { actor_type: 'admin', actor_id: OWNER, actor_email: OWNER, target_type: 'team_member', target_id: id };
    expect(await entry(id, 'team.member_invited')).toMatchObject({ ...owner, changes: { email: [null, 'riley@operator.example'], role: [null, 'viewer'], source: [null, 'invite'] } });

    expect((await asOwner('PATCH', `/v1/team/${id}`, { role: 'finance' })).status).toBe(200);
    expect(await entry(id, 'team.role_changed')).toMatchObject({ ...owner, changes: { role: ['viewer', 'finance'] } });
    // the same role again changes nothing and writes nothing
    await asOwner('PATCH', `/v1/team/${id}`, { role: 'finance' });
    expect((await entriesFor(svc.sql, id)).filter((e) => e.action === 'team.role_changed')).toHaveLength(1);

    await createSession(svc.sql, { kind: 'admin', email: 'riley@operator.example' });
    await createSession(svc.sql, { kind: 'admin', email: 'riley@operator.example' });
    expect((await asOwner('DELETE', `/v1/team/${id}`)).status).toBe(200);
    expect(await entry(id, 'team.member_removed')).toMatchObject({ ...owner, changes: { email: ['riley@operator.example', null], role: ['finance', null], liveSessions: [2, 0] } });
  });

  test("a member signs out their other sessions: session.revoked, on that member, by them", async () => {
    const invited = await svc.api('POST', '/v1/team', { body: { email: 'sam@operator.example', role: 'support' } });
    expect(await entry(invited.body.id, 'team.member_invited')).toMatchObject({ ...byKey, target_id: invited.body.id });
    const { endOtherAdminSessions } = await import('../../src/modules/auth/sessions');
    const { asActor } = await import('../../src/lib/audit-context');
    const mine = await createSession(svc.sql, { kind: 'admin', email: 'sam@operator.example' });
    await createSession(svc.sql, { kind: 'admin', email: 'sam@operator.example' });
    await createSession(svc.sql, { kind: 'admin', email: 'sam@operator.example' });
    const ended = await asActor({ type: 'admin', id: 'sam@operator.example', email: 'sam@operator.example' }, () => endOtherAdminSessions(svc.sql, 'sam@operator.example', mine.token));
    expect(ended).toBe(2);
    expect(await entry(invited.body.id, 'session.revoked')).toMatchObject({
      actor_type: 'admin',
      actor_id: 'sam@operator.example',
      target_type: 'team_member',
      target_id: invited.body.id,
      changes: { sessionsEnded: [0, 2], which: [null, 'others'] },
    });
  });

  test('an owner signs a member out everywhere from the team page: session.revoked, by the owner', async () => {
    const invited = await svc.api('POST', '/v1/team', { body: { email: 'kim@operator.example', role: 'viewer' } });
    const { signOutEverywhere } = await import('../../src/modules/auth/sessions');
    const { asActor } = await import('../../src/lib/audit-context');
    await createSession(svc.sql, { kind: 'admin', email: 'kim@operator.example' });
    expect(await asActor({ type: 'admin', id: OWNER, email: OWNER }, () => signOutEverywhere(svc.sql, 'kim@operator.example'))).toBe(1);
    // nothing left to end: no second entry
    await asActor({ type: 'admin', id: OWNER, email: OWNER }, () => signOutEverywhere(svc.sql, 'kim@operator.example'));
    expect(await entry(invited.body.id, 'session.revoked')).toMatchObject({
      actor_type: 'admin',
      actor_id: OWNER,
      target_type: 'team_member',
      target_id: invited.body.id,
      changes: { sessionsEnded: [0, 1], which: [null, 'all'] },
    });
  });
});

describe('payout rails', () => {
  test('payouts handed to PayPal: payout.handed_over, pending to processing, by whoever ran them', async () => {
    const partnerId = await insertPartner(svc.sql);
    const key = await svc.partnerKey(partnerId);
    expect((await svc.api('PUT', `/v1/partners/${partnerId}/payout-method`, { key, body: { type: 'paypal', email: 'pp@example.com' } })).status).toBe(200);
    await insertCommission(svc.sql, { partnerId, campaignId: usd, amount: 1250, status: 'approved' });
    const run = await svc.api('POST', '/v1/payouts/run');
    const payout = run.body.payouts.find((p: { partnerId: string }) => p.partnerId === partnerId);
    expect(payout).toMatchObject({ status: 'processing', provider: 'paypal' });
    expect(await entry(payout.id, 'payout.handed_over')).toMatchObject({
      ...byKey,
      target_type: 'payout',
      target_id: payout.id,
      changes: { status: ['pending', 'processing'], rail: [null, 'paypal'], providerReference: [null, payout.providerReference] },
    });
    expect((await entriesFor(svc.sql, payout.id)).map((e) => e.action)).toEqual(['payout.run', 'payout.handed_over']);
  });

  test("Stripe's account.updated makes a partner's account ready and not: the provider is the actor, once per change", async () => {
    const partnerId = await insertPartner(svc.sql);
    const key = await svc.partnerKey(partnerId);
    expect((await svc.api('PUT', `/v1/partners/${partnerId}/payout-method`, { key, body: { type: 'stripe' } })).status).toBe(200);
    const accountId = (await svc.api('GET', `/v1/partners/${partnerId}/payout-method`, { key })).body.stripeAccountId as string;
    expect((await deliver(svc.url, stripeEvent('account.updated', { id: accountId, object: 'account', payouts_enabled: true }))).status).toBe(200);
    // the same news again is no change
    await deliver(svc.url, stripeEvent('account.updated', { id: accountId, object: 'account', payouts_enabled: true }));
    await deliver(svc.url, stripeEvent('account.updated', { id: accountId, object: 'account', payouts_enabled: false }));
    const entries = (await entriesFor(svc.sql, partnerId)).filter((e) => e.action === 'payout.account_updated');
    expect(entries).toHaveLength(2);
    for (const e of entries) expect(e).toMatchObject({ actor_type: 'provider', actor_id: 'stripe', target_type: 'partner', target_id: partnerId });
    expect(entries.map((e) => e.changes)).toEqual([{ ready: [false, true] }, { ready: [true, false] }]);
  });
});

describe('partners: embed tokens and tax forms', () => {
  test('an embed token given out: for whom and until when, never the token', async () => {
    const partnerId = await insertPartner(svc.sql);
    await svc.sql`insert into partner_campaigns (partner_id, campaign_id, source) values (${partnerId}, ${usd}, 'admin')`;
    const res = await svc.api('POST', '/v1/embed-tokens', { body: { partnerId } });
    expect(res.status).toBe(201);
    expect(await entry(partnerId, 'embed_token.granted')).toMatchObject({ ...byKey, target_type: 'partner', target_id: partnerId, changes: { expiresAt: [null, res.body.expiresAt] } });
    expect(await wholeLog(svc.sql)).not.toContain(res.body.token);
  });

  test("a customer's embed token for a campaign the partner lacks: the partner joins it, and the log says so", async () => {
    const partnerId = await insertPartner(svc.sql);
    await svc.sql`insert into partner_campaigns (partner_id, campaign_id, source) values (${partnerId}, ${usd}, 'admin')`;
    const [row] = await svc.sql<{ email: string }[]>`select email from partners where id = ${partnerId}`;
    const email = row!.email;
    const other = await insertCampaign(svc.sql, { currency: 'USD' });
    const res = await svc.api('POST', '/v1/embed-tokens', { body: { email, campaignId: other } });
    expect(res.status).toBe(201);
    expect(await svc.sql`select campaign_id from partner_campaigns where partner_id = ${partnerId} order by campaign_id`).toHaveLength(2);
    expect(await entry(partnerId, 'partner.updated')).toMatchObject({ ...byKey, target_type: 'partner', target_id: partnerId, changes: { campaignIds: [[usd], [usd, other]] } });
  });

  test('a tax form filed, then replaced: the fields that changed, the TIN and date of birth only as [redacted]', async () => {
    const partnerId = await insertPartner(svc.sql);
    const key = await svc.partnerKey(partnerId);
    expect((await svc.api('PUT', `/v1/partners/${partnerId}/tax-profile`, { key, body: W9 })).status).toBe(200);
    expect((await svc.api('PUT', `/v1/partners/${partnerId}/tax-profile`, { key, body: W8BEN })).status).toBe(200);
    const created = await entry(partnerId, 'tax_profile.created');
    expect(created).toMatchObject({ actor_type: 'key', target_type: 'partner', target_id: partnerId });
    expect(created.changes).toMatchObject({ form: [null, 'w9'], legalName: [null, 'Ada Lovelace'], taxClassification: [null, 'individual'], tin: [null, '[redacted]'] });
    const updated = await entry(partnerId, 'tax_profile.updated');
    expect(updated.changes).toMatchObject({
      form: ['w9', 'w8ben'],
      legalName: ['Ada Lovelace', 'Grace Hopper'],
      citizenship: [null, 'DE'],
      dateOfBirth: [null, '[redacted]'],
      foreignTin: [null, '[redacted]'],
    });
    const log = await wholeLog(svc.sql);
    for (const secret of ['123-45-6789', '1986-12-09', 'DE-TIN-55555']) expect(log).not.toContain(secret);
  });

  test('a 1099-NEC export is logged with who took it and how many rows', async () => {
    const year = new Date().getUTCFullYear();
    expect((await svc.api('GET', `/v1/tax/1099-nec.csv?year=${year}`)).status).toBe(200);
    const [exported] = await entriesWith(svc.sql, 'tax.exported');
    expect(exported).toMatchObject({ ...byKey, target_type: 'tax_year', target_id: `1099-nec-${year}`, changes: { form: [null, '1099-nec'], year: [null, year], rows: [null, expect.any(Number)] } });
  });
});
