import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { insertCampaign } from '../support/campaigns';
import { outbox, startService, type TestService } from '../support/service';

let svc: TestService;
beforeAll(async () => {
  svc = await startService();
});
afterAll(() => svc.stop());

const create = (body: Record<string, unknown>, path = '/partners') => svc.api('POST', path, { body });

describe('creating partners', () => {
  test('an invited partner is pending, gets the email, and partner.created is enqueued', async () => {
    const res = await create({ email: 'Ann.Lee@Example.COM', name: 'Ann Lee' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ email: 'ann.lee@example.com', name: 'Ann Lee', activatedAt: null, invited: true });
    expect(res.body.id).toMatch(/^ptn_[0-9a-z]{26}$/);
    expect(new Date(res.body.createdAt).toISOString()).toBe(res.body.createdAt);

    const mail = await svc.mail.waitFor('ann.lee@example.com');
    expect(mail.text).toContain(`${svc.url}/auth/magic?token=`);

    const [row] = await svc.sql`select email, activated_at from partners where id = ${res.body.id}`;
    expect(row).toEqual({ email: 'ann.lee@example.com', activated_at: null });

    const events = await outbox(svc.sql, 'partner.created');
    expect(events.at(-1)!.data).toEqual({
      partnerId: res.body.id,
      email: 'ann.lee@example.com',
      name: 'Ann Lee',
      activatedAt: null,
      invited: true,
      campaignIds: [],
    });
  });

  test('sendInvite=false creates an active partner and sends no email', async () => {
    const res = await create({ email: 'quiet@example.com', name: 'Quiet', sendInvite: false }, '/v1/partners');
    expect(res.status).toBe(201);
    expect(res.body.invited).toBe(false);
    expect(res.body.activatedAt).toBe(res.body.createdAt);
    // an invite goes out before the answer (the catcher stores a message before acknowledging it):
    // none came
    expect(svc.mail.messages.filter((m) => m.to === 'quiet@example.com')).toHaveLength(0);
    const events = await outbox(svc.sql, 'partner.created');
    expect(events.at(-1)!.data).toMatchObject({ partnerId: res.body.id, invited: false, activatedAt: res.body.activatedAt });
  });

  test('a duplicate email, in any case, is 409 conflict and creates nothing', async () => {
    await create({ email: 'dup@example.com', name: 'One', sendInvite: false });
    const before = await svc.sql`select count(*)::int as n from partners`;
    const res = await create({ email: 'DUP@example.com', name: 'Two', sendInvite: false });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('conflict');
    const after = await svc.sql`select count(*)::int as n from partners`;
    expect(after[0]!.n).toBe(before[0]!.n);
  });

  test('campaignIds: omitted grants every current campaign, [] grants none, unknown ids are 400', async () => {
    const a = await insertCampaign(svc.sql);
    const b = await insertCampaign(svc.sql);
    await insertCampaign(svc.sql, { archived: true });
    const all = await create({ email: 'all@example.com', name: 'All', sendInvite: false });
    expect(all.body.campaignIds).toEqual([a, b].sort());
    const none = await create({ email: 'none@example.com', name: 'None', sendInvite: false, campaignIds: [] });
    expect(none.body.campaignIds).toEqual([]);
    const some = await create({ email: 'some@example.com', name: 'Some', sendInvite: false, campaignIds: [b] });
    expect(some.body.campaignIds).toEqual([b]);
    const bad = await create({ email: 'bad@example.com', name: 'Bad', campaignIds: [a, 'cmp_nope'] });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('invalid_body');
    expect(bad.body.details).toEqual([{ field: 'campaignIds', message: 'unknown or archived campaign cmp_nope' }]);
    expect(await svc.sql`select 1 from partners where email = 'bad@example.com'`).toHaveLength(0);
  });

  test('network federation stores the snapshot and emits partnership.approved', async () => {
    const campaign = await insertCampaign(svc.sql);
    const snapshot = { rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 25 }], holdbackDays: 14 };
    const res = await create({
      email: 'creator@network.example',
      name: 'Creator',
      sendInvite: false,
      campaignIds: [campaign],
      campaignGrantSource: 'offering',
      metadata: { networkCreatorId: 'nc_42', source: 'network' },
      commissionSnapshot: snapshot,
    });
    expect(res.status).toBe(201);
    const approved = await outbox(svc.sql, 'partnership.approved');
    expect(approved.at(-1)!.data).toEqual({
      partnerId: res.body.id,
      email: 'creator@network.example',
      name: 'Creator',
      networkCreatorId: 'nc_42',
      campaignIds: [campaign],
    });
    const created = (await outbox(svc.sql)).filter((e) => e.data.partnerId === res.body.id).map((e) => e.type);
    expect(created).toEqual(['partner.created', 'partnership.approved']);

    const snap = await svc.api('GET', `/partners/${res.body.id}/commission-snapshot`);
    expect(snap.status).toBe(200);
    expect(snap.body).toMatchObject({ partnerId: res.body.id, ...snapshot });
    const [grant] = await svc.sql`select source from partner_campaigns where partner_id = ${res.body.id}`;
    expect(grant!.source).toBe('offering');
  });

  test('a partner without a snapshot answers null', async () => {
    const p = await create({ email: 'nosnap@example.com', name: 'No snap', sendInvite: false });
    const snap = await svc.api('GET', `/partners/${p.body.id}/commission-snapshot`);
    expect(snap.status).toBe(200);
    expect(snap.body).toBeNull();
  });
});

