// SIGTERM on a real process: clicks answered by redirects are written before it exits.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { join } from 'node:path';
import { eventually } from '../support/eventually';
import { createTestDatabase } from '../support/postgres';
import { ADMIN_KEY, freePort } from '../support/service';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
beforeAll(async () => {
  db = await createTestDatabase(await globalThis.__partnerdTestServer!);
}, 60_000);
afterAll(() => db.drop());

test('SIGTERM flushes the click buffer', async () => {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, '..', '..', 'src', 'index.ts')], {
    env: { ...process.env, PORT: String(port), BASE_URL: url, DATABASE_URL: db.url, ADMIN_API_KEY: ADMIN_KEY, LOG_LEVEL: 'error' },
    stdout: 'ignore',
    stderr: 'inherit',
  });
  try {
    // as long as spawnService gives a cold start on a loaded machine
    await eventually(async () => expect(await fetch(`${url}/readyz`).then((r) => r.ok, () => false)).toBe(true), { timeout: 30_000 });
    const call = async (path: string, body: unknown) => {
      const res = await fetch(url + path, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return (await res.json()) as any;
    };
    const cmp = await call('/v1/campaigns', { name: 'C', destinationUrl: 'https://shop.example/', currency: 'USD' });
    const ptn = await call('/v1/partners', { email: 'sigterm@example.com', name: 'P', sendInvite: false });
    const l = await call('/v1/links', { campaignId: cmp.id, partnerId: ptn.id });
    const answered = await Promise.all(
      Array.from({ length: 200 }, () => fetch(l.url, { redirect: 'manual' }).then((r) => new URL(r.headers.get('location')!).searchParams.get('pp_click'))),
    );
    proc.kill('SIGTERM');
    expect(await proc.exited).toBe(0);
    const rows = await db.sql`select id from clicks where link_id = ${l.id}`;
    expect(new Set(rows.map((r) => r.id))).toEqual(new Set(answered));
  } finally {
    proc.kill('SIGKILL');
  }
}, 60_000);
