// The kinds of change kinds.test.ts leaves out, one test each: what the entry says was done
// (action), by whom (actor), to what (target) and what changed (before and after). Actors of every
// type: a key, an admin's session, a partner's portal session, a job, a provider's webhook.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { asActor } from '../../src/lib/audit-context';
import { createSession, SESSION_COOKIE } from '../../src/modules/auth/sessions';
import { runApprovalJob } from '../../src/scheduler/approval';
import { charge, customer, deliver, invoice, stripeEvent, WEBHOOK_SECRET } from '../billing/fixtures';
import { campaign, click, identify, partner } from '../support/chain';
import { insertCampaign, insertCommission, insertPartner } from '../support/lifecycle-fixtures';
import { startService, type TestService } from '../support/service';
import { entriesFor, type AuditRow } from './entries';

let svc: TestService;
let usd: string;
beforeAll(async () => {
  svc = await startService({ MIN_PAYOUT: '0', STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET, PAYOUT_METHOD_HOLD_HOURS: '0', ADMIN_EMAILS: 'owner@operator.example' });
  usd = await insertCampaign(svc.sql, { currency: 'USD' });
}, 60_000);
afterAll(() => svc.stop());

/** The one entry with this action about this object. */
async function entry(targetId: string, action: string): Promise<AuditRow> {
  const found = (await entriesFor(svc.sql, targetId)).filter((e) => e.action === action);
  expect(found.map((e) => e.action)).toEqual([action]);
  return found[0]!;
}

/** The admin key (by its key id) made the change. */
const byKey = { actor_type: 'key', actor_id: expect.stringMatching(/^key_/) };

/** Calls the API with a session cookie from this site, as the admin pages' scripts would. */
async function withSession(owner: { kind: 'admin'; email: string } | { kind: 'partner'; partnerId: string }, method: string, path: string, body?: unknown) {
  const { token } = await createSession(svc.sql, owner);
  return svc.api(method, path, { key: null, body, headers: { cookie: `${SESSION_COOKIE}=${token}`, origin: svc.url } });
}

describe('partners', () => {
  test('an application approved and one declined, by a key', async () => {
    expect((await svc.api('PATCH', '/v1/settings', { body: { partnerSignup: 'review' } })).status).toBe(200);
    for (const email of ['apply-a@example.com', 'apply-b@example.com']) {
      expect((await svc.api('POST', '/auth/signup', { key: null, body: { email, name: 'Applicant' } })).status).toBe(202);
    }
    const [a, b] = await svc.sql<{ id: string }[]>`select id from partners where email like 'apply-_@example.com' order by email`;
    expect((await svc.api('POST', `/v1/partners/${a!.id}/approve`)).status).toBe(200);
    expect((await svc.api('POST', `/v1/partners/${b!.id}/decline`, { body: { reason: 'not a fit' } })).status).toBe(200);
    expect(await entry(a!.id, 'partner.approved')).toMatchObject({ ...byKey, target_type: 'partner', target_id: a!.id, changes: { status: ['applied', 'pending'] } });
    expect(await entry(b!.id, 'partner.declined')).toMatchObject({ ...byKey, target_type: 'partner', target_id: b!.id, changes: { status: ['applied', 'declined'] } });
    await svc.api('PATCH', '/v1/settings', { body: { partnerSignup: 'open' } });
  });

  test('an invited partner activated by their first sign-in: the partner is the actor', async () => {
    const res = await svc.api('POST', '/v1/partners', { body: { email: 'invitee@example.com', name: 'Invitee', sendInvite: true } });
    expect(res.status).toBe(201);
    const link = await svc.mail.magicLink('invitee@example.com');
    expect((await fetch(link, { redirect: 'manual' })).status).toBeLessThan(400);
    expect(await entry(res.body.id, 'partner.activated')).toMatchObject({
      actor_type: 'partner',
      actor_id: res.body.id,
      target_type: 'partner',
      target_id: res.body.id,
      changes: { status: ['pending', 'active'] },
    });
  });

  test('a partner moved into a group and out again, by an admin in a session', async () => {
    const group = await svc.api('POST', '/v1/groups', { body: { name: 'Movers', rules: [] } });
    const partnerId = await insertPartner(svc.sql);
    const moved = await withSession({ kind: 'admin', email: 'owner@operator.example' }, 'PATCH', `/v1/partners/${partnerId}`, { groupId: group.body.id });
    expect(moved.status).toBe(200);
    await svc.api('PATCH', `/v1/partners/${partnerId}`, { body: { groupId: null } });
    const entries = (await entriesFor(svc.sql, partnerId)).filter((e) => e.action === 'partner.updated');
    expect(entries).toHaveLength(2);
    expect(entries[0]).toMatchObject({
      actor_type: 'admin',
      actor_id: 'owner@operator.example',
      actor_email: 'owner@operator.example',
      target_type: 'partner',
      target_id: partnerId,
      changes: { groupId: [null, group.body.id] },
      ip: '127.0.0.1',
    });
    expect(entries[1]).toMatchObject({ ...byKey, changes: { groupId: [group.body.id, null] } });
  });
});

