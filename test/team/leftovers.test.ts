// The team beyond ADMIN_EMAILS: the admin sign-in page's "No admin" notice goes once someone is on
// the team; the admins' notification emails reach the members whose role they are for (owners from
// ADMIN_EMAILS always); OIDC_DEFAULT_ROLE=owner is refused at start (owners come from ADMIN_EMAILS).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../src/config';
import { insertCampaign, insertCommission, insertPartner } from '../support/lifecycle-fixtures';
import { startService, type TestService } from '../support/service';

const OWNER = 'owner@operator.example';

describe('the sign-in page notice', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startService({ ADMIN_EMAILS: '' });
  }, 60_000);
  afterAll(() => svc.stop());

  const signInPage = async () => (await fetch(`${svc.url}/admin/sign-in`)).text();

  test('"No admin" while nobody can sign in; gone once a member is on the team, who gets a link', async () => {
    const before = await signInPage();
    expect(before).toContain('id="no-admin"');
    expect(before).toContain('nobody is on the team');
    const invited = await svc.api('POST', '/v1/team', { body: { email: 'first@operator.example', role: 'admin' } });
    expect(invited.status).toBe(201);
    expect(await signInPage()).not.toContain('id="no-admin"');
    await svc.mail.magicLink('first@operator.example');
  });
});

describe("the admins' notification emails", () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startService({ ADMIN_EMAILS: OWNER, MIN_PAYOUT: '0' });
    for (const [email, role] of [
      ['fin@operator.example', 'finance'],
      ['sup@operator.example', 'support'],
      ['view@operator.example', 'viewer'],
      ['adm@operator.example', 'admin'],
    ]) {
      expect((await svc.api('POST', '/v1/team', { body: { email, role } })).status).toBe(201);
    }
  }, 60_000);
  afterAll(() => svc.stop());

  const recipients = (subject: RegExp) =>
    svc.mail.messages
      .filter((m) => subject.test(m.subject))
      .map((m) => m.to)
      .sort();

  test('a payout run summary: the owner, admins and finance; not support or viewers', async () => {
    const usd = await insertCampaign(svc.sql, { currency: 'USD' });
    const partnerId = await insertPartner(svc.sql);
    await insertCommission(svc.sql, { partnerId, campaignId: usd, amount: 1500, status: 'approved' });
    expect((await svc.api('POST', '/v1/payouts/run')).status).toBe(200);
    await svc.deliverEmails();
    const sent = await svc.sql<{ to_address: string }[]>`select to_address from email_outbox where template = 'payout_run_summary' and to_address <> '@admins' order by to_address`;
    expect(sent.map((r) => r.to_address)).toEqual(['adm@operator.example', 'fin@operator.example', OWNER]);
    expect(recipients(/payout run/i)).toEqual(['adm@operator.example', 'fin@operator.example', OWNER]);
  });

  test('a partner sign-up: the owner, admins and support; not finance or viewers', async () => {
    expect((await svc.api('PATCH', '/v1/settings', { body: { partnerSignup: 'open' } })).status).toBe(200);
    const res = await svc.api('POST', '/auth/signup', { key: null, body: { email: 'newbie@example.com', name: 'Newbie' } });
    expect(res.status).toBeLessThan(300);
    await svc.deliverEmails();
    const sent = await svc.sql<{ to_address: string }[]>`select to_address from email_outbox where template = 'partner_signup' and to_address <> '@admins' order by to_address`;
    expect(sent.map((r) => r.to_address)).toEqual(['adm@operator.example', OWNER, 'sup@operator.example']);
    expect(svc.mail.messages.some((m) => m.to === 'sup@operator.example' && /Newbie/.test(m.subject + m.text))).toBe(true);
  });
});

describe('OIDC_DEFAULT_ROLE', () => {
  const sso = { OIDC_ISSUER: 'https://idp.example.com', OIDC_CLIENT_ID: 'partnerd', OIDC_CLIENT_SECRET: 'secret' };

  test('owner is a configuration error naming the variable and where owners come from', () => {
    let error: unknown;
    try {
      loadConfig({ ...sso, OIDC_DEFAULT_ROLE: 'owner' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toContain('OIDC_DEFAULT_ROLE: cannot be "owner": owners come only from ADMIN_EMAILS; use admin, finance, support or viewer');
    expect(loadConfig({ ...sso, OIDC_DEFAULT_ROLE: 'admin' }).oidc?.defaultRole).toBe('admin');
  });

  test('the service refuses to start with it, saying why', async () => {
    const proc = Bun.spawn(['bun', 'run', 'src/index.ts'], {
      cwd: join(import.meta.dir, '..', '..'),
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none', PORT: '0', ...sso, OIDC_DEFAULT_ROLE: 'owner' },
      stdout: 'pipe',
      stderr: 'pipe',
    });
    const code = await proc.exited;
    const out = (await new Response(proc.stdout).text()) + (await new Response(proc.stderr).text());
    expect(code).not.toBe(0);
    expect(out).toContain('OIDC_DEFAULT_ROLE: cannot be "owner": owners come only from ADMIN_EMAILS');
  }, 30_000);
});