describe('listing partners', () => {
  test('walking every page with limit=2 yields each partner once, newest first', async () => {
    const all = (await svc.sql`select id from partners order by id desc`).map((r) => r.id as string);
    expect(all.length).toBeGreaterThan(5);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = cursor ? `?limit=2&cursor=${cursor}` : '?limit=2';
      const res = await svc.api('GET', `/partners${query}`);
      expect(res.status).toBe(200);
      expect(res.body.partners.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.partners.map((p: { id: string }) => p.id));
      cursor = res.body.nextCursor;
      pages++;
    } while (cursor);
    expect(seen).toEqual(all);
    expect(pages).toBe(Math.ceil(all.length / 2));
  });

  test('list items carry exactly the SPEC fields', async () => {
    const res = await svc.api('GET', '/v1/partners?limit=1');
    expect(Object.keys(res.body.partners[0]).sort()).toEqual(
      ['activatedAt', 'billingConnectAccountId', 'createdAt', 'email', 'id', 'name', 'revokedAt'].sort(),
    );
  });

  test('email filter is exact and case-insensitive', async () => {
    const res = await svc.api('GET', '/partners?email=ANN.LEE@example.com');
    expect(res.body.partners.map((p: { email: string }) => p.email)).toEqual(['ann.lee@example.com']);
    const partial = await svc.api('GET', '/partners?email=ann');
    expect(partial.body.partners).toEqual([]);
    expect(partial.body.nextCursor).toBeNull();
  });

  test('limit defaults to 100 and outside 1-200 is invalid_query', async () => {
    const res = await svc.api('GET', '/partners');
    expect(res.body.partners.length).toBe(Math.min(100, (await svc.sql`select count(*)::int as n from partners`)[0]!.n));
    for (const limit of ['0', '201', 'abc', '-1', '1.5']) {
      const bad = await svc.api('GET', `/partners?limit=${limit}`);
      expect(bad.status).toBe(400);
      expect(bad.body).toMatchObject({ code: 'invalid_query', details: [{ field: 'limit' }] });
    }
    const ok = await svc.api('GET', '/partners?limit=200');
    expect(ok.status).toBe(200);
  });

  test('a garbled cursor is invalid_query', async () => {
    const bad = await svc.api('GET', '/partners?cursor=%27%3Bdrop');
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('invalid_query');
  });
});