describe('commissions and payouts', () => {
  test('the approval job approves what its holdback let through: the job is the actor', async () => {
    const partnerId = await insertPartner(svc.sql);
    const id = await insertCommission(svc.sql, { partnerId, campaignId: usd, amount: 300, holdbackDays: 1, ageDays: 2 });
    await asActor({ type: 'job', id: 'approval' }, () => runApprovalJob(svc.ctx));
    expect(await entry(id, 'commission.approved')).toMatchObject({
      actor_type: 'job',
      actor_id: 'approval',
      target_type: 'commission',
      target_id: id,
      changes: { status: ['accrued', 'approved'] },
      ip: null,
    });
  });

  test("a partial refund on Stripe's webhook reduces the commission: the provider is the actor", async () => {
    const campaignId = await campaign(svc, { rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 20 }] });
    const partnerId = await partner(svc, 'refunds@example.com', [campaignId]);
    await identify(svc, 'u_refund', [(await click(svc, campaignId, partnerId)).clickId]);
    await deliver(svc.url, stripeEvent('customer.updated', customer('cus_refund', 'u_refund')));
    await deliver(svc.url, stripeEvent('invoice.paid', invoice('in_refund', 'cus_refund', 10000, { paymentIntent: 'pi_refund' })));
    const [row] = await svc.sql<{ id: string }[]>`select id from commissions where user_id = 'u_refund'`;
    expect((await deliver(svc.url, stripeEvent('charge.refunded', charge('ch_refund', 'pi_refund', 10000, 2500)))).status).toBe(200);
    expect(await entry(row!.id, 'commission.reduced')).toMatchObject({
      actor_type: 'provider',
      actor_id: 'stripe',
      target_type: 'commission',
      target_id: row!.id,
      changes: { amount: ['2000', '1500'], reason: [null, 'partial_refund'] },
    });
  });

  test('a paid commission reversed opens a clawback; a failed payout releases its commissions', async () => {
    const partnerId = await insertPartner(svc.sql);
    await insertCommission(svc.sql, { partnerId, campaignId: usd, amount: 1000, status: 'approved' });
    const clawed = await insertCommission(svc.sql, { partnerId, campaignId: usd, amount: 400, status: 'approved' });
    const run = await svc.api('POST', '/v1/payouts/run');
    const payout = run.body.payouts.find((p: { partnerId: string }) => p.partnerId === partnerId);
    expect((await svc.api('POST', `/v1/payouts/${payout.id}/mark-paid`, { body: { reference: 'bank-1' } })).status).toBe(200);
    expect((await svc.api('POST', `/v1/commissions/${clawed}/reverse`, { body: { reason: 'chargeback' } })).status).toBe(200);
    expect(await entry(clawed, 'commission.clawback')).toMatchObject({
      ...byKey,
      target_type: 'commission',
      target_id: clawed,
      changes: { clawback: [null, { amount: '400', currency: 'USD' }], reason: [null, 'chargeback'] },
    });

    // a second payout, failed: what it held is released and payable again
    const partner2 = await insertPartner(svc.sql);
    const held = await insertCommission(svc.sql, { partnerId: partner2, campaignId: usd, amount: 700, status: 'approved' });
    const second = (await svc.api('POST', '/v1/payouts/run')).body.payouts.find((p: { partnerId: string }) => p.partnerId === partner2);
    expect((await svc.api('POST', `/v1/payouts/${second.id}/mark-failed`, { body: { reason: 'account closed' } })).status).toBe(200);
    expect(await entry(second.id, 'payout.failed')).toMatchObject({
      ...byKey,
      target_type: 'payout',
      target_id: second.id,
      changes: { status: ['pending', 'failed'], failureReason: [null, 'account closed'] },
    });
    expect(await entry(held, 'commission.released')).toMatchObject({ ...byKey, target_type: 'commission', target_id: held, changes: { status: ['paid', 'approved'], payoutId: [second.id, null] } });
  });

  test("a partner changes their payout method in the portal's session: the partner is the actor", async () => {
    const partnerId = await insertPartner(svc.sql);
    const first = await withSession({ kind: 'partner', partnerId }, 'PUT', `/v1/partners/${partnerId}/payout-method`, { type: 'paypal', email: 'me@example.com' });
    expect(first.status).toBe(200);
    await withSession({ kind: 'partner', partnerId }, 'PUT', `/v1/partners/${partnerId}/payout-method`, { type: 'wise', email: 'me@example.com' });
    const entries = (await entriesFor(svc.sql, partnerId)).filter((e) => e.action === 'payout.method_changed');
    expect(entries).toHaveLength(2);
    expect(entries[0]).toMatchObject({ actor_type: 'partner', actor_id: partnerId, target_type: 'partner', target_id: partnerId, changes: { type: [null, 'paypal'], email: [null, 'me@example.com'] } });
    expect(entries[1]!.changes).toEqual({ type: ['paypal', 'wise'] });
  });
});

