// Magic links and sessions: invite, sign-in, expiry, single use, revoke ending sessions.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { outbox, startService, type TestService } from '../support/service';

let svc: TestService;
beforeAll(async () => {
  svc = await startService({ ADMIN_EMAILS: 'boss@operator.example' });
});
afterAll(() => svc.stop());

async function invite(email: string, name = 'Partner') {
  const res = await svc.api('POST', '/partners', { body: { email, name } });
  expect(res.status).toBe(201);
  return { id: res.body.id as string, link: await svc.mail.magicLink(email) };
}

async function follow(link: string) {
  const res = await fetch(link, { redirect: 'manual' });
  const cookie = res.headers.get('set-cookie');
  return { res, cookie: cookie ? cookie.split(';')[0]! : null, setCookie: cookie };
}

async function portal(cookie: string | null) {
  const res = await fetch(`${svc.url}/portal`, { headers: cookie ? { cookie } : {}, redirect: 'manual' });
  return { status: res.status, html: await res.text() };
}

describe('invite links', () => {
  test('the emailed link activates the partner, opens a session and lands on /portal', async () => {
    const { id, link } = await invite('mia@example.com', 'Mia <b>Bold</b>');
    expect(link.startsWith(`${svc.url}/auth/magic?token=`)).toBe(true);
    const { res, cookie, setCookie } = await follow(link);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/portal');
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('SameSite=Lax');
    expect(setCookie).not.toContain('Secure'); // BASE_URL is http here

    const page = await portal(cookie);
    expect(page.status).toBe(200);
    expect(page.html).toContain('Mia &lt;b&gt;Bold&lt;/b&gt;');
    expect(page.html).not.toContain('<b>Bold</b>');

    const partner = await svc.api('GET', `/partners/${id}`);
    expect(partner.body.status).toBe('active');
    const activated = await outbox(svc.sql, 'partner.activated');
    expect(activated.at(-1)!.data).toEqual({
      partnerId: id,
      email: 'mia@example.com',
      name: 'Mia <b>Bold</b>',
      activatedAt: partner.body.activatedAt,
    });
    const [token] = await svc.sql`select token_hash from magic_links where partner_id = ${id}`;
    expect(link).not.toContain(token!.token_hash); // stored hashed, not as sent

    // the session works as the partner on the API, and only for itself
    const self = await fetch(`${svc.url}/partners/${id}`, { headers: { cookie: cookie! } });
    expect(self.status).toBe(200);
    const list = await fetch(`${svc.url}/partners`, { headers: { cookie: cookie! } });
    expect(list.status).toBe(403);
  });

  test('a link works once', async () => {
    const { link } = await invite('once@example.com');
    expect((await follow(link)).res.status).toBe(302);
    const second = await follow(link);
    expect(second.res.status).toBe(400);
    // no session; only the pre-session CSRF cookie of its "Send me a new link" form
    expect(second.setCookie ?? '').not.toContain('partnerd_session');
    expect(await second.res.text()).toContain('expired or was already used');
  });

  test('a link older than 15 minutes is refused and activates nothing', async () => {
    const { id, link } = await invite('late@example.com');
    await svc.sql`update magic_links set expires_at = now() - interval '1 second' where partner_id = ${id}`;
    const { res, setCookie } = await follow(link);
    expect(res.status).toBe(400);
    expect(setCookie ?? '').not.toContain('partnerd_session');
    expect((await svc.api('GET', `/partners/${id}`)).body.status).toBe('pending');
    expect((await outbox(svc.sql, 'partner.activated')).filter((e) => e.data.partnerId === id)).toHaveLength(0);
  });

  test('links live 15 minutes', async () => {
    const { id } = await invite('ttl@example.com');
    const [row] = await svc.sql`select extract(epoch from expires_at - created_at)::int as s from magic_links where partner_id = ${id}`;
    expect(row!.s).toBe(900);
  });

  test('garbage tokens are refused without a 500', async () => {
    for (const q of ['', '?token=', '?token=nope', `?token=${'x'.repeat(500)}`, '?token=%00%ff']) {
      const res = await fetch(`${svc.url}/auth/magic${q}`, { redirect: 'manual' });
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
    }
  });
});