describe('one partner', () => {
  test('GET answers the full record', async () => {
    const p = await create({ email: 'full@example.com', name: 'Full', sendInvite: false, metadata: { tier: 'gold' } });
    const res = await svc.api('GET', `/v1/partners/${p.body.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: p.body.id,
      email: 'full@example.com',
      name: 'Full',
      status: 'active',
      activatedAt: p.body.activatedAt,
      createdAt: p.body.createdAt,
      revokedAt: null,
      revokeReason: null,
      billingConnectAccountId: null,
      payoutEmail: null,
      metadata: { tier: 'gold' },
      campaignIds: p.body.campaignIds,
      // not an application (self-signup under review)
      appliedAt: null,
      applicationAnswers: null,
      declineReason: null,
      // every email on until the partner turns one off
      notifications: { commissionAccrued: true, commissionApproved: true, payoutSent: true, monthlyStatement: true },
      groupId: null,
      referredBy: null,
    });
  });

  test('unknown id is 404 not_found', async () => {
    const res = await svc.api('GET', '/partners/ptn_00000000000000000000000000');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not_found');
  });

  test('PATCH changes name, metadata, campaigns and payout account', async () => {
    const campaign = await insertCampaign(svc.sql);
    const p = await create({ email: 'patch@example.com', name: 'Before', sendInvite: false, campaignIds: [] });
    const res = await svc.api('PATCH', `/partners/${p.body.id}`, {
      body: { name: 'After', metadata: { a: 1 }, campaignIds: [campaign], billingConnectAccountId: 'acct_123' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'After', metadata: { a: 1 }, campaignIds: [campaign], billingConnectAccountId: 'acct_123' });
    const cleared = await svc.api('PATCH', `/partners/${p.body.id}`, { body: { billingConnectAccountId: null, campaignIds: [] } });
    expect(cleared.body).toMatchObject({ name: 'After', billingConnectAccountId: null, campaignIds: [] });
    const list = await svc.api('GET', `/partners?email=patch@example.com`);
    expect(list.body.partners[0].billingConnectAccountId).toBeNull();
  });

  test('invite re-issues a link to a pending partner; each link works; active partners get 409', async () => {
    const p = await create({ email: 'twice@example.com', name: 'Twice' });
    const first = await svc.mail.magicLink('twice@example.com');
    const res = await svc.api('POST', `/partners/${p.body.id}/invite`);
    expect(res.status).toBe(200);
    expect(res.body.ok).toBe(true);
    // the new link's, good for 15 minutes from its issue
    const [issued] = await svc.sql`
      select expires_at, extract(epoch from expires_at - created_at)::int as ttl
      from magic_links where partner_id = ${p.body.id} order by created_at desc limit 1`;
    expect(res.body.expiresAt).toBe((issued!.expires_at as Date).toISOString());
    expect(issued!.ttl).toBe(15 * 60);
    const second = await svc.mail.magicLink('twice@example.com', (m) => !m.text.includes(first));
    expect(second).not.toBe(first);
    const links = await svc.sql`select count(*)::int as n from magic_links where partner_id = ${p.body.id} and used_at is null`;
    expect(links[0]!.n).toBe(2);

    const used = await fetch(first, { redirect: 'manual' });
    expect(used.status).toBe(302);
    const again = await svc.api('POST', `/partners/${p.body.id}/invite`);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('conflict');
  });

  test('revoke keeps the reason, is idempotent, and reinstate restores the earlier state', async () => {
    const active = await create({ email: 'rev@example.com', name: 'Rev', sendInvite: false });
    const res = await svc.api('POST', `/partners/${active.body.id}/revoke`, { body: { reason: 'fraudulent clicks' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'revoked', revokeReason: 'fraudulent clicks' });
    expect(res.body.revokedAt).not.toBeNull();
    const mail = await svc.mail.waitFor('rev@example.com', (m) => m.subject.includes('suspended'));
    expect(mail.text).toContain('fraudulent clicks');

    const twice = await svc.api('POST', `/partners/${active.body.id}/revoke`, { body: { reason: 'other' } });
    expect(twice.body).toMatchObject({ revokedAt: res.body.revokedAt, revokeReason: 'fraudulent clicks' });

    const back = await svc.api('POST', `/partners/${active.body.id}/reinstate`);
    expect(back.status).toBe(200);
    expect(back.body).toMatchObject({ status: 'active', revokedAt: null, revokeReason: null, activatedAt: active.body.activatedAt });
    const notRevoked = await svc.api('POST', `/partners/${active.body.id}/reinstate`);
    expect(notRevoked.status).toBe(409);

    const pending = await create({ email: 'pend@example.com', name: 'Pend' });
    await svc.api('POST', `/partners/${pending.body.id}/revoke`);
    const inviteRevoked = await svc.api('POST', `/partners/${pending.body.id}/invite`);
    expect(inviteRevoked.status).toBe(409);
    const pendingBack = await svc.api('POST', `/v1/partners/${pending.body.id}/reinstate`);
    expect(pendingBack.body).toMatchObject({ status: 'pending', activatedAt: null });
  });

  test('DELETE /v1/partners/:id revokes the partner and its keys', async () => {
    const p = await create({ email: 'del@example.com', name: 'Del', sendInvite: false });
    const keyRes = await svc.api('POST', `/v1/partners/${p.body.id}/api-keys`, { body: { name: 'theirs' } });
    expect(keyRes.status).toBe(201);
    expect(keyRes.body).toMatchObject({ kind: 'partner', name: 'theirs', scopes: [] });
    expect(keyRes.body.key).toMatch(/^sk_ptn_/);
    const key = keyRes.body.key as string;
    expect((await svc.api('GET', `/partners/${p.body.id}`, { key })).status).toBe(200);

    const res = await svc.api('DELETE', `/v1/partners/${p.body.id}`, { body: { reason: 'closed account' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'revoked', revokeReason: 'closed account' });
    const after = await svc.api('GET', `/partners/${p.body.id}`, { key });
    expect(after.status).toBe(401);
    const [row] = await svc.sql`select revoked_at from api_keys where partner_id = ${p.body.id}`;
    expect(row!.revoked_at).not.toBeNull();
  });
});
