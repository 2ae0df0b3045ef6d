// SIGKILL of the real service while concurrent events are being group-committed: every event it
// acknowledged is stored, none twice, and clients retrying with their Idempotency-Key after the
// restart end with exactly one event per request.
import { afterAll, expect, test } from 'bun:test';
import { createTestDatabase } from '../support/postgres';
import { spawnService, type ServiceProcess } from '../support/process';
import { ADMIN_KEY } from '../support/service';

const databases: { drop(): Promise<void> }[] = [];
const children: ServiceProcess[] = [];
afterAll(async () => {
  for (const c of children) if (c.proc.exitCode === null && !c.proc.signalCode) c.proc.kill('SIGKILL');
  await Promise.all(children.map((c) => c.proc.exited));
  for (const d of databases) await d.drop();
});

type Sent = { key: string; userId: string; seq: number; id?: string };

async function send(url: string, s: Sent): Promise<{ status: number; id?: string } | null> {
  try {
    const res = await fetch(`${url}/v1/events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json', 'idempotency-key': s.key },
      body: JSON.stringify({ userId: s.userId, type: 'invoice_paid', amount: 100, currency: 'USD', metadata: { seq: s.seq } }),
    });
    const body = (await res.json()) as { id?: string };
    return { status: res.status, id: body.id };
  } catch {
    return null; // the process died before answering
  }
}

test('SIGKILL under load: acknowledged events are all stored, none doubled; retries after restart record the rest once', async () => {
  const db = await createTestDatabase(await globalThis.__partnerdTestServer!);
  databases.push(db);
  const env = { EVENT_BATCH_WAIT_MS: '5', EVENT_BATCH_CONCURRENCY: '2' };
  const first = await spawnService(db.url, env);
  children.push(first);

  const sent: Sent[] = [];
  let seq = 0;
  // 16 clients, each sending one event after another until one gets no answer: the process is gone
  // (so every client ends with a request cut off, whatever was in flight when the kill landed)
  const clients = Array.from({ length: 16 }, async (_, c) => {
    for (;;) {
      const s: Sent = { key: `crash-${c}-${seq}`, userId: `crash-user-${seq % 40}`, seq: seq++ };
      sent.push(s);
      const answer = await send(first.url, s);
      if (answer === null) break;
      expect(answer.status).toBe(201);
      s.id = answer.id;
    }
  });
  // kill once a good number of events have been acknowledged, with requests in flight
  while (sent.filter((s) => s.id).length < 300) await Bun.sleep(10);
  first.proc.kill('SIGKILL');
  await Promise.all(clients);
  await first.exited();

  const acknowledged = sent.filter((s) => s.id);
  const stored = await db.sql`select id, idempotency_key, (metadata->>'seq')::int as seq from events`;
  const storedIds = new Set(stored.map((r) => r.id));
  expect(acknowledged.filter((s) => !storedIds.has(s.id!))).toEqual([]);
  // none doubled: one row per request (seq), and every stored row is a request that was sent
  expect(new Set(stored.map((r) => r.seq)).size).toBe(stored.length);
  expect(stored.every((r) => sent.some((s) => s.key === r.idempotency_key && s.seq === r.seq))).toBe(true);
  // some requests were cut off unanswered
  expect(sent.length).toBeGreaterThan(acknowledged.length);

  // the clients retry what got no answer, with the same keys, on the restarted service
  const second = await spawnService(db.url, env);
  children.push(second);
  const retried = await Promise.all(sent.filter((s) => !s.id).map(async (s) => ({ s, answer: await send(second.url, s) })));
  for (const { s, answer } of retried) {
    // 200: it had committed before the kill (its answer was lost); 201: it had not
    expect([200, 201]).toContain(answer!.status);
    s.id = answer!.id;
  }
  const after = await db.sql`select id, (metadata->>'seq')::int as seq from events`;
  expect(after.length).toBe(sent.length);
  expect(new Set(after.map((r) => r.seq)).size).toBe(sent.length);
  expect(new Set(after.map((r) => r.id))).toEqual(new Set(sent.map((s) => s.id!)));
  second.proc.kill('SIGTERM');
  await second.exited();
}, 120_000);