describe('sign-in links', () => {
  test('the answer is the same for known, unknown and revoked emails', async () => {
    await svc.api('POST', '/partners', { body: { email: 'known@example.com', name: 'Known', sendInvite: false } });
    const known = await svc.api('POST', '/auth/magic-link', { key: null, body: { email: 'KNOWN@example.com' } });
    const unknown = await svc.api('POST', '/auth/magic-link', { key: null, body: { email: 'ghost@example.com' } });
    expect(known.status).toBe(202);
    expect(unknown.status).toBe(202);
    expect(unknown.body).toEqual(known.body);
    const link = await svc.mail.magicLink('known@example.com');
    const { res, cookie } = await follow(link);
    expect(res.headers.get('location')).toBe('/portal');
    expect((await portal(cookie)).html).toContain('Known');
    // mail goes out before the request is answered (the catcher stores a message before it
    // acknowledges it), so anything sent to the unknown address would be here already
    expect(svc.mail.messages.filter((m) => m.to === 'ghost@example.com')).toHaveLength(0);
  });

  test('a revoked partner gets the reason by email, not a link', async () => {
    const p = await svc.api('POST', '/partners', { body: { email: 'gone@example.com', name: 'Gone', sendInvite: false } });
    await svc.api('POST', `/partners/${p.body.id}/revoke`, { body: { reason: 'terms violation' } });
    const before = svc.mail.messages.length;
    const res = await svc.api('POST', '/auth/magic-link', { key: null, body: { email: 'gone@example.com' } });
    expect(res.status).toBe(202);
    const mail = await svc.mail.waitFor('gone@example.com', (m) => svc.mail.messages.indexOf(m) >= before);
    expect(mail.text).toContain('terms violation');
    expect(mail.text).not.toContain('/auth/magic?token=');
  });

  test('an invite link used after a revoke shows the reason and opens no session', async () => {
    const { id, link } = await invite('late-revoked@example.com');
    await svc.api('POST', `/partners/${id}/revoke`, { body: { reason: 'duplicate account' } });
    const { res, cookie } = await follow(link);
    expect(res.status).toBe(403);
    expect(cookie).toBeNull();
    expect(await res.text()).toContain('duplicate account');
  });

  test('an invalid email is 400', async () => {
    const res = await svc.api('POST', '/auth/magic-link', { key: null, body: { email: 'nope' } });
    expect(res.status).toBe(400);
    expect(res.body.details[0].field).toBe('email');
  });

  test('repeated requests for one email are rate limited', async () => {
    let last = 0;
    for (let i = 0; i < 6; i++) last = (await svc.api('POST', '/auth/magic-link', { key: null, body: { email: 'spam@example.com' } })).status;
    expect(last).toBe(429);
  });

  test('admins listed in ADMIN_EMAILS sign in to /admin', async () => {
    await svc.api('POST', '/auth/magic-link', { key: null, body: { email: 'Boss@Operator.example' } });
    const link = await svc.mail.magicLink('boss@operator.example');
    const { res, cookie } = await follow(link);
    expect(res.headers.get('location')).toBe('/admin');
    const page = await fetch(`${svc.url}/admin`, { headers: { cookie: cookie! } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('boss@operator.example');
    // an admin session acts as admin on the API
    const list = await fetch(`${svc.url}/partners`, { headers: { cookie: cookie! } });
    expect(list.status).toBe(200);
    // but not from another site
    const cross = await fetch(`${svc.url}/partners`, {
      method: 'POST',
      headers: { cookie: cookie!, origin: 'https://evil.example', 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'csrf@example.com', name: 'CSRF' }),
    });
    expect(cross.status).toBe(403);
    expect(await svc.sql`select 1 from partners where email = 'csrf@example.com'`).toHaveLength(0);
  });
});

describe('revoking ends access at once', () => {
  test('a live session stops working on revoke; logout ends a session', async () => {
    const { id, link } = await invite('live@example.com');
    const { cookie } = await follow(link);
    expect((await portal(cookie)).status).toBe(200);
    expect((await fetch(`${svc.url}/partners/${id}`, { headers: { cookie: cookie! } })).status).toBe(200);

    await svc.api('POST', `/partners/${id}/revoke`, { body: { reason: 'x' } });
    // the portal shows the revoke reason and nothing else (test/web has the browser view)
    const revoked = await portal(cookie);
    expect(revoked.status).toBe(403);
    expect(revoked.html).toContain('Reason: <span class="reason">x</span>');
    expect((await fetch(`${svc.url}/partners/${id}`, { headers: { cookie: cookie! } })).status).toBe(401);
    const [row] = await svc.sql`select count(*)::int as n from sessions where partner_id = ${id} and revoked_at is null`;
    expect(row!.n).toBe(0);

    const other = await invite('bye@example.com');
    const session = await follow(other.link);
    const out = await fetch(`${svc.url}/auth/logout`, { method: 'POST', headers: { cookie: session.cookie! } });
    expect(out.status).toBe(200);
    expect((await portal(session.cookie)).status).toBe(303); // to the sign-in page
  });

  test('POST revoke keeps partner keys, DELETE revokes them', async () => {
    const p = await svc.api('POST', '/partners', { body: { email: 'keys@example.com', name: 'Keys', sendInvite: false } });
    const key = await svc.partnerKey(p.body.id);
    await svc.api('POST', `/partners/${p.body.id}/revoke`);
    const stillReads = await svc.api('GET', `/partners/${p.body.id}`, { key });
    expect(stillReads.status).toBe(200);
    expect(stillReads.body.status).toBe('revoked');
    await svc.api('DELETE', `/v1/partners/${p.body.id}`);
    expect((await svc.api('GET', `/partners/${p.body.id}`, { key })).status).toBe(401);
  });
});