describe('webhook endpoints and codes', () => {
  test('an endpoint updated, disabled, then deleted', async () => {
    const made = await svc.api('POST', '/v1/webhooks', { body: { url: 'https://hooks.example.com/a', events: ['*'] } });
    const id = made.body.endpoint.id as string;
    expect((await svc.api('PATCH', `/v1/webhooks/${id}`, { body: { url: 'https://hooks.example.com/b' } })).status).toBe(200);
    expect((await svc.api('DELETE', `/v1/webhooks/${id}`)).status).toBeLessThan(300);
    expect((await svc.api('DELETE', `/v1/webhooks/${id}?hard=true`)).status).toBeLessThan(300);
    expect(await entry(id, 'webhook_endpoint.updated')).toMatchObject({ ...byKey, target_type: 'webhook_endpoint', target_id: id, changes: { url: ['https://hooks.example.com/a', 'https://hooks.example.com/b'] } });
    expect(await entry(id, 'webhook_endpoint.disabled')).toMatchObject({ ...byKey, target_type: 'webhook_endpoint', changes: { active: [true, false] } });
    expect(await entry(id, 'webhook_endpoint.deleted')).toMatchObject({ ...byKey, target_type: 'webhook_endpoint', changes: expect.objectContaining({ url: ['https://hooks.example.com/b', null] }) });
  });

  test('a code archived and unarchived', async () => {
    const partnerId = await insertPartner(svc.sql);
    const campaignId = await campaign(svc, { rules: [] });
    await svc.sql`insert into partner_campaigns (partner_id, campaign_id, source) values (${partnerId}, ${campaignId}, 'admin') on conflict do nothing`;
    const code = await svc.api('POST', '/v1/codes', { body: { code: 'BACK10', partnerId, campaignId } });
    expect(code.status).toBe(201);
    await svc.api('PATCH', `/v1/codes/${code.body.id}`, { body: { archived: true } });
    expect((await svc.api('PATCH', `/v1/codes/${code.body.id}`, { body: { archived: false } })).status).toBe(200);
    expect(await entry(code.body.id, 'code.unarchived')).toMatchObject({ ...byKey, target_type: 'code', target_id: code.body.id, changes: { archived: [true, false] } });
  });
});
