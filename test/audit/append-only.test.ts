import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startService, type TestService } from '../support/service';
import { entriesFor } from './entries';

let svc: TestService;
beforeAll(async () => {
  svc = await startService();
}, 60_000);
afterAll(() => svc.stop());

describe('the audit log', () => {
  test('a change over HTTP is written with its actor, address, user agent and request id', async () => {
    const res = await svc.api('PATCH', '/v1/settings', {
      body: { attributionWindowDays: 45 },
      headers: { 'user-agent': 'audit-test/1.0', 'x-request-id': 'req-settings-1' },
    });
    expect(res.status).toBe(200);
    const [entry, ...more] = await entriesFor(svc.sql, 'settings');
    expect(more).toEqual([]);
    const [adminKey] = await svc.sql`select id from api_keys where kind = 'admin'`;
    expect(entry).toMatchObject({
      actor_type: 'key',
      actor_id: adminKey!.id,
      action: 'settings.updated',
      target_type: 'settings',
      changes: { attributionWindowDays: [30, 45] },
      ip: '127.0.0.1',
      user_agent: 'audit-test/1.0',
      request_id: 'req-settings-1',
    });
    expect(entry!.id).toMatch(/^aud_[0-9a-z]{26}$/);
  });

  test('a change to the same values writes nothing', async () => {
    const before = (await entriesFor(svc.sql, 'settings')).length;
    expect((await svc.api('PATCH', '/v1/settings', { body: { attributionWindowDays: 45 } })).status).toBe(200);
    expect(await entriesFor(svc.sql, 'settings')).toHaveLength(before);
  });

  test('PostgreSQL refuses UPDATE, DELETE and TRUNCATE on it, whoever asks', async () => {
    const [entry] = await entriesFor(svc.sql, 'settings');
    await expect(svc.sql`update audit_log set action = 'settings.forged' where id = ${entry!.id}`).rejects.toThrow(/append-only: UPDATE refused/);
    await expect(svc.sql`delete from audit_log where id = ${entry!.id}`).rejects.toThrow(/append-only: DELETE refused/);
    await expect(svc.sql`truncate audit_log`).rejects.toThrow(/append-only: TRUNCATE refused/);
    const [row] = await svc.sql`select action, count(*) over () as n from audit_log where id = ${entry!.id}`;
    expect(row).toMatchObject({ action: 'settings.updated' });
  });

  test('a change that fails leaves no entry: the entry commits with its change', async () => {
    const before = (await entriesFor(svc.sql, 'settings')).length;
    const res = await svc.api('PATCH', '/v1/settings', { body: { attributionWindowDays: 9999 } });
    expect(res.status).toBe(400);
    await expect(
      svc.sql.begin(async (tx) => {
        await tx`insert into audit_log (id, actor_type, actor_id, action, target_type, target_id) values ('aud_00000000000000000000000000', 'job', 'test', 'settings.updated', 'settings', 'settings')`;
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    expect(await entriesFor(svc.sql, 'settings')).toHaveLength(before);
  });
});
