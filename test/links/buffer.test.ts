// The click buffer on its own, against a real database.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import postgres from 'postgres';
import type { Sql } from '../../src/db';
import { newId } from '../../src/lib/ids';
import { createLogger } from '../../src/lib/log';
import { ClickBuffer, type ClickRow } from '../../src/modules/links/buffer';
import { startService, type TestService } from '../support/service';
import { campaign, link, partner } from './helpers';

let svc: TestService;
let row: (linkId?: string) => ClickRow;
beforeAll(async () => {
  svc = await startService();
  const cmp = await campaign(svc);
  const ptn = await partner(svc, [cmp]);
  const l = await link(svc, ptn, cmp);
  row = (linkId = l.id) => ({
    id: newId('click'),
    link_id: linkId,
    partner_id: ptn,
    campaign_id: cmp,
    ip_hash: null,
    user_agent: 'UA',
    uncredited_reason: null,
    referrer: null,
    created_at: Date.now(),
  });
}, 60_000);
afterAll(() => svc.stop());

test('a row the database refuses for good is dropped alone; the rest of its batch is written', async () => {
  const lines: string[] = [];
  const buffer = new ClickBuffer(svc.sql, createLogger('error', {}, (line) => lines.push(line)));
  const good = [row(), row()];
  // PostgreSQL refuses a NUL character in text (class 22); the API never lets one through, this row does
  const bad = { ...row(), user_agent: 'bad\u0000agent' };
  buffer.add(good[0]!);
  buffer.add(bad);
  buffer.add(good[1]!);
  await buffer.close();
  const ids = (await svc.sql`select id from clicks where id = any(${[...good, bad].map((r) => r.id)})`).map((r) => r.id);
  expect(ids.sort()).toEqual(good.map((r) => r.id).sort());
  expect(lines.some((l) => l.includes('click dropped') && l.includes(bad.id))).toBe(true);
});

test("created_at is the millisecond in the click's id", async () => {
  const buffer = new ClickBuffer(svc.sql, createLogger('silent'));
  const click = { ...row(), id: newId('click', Date.UTC(2026, 0, 2, 3, 4, 5, 678)) };
  buffer.add(click);
  await buffer.close();
  const [stored] = await svc.sql`select created_at from clicks where id = ${click.id}`;
  expect((stored!.created_at as Date).toISOString()).toBe('2026-01-02T03:04:05.678Z');
});

test('thousands of clicks go out in several batches and all arrive once', async () => {
  const buffer = new ClickBuffer(svc.sql, createLogger('silent'));
  const rows = Array.from({ length: 5000 }, () => row());
  for (const r of rows) buffer.add(r);
  await buffer.close();
  const [{ n }] = (await svc.sql`select count(*)::int as n from clicks where id = any(${rows.map((r) => r.id)})`) as unknown as [{ n: number }];
  expect(n).toBe(5000);
  expect(buffer.written).toBe(5000);
});

test('writeSoon writes the clicks asked for at once; they are in the database when it resolves', async () => {
  const buffer = new ClickBuffer(svc.sql, createLogger('silent'));
  const rows = [row(), row(), row()];
  for (const r of rows) buffer.add(r);
  const wanted = new Set([rows[1]!.id]);
  expect(buffer.held(wanted)).toEqual(wanted);
  expect(await buffer.writeSoon(wanted, Date.now() + 5_000)).toBe(true);
  expect(buffer.held(wanted).size).toBe(0);
  expect(await svc.sql`select id from clicks where id = ${rows[1]!.id}`).toHaveLength(1);
  // nothing held: answers at once
  expect(await buffer.writeSoon(new Set(['clk_01h00000000000000000000000']), Date.now() + 5_000)).toBe(true);
  await buffer.close();
  expect(await svc.sql`select id from clicks where id = any(${rows.map((r) => r.id)})`).toHaveLength(3);
});

test('writeSoon while the database is unreachable: false at the deadline, and the click is kept', async () => {
  const down = postgres('postgres://postgres@127.0.0.1:1/none', { max: 1, connect_timeout: 1, onnotice: () => undefined }) as unknown as Sql;
  const buffer = new ClickBuffer(down, createLogger('silent'));
  const click = row();
  buffer.add(click);
  const wanted = new Set([click.id]);
  expect(await buffer.writeSoon(wanted, Date.now() + 300)).toBe(false);
  expect(buffer.held(wanted)).toEqual(wanted);
  await buffer.close(0);
  await down.end();
});
