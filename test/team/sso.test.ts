// Single sign-on against a real OpenID Connect provider (oidc-provider from npm) on 127.0.0.1: its
// own login and consent pages are followed as a browser would. A verified address of an allowed
// domain joins as OIDC_DEFAULT_ROLE; a wrong domain and an unverified address are refused; a
// replayed callback and a forged state open no session.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import Provider from 'oidc-provider';
import type { Server } from 'node:http';
import { freePort, startService, type TestService } from '../support/service';

setDefaultTimeout(60_000);

let svc: TestService;
let provider: Server;

beforeAll(async () => {
  const port = await freePort();
  const servicePort = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const oidc = new Provider(issuer, {
    clients: [{ client_id: 'partnerd', client_secret: 'provider-secret', redirect_uris: [`http://127.0.0.1:${servicePort}/auth/oidc/callback`] }],
    cookies: { keys: ['test-cookie-key'] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    // the login name is the email; "unverified:" in front makes the provider say it is not verified
    async findAccount(_ctx: unknown, id: string) {
      return { accountId: id, claims: async () => ({ sub: id, email: id.replace(/^unverified:/, ''), email_verified: !id.startsWith('unverified:') }) };
    },
  } as never);
  provider = oidc.listen(port);
  svc = await startService({
    PORT: String(servicePort),
    BASE_URL: `http://127.0.0.1:${servicePort}`,
    ADMIN_EMAILS: 'owner@operator.example',
    OIDC_ISSUER: issuer,
    OIDC_CLIENT_ID: 'partnerd',
    OIDC_CLIENT_SECRET: 'provider-secret',
    OIDC_ALLOWED_DOMAINS: 'operator.example',
    OIDC_DEFAULT_ROLE: 'support',
  });
}, 60_000);
afterAll(async () => {
  await svc?.stop();
  provider?.close();
});

type Jar = Map<string, string>;
const store = (jar: Jar, res: Response) => {
  for (const c of res.headers.getSetCookie()) {
    const [kv] = c.split(';');
    const i = kv!.indexOf('=');
    jar.set(kv!.slice(0, i), kv!.slice(i + 1));
  }
};
const cookieOf = (jar: Jar) => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');

/**
 * Starts SSO at the service and signs in at the provider as `login`, through its login and consent
 * forms; answers the callback URL the provider sends the browser to, and the service's cookies.
 */
async function throughProvider(login: string): Promise<{ callback: string; ours: Jar }> {
  const ours: Jar = new Map();
  const start = await fetch(`${svc.url}/auth/oidc/start`, { redirect: 'manual' });
  expect(start.status).toBe(303);
  store(ours, start);
  expect(ours.get('partnerd_oidc')).toBeTruthy();
  const theirs: Jar = new Map();
  let url = start.headers.get('location')!;
  let body: URLSearchParams | undefined;
  for (let i = 0; i < 12; i++) {
    const res = await fetch(url, { method: body ? 'POST' : 'GET', body, headers: { cookie: cookieOf(theirs) }, redirect: 'manual' });
    store(theirs, res);
    body = undefined;
    if (res.status >= 300 && res.status < 400) {
      url = new URL(res.headers.get('location')!, url).href;
      if (url.startsWith(`${svc.url}/auth/oidc/callback`)) return { callback: url, ours };
      continue;
    }
    const html = await res.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    if (!action) throw new Error(`provider page without a form: ${res.status}`);
    const inputs = [...html.matchAll(/<input[^>]*>/g)].map((m) => [/name="([^"]+)"/.exec(m[0])?.[1] ?? '', /value="([^"]*)"/.exec(m[0])?.[1] ?? '']).filter(([n]) => n);
    body = new URLSearchParams(inputs as [string, string][]);
    if (body.has('login')) {
      body.set('login', login);
      body.set('password', 'any');
    }
    url = new URL(action, url).href;
  }
  throw new Error('the provider never sent the browser back');
}

const callback = (url: string, jar: Jar) => fetch(url, { headers: { cookie: cookieOf(jar) }, redirect: 'manual' });

describe('single sign-on', () => {
  test('the admin sign-in page offers it', async () => {
    const page = await (await fetch(`${svc.url}/admin/sign-in`)).text();
    expect(page).toContain('Sign in with SSO');
  });

  test('a verified address of an allowed domain joins with the default role and is signed in', async () => {
    const { callback: url, ours } = await throughProvider('sam@operator.example');
    const res = await callback(url, ours);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/admin');
    const session = res.headers.getSetCookie().find((c) => c.startsWith('partnerd_session='))!.split(';')[0]!;
    const admin = await fetch(`${svc.url}/admin`, { headers: { cookie: session }, redirect: 'manual' });
    expect(admin.status).toBe(200);
    const [member] = await svc.sql`select role, source, last_sign_in_at from team_members where email = 'sam@operator.example'`;
    expect(member).toMatchObject({ role: 'support', source: 'sso' });
    expect(member!.last_sign_in_at).not.toBeNull();
    // the audit log: the member joined, by their own sign-in
    const [joined] = await svc.sql`select actor_type, actor_id, target_type, changes from audit_log where action = 'team.member_joined'`;
    expect(joined).toMatchObject({
      actor_type: 'admin',
      actor_id: 'sam@operator.example',
      target_type: 'team_member',
      changes: { email: [null, 'sam@operator.example'], role: [null, 'support'], source: [null, 'sso'] },
    });
    // support: partners yes, money no
    expect((await svc.api('GET', '/v1/partners', { key: null, headers: { cookie: session } })).status).toBe(200);
    expect((await svc.api('POST', '/v1/payouts/run', { key: null, headers: { cookie: session, origin: svc.url } })).status).toBe(403);

    // the same callback again (a replay) opens no session
    const replay = await callback(url, ours);
    expect(replay.status).toBe(400);
    expect(await replay.text()).toContain('used already');
    expect(replay.headers.getSetCookie().some((c) => c.startsWith('partnerd_session=') && !c.startsWith('partnerd_session=;'))).toBe(false);
  });

  test('an address of another domain is refused and added to nothing', async () => {
    const { callback: url, ours } = await throughProvider('eve@elsewhere.example');
    const res = await callback(url, ours);
    expect(res.status).toBe(403);
    expect(await res.text()).toContain('elsewhere.example is not a domain allowed');
    expect((await svc.sql`select count(*)::int as n from team_members where email = 'eve@elsewhere.example'`)[0]!.n).toBe(0);
    expect((await svc.sql`select count(*)::int as n from sessions where admin_email = 'eve@elsewhere.example'`)[0]!.n).toBe(0);
  });

  test('an existing member of another domain may sign in', async () => {
    await svc.api('POST', '/v1/team', { body: { email: 'contractor@elsewhere.example', role: 'viewer' } });
    const { callback: url, ours } = await throughProvider('contractor@elsewhere.example');
    expect((await callback(url, ours)).status).toBe(303);
  });

  test('an address the provider has not verified is refused', async () => {
    const { callback: url, ours } = await throughProvider('unverified:una@operator.example');
    const res = await callback(url, ours);
    expect(res.status).toBe(403);
    expect(await res.text()).toContain('has not verified una@operator.example');
    expect((await svc.sql`select count(*)::int as n from team_members where email = 'una@operator.example'`)[0]!.n).toBe(0);
  });

  test('a forged state, or a callback in a browser that did not start the sign-in, is refused', async () => {
    const { callback: url, ours } = await throughProvider('sam@operator.example');
    const forged = new URL(url);
    forged.searchParams.set('state', 'forged-state');
    const res = await callback(forged.href, ours);
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('state does not match');
    // another browser (no state cookie) with the real callback
    expect((await callback(url, new Map())).status).toBe(400);
    // the login was not spent by either: the real browser still completes it
    expect((await callback(url, ours)).status).toBe(303);
  });
});
