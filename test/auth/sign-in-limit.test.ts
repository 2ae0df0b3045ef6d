// The per-email sign-in limit with the real service binary: two replicas on one database share the
// count, a restart keeps it, the email is stored only hashed, and old counts are pruned.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { startMailCatcher, type MailCatcher } from '../support/mail';
import { createTestDatabase } from '../support/postgres';
import { spawnService, type ServiceProcess } from '../support/process';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let mail: MailCatcher;
const replicas: ServiceProcess[] = [];
const children: ServiceProcess[] = [];
let env: Record<string, string>;

async function replica() {
  const child = await spawnService(db.url, env);
  children.push(child);
  return child;
}

beforeAll(async () => {
  db = await createTestDatabase(await globalThis.__partnerdTestServer!);
  mail = await startMailCatcher();
  // every request from an address of its own: the per-network limit (test/auth/csrf-and-sign-in-network.test.ts) stays out of the way
  env = { SMTP_URL: mail.url, ADMIN_EMAILS: 'boss@operator.example', TRUST_PROXY: '1' };
  replicas.push(...(await Promise.all([replica(), replica()])));
}, 60_000);

afterAll(async () => {
  for (const c of children) if (c.proc.exitCode === null && !c.proc.signalCode) c.proc.kill('SIGKILL');
  await Promise.all(children.map((c) => c.proc.exited));
  await mail.stop();
  await db.drop();
});

let asked = 0;
const ownAddress = () => ({ 'x-forwarded-for': `198.51.${Math.floor(++asked / 200)}.${asked % 200}` });
const askForLink = (r: ServiceProcess, email: string) =>
  fetch(`${r.url}/auth/magic-link`, { method: 'POST', headers: { 'content-type': 'application/json', ...ownAddress() }, body: JSON.stringify({ email }) }).then(
    async (res) => ({ status: res.status, body: (await res.json()) as any }),
  );
const mailsTo = (email: string) => mail.messages.filter((m) => m.to === email).length;

test('30 requests for one email spread over two replicas send exactly 5 mails; a restart does not reset the count', async () => {
  const created = await replicas[0]!.api('POST', '/partners', { email: 'ann@example.com', name: 'Ann', sendInvite: false });
  expect(created.status).toBe(201);

  // all at once, alternating replicas and the email's spelling
  const answers = await Promise.all(
    Array.from({ length: 30 }, (_, i) => askForLink(replicas[i % 2]!, i % 3 === 0 ? 'Ann@Example.com' : 'ann@example.com')),
  );
  expect(answers.filter((a) => a.status === 202)).toHaveLength(5);
  const refused = answers.filter((a) => a.status === 429);
  expect(refused).toHaveLength(25);
  for (const a of refused) {
    expect(a.body.code).toBe('rate_limited');
    expect(a.body.message).toMatch(/^too many requests; try again in \d+ s$/);
  }
  // a 202 is answered after the mail was handed to the SMTP server
  expect(mailsTo('ann@example.com')).toBe(5);

  // the database holds the count, under a hash of the address
  const rows = await db.sql`select email_hash from sign_in_requests`;
  expect(rows).toHaveLength(5);
  for (const r of rows) expect(r.email_hash).not.toContain('ann');

  // a restart of one replica and the arrival of a third change nothing
  replicas[0]!.proc.kill('SIGTERM');
  expect(await replicas[0]!.exited()).toBe(0);
  replicas[0] = await replica();
  const fresh = await replica();
  for (const r of [replicas[0], replicas[1]!, fresh]) expect((await askForLink(r, 'ann@example.com')).status).toBe(429);
  expect(mailsTo('ann@example.com')).toBe(5);

  // signup of an existing email mails a sign-in link too: the same count
  expect((await fresh.api('PATCH', '/v1/settings', { partnerSignup: 'open' })).status).toBe(200);
  const signup = await fetch(`${fresh.url}/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...ownAddress() },
    body: JSON.stringify({ email: 'ann@example.com', name: 'Ann' }),
  });
  expect(signup.status).toBe(429);
  expect(mailsTo('ann@example.com')).toBe(5);

  // other emails have their own count
  expect((await askForLink(fresh, 'boss@operator.example')).status).toBe(202);
  await mail.waitFor('boss@operator.example');
}, 90_000);

test('a request stops counting 15 minutes after it was made, and its row is deleted', async () => {
  const email = 'bea@example.com';
  expect((await replicas[1]!.api('POST', '/partners', { email, name: 'Bea', sendInvite: false })).status).toBe(201);
  for (let i = 0; i < 5; i++) expect((await askForLink(replicas[i % 2]!, email)).status).toBe(202);
  expect((await askForLink(replicas[0]!, email)).status).toBe(429);

  // 15 minutes pass for every request but bea's three newest: the window slides, two more are allowed
  await db.sql`
    update sign_in_requests set created_at = created_at - interval '15 minutes'
    where id not in (select id from sign_in_requests order by id desc limit 3)`;
  expect((await askForLink(replicas[1]!, email)).status).toBe(202);
  expect((await askForLink(replicas[0]!, email)).status).toBe(202);
  expect((await askForLink(replicas[1]!, email)).status).toBe(429);
  expect(mailsTo(email)).toBe(7);

  // the expired rows (ann's, the admin's, bea's two oldest) are gone; ann may ask again
  expect(await db.sql`select id from sign_in_requests where created_at <= now() - interval '15 minutes'`).toHaveLength(0);
  expect(await db.sql`select id from sign_in_requests`).toHaveLength(5);
  expect((await askForLink(replicas[0]!, 'ann@example.com')).status).toBe(202);
  expect(mailsTo('ann@example.com')).toBe(6);
}, 60_000);
