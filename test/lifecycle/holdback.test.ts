import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { newId } from '../../src/lib/ids';
import { approveDueCommissions } from '../../src/modules/commissions/lifecycle';
import { runApprovalJob } from '../../src/scheduler/approval';
import { LOCKS } from '../../src/db/lock';
import { DELIVERY_CHANNEL } from '../../src/modules/webhooks/outbox';
import { startScheduler } from '../../src/scheduler';
import { eventually } from '../support/eventually';
import { startService, type TestService } from '../support/service';
import { commissionRow, eventsFor, insertCampaign, insertCommission, insertPartner, transitionsOf } from '../support/lifecycle-fixtures';

let svc: TestService;
let partnerId: string;
let campaignId: string;
let endpointId: string;

beforeAll(async () => {
  svc = await startService();
  partnerId = await insertPartner(svc.sql);
  campaignId = await insertCampaign(svc.sql);
  endpointId = newId('endpoint');
  await svc.sql`
    insert into webhook_endpoints (id, url, events, secret)
    values (${endpointId}, 'https://hooks.example.com/in', ${['commission.approved']}, 'whsec_test')`;
}, 60_000);
afterAll(() => svc.stop());

describe('holdback approval job', () => {
  test('approves what has waited its holdback, leaves younger and other states alone', async () => {
    const cases = [
      { label: 'aged past 30-day holdback', ageDays: 31, holdbackDays: 30, status: 'accrued', approves: true },
      { label: 'younger than 30-day holdback', ageDays: 29, holdbackDays: 30, status: 'accrued', approves: false },
      { label: 'brand new, no holdback', ageDays: 0, holdbackDays: 0, status: 'accrued', approves: true },
      { label: 'per-row holdback 7, aged 8', ageDays: 8, holdbackDays: 7, status: 'accrued', approves: true },
      { label: 'per-row holdback 7, aged 6', ageDays: 6, holdbackDays: 7, status: 'accrued', approves: false },
      { label: 'per-row holdback 90, aged 60', ageDays: 60, holdbackDays: 90, status: 'accrued', approves: false },
      { label: 'aged but reversed', ageDays: 40, holdbackDays: 30, status: 'reversed', approves: false },
    ] as const;
    const ids = [];
    for (const c of cases) {
      ids.push(await insertCommission(svc.sql, { partnerId, campaignId, amount: 1999, ...c }));
    }

    const notices: string[] = [];
    const listener = await svc.sql.listen(DELIVERY_CHANNEL, (payload) => notices.push(payload));
    expect(await runApprovalJob(svc.ctx)).toBe(cases.filter((c) => c.approves).length);
    // notifications arrive in commit order: once a marker sent after the job is in, so is all the job sent
    await svc.sql`select pg_notify(${DELIVERY_CHANNEL}, 'marker')`;
    await eventually(() => expect(notices).toContain('marker'));
    await listener.unlisten();
    notices.splice(notices.indexOf('marker'));
    // the dispatcher is woken with the id of an envelope that has deliveries
    expect(notices).toHaveLength(1);
    const [woken] = await svc.sql`select type from webhook_events where id = ${notices[0]!}`;
    expect(woken!.type).toBe('commission.approved');

    for (const [i, c] of cases.entries()) {
      const id = ids[i]!;
      const row = await commissionRow(svc.sql, id);
      const events = await eventsFor(svc.sql, 'commission.approved', id);
      if (c.approves) {
        expect({ label: c.label, status: row.status }).toEqual({ label: c.label, status: 'approved' });
        expect(await transitionsOf(svc.sql, id)).toEqual([
          { from_status: 'accrued', to_status: 'approved', actor: 'job:approval', reason: 'holdback elapsed' },
        ]);
        expect(events.map((e) => e.data)).toEqual([
          { commissionId: id, partnerId, amount: '19.99', currency: 'USD', approvedAt: row.approved_at.toISOString() },
        ]);
        expect(events[0]!.id).toMatch(/^evt_[0-9a-z]{26}$/);
        // one delivery for the subscribed endpoint (the dispatcher may already have tried it)
        const deliveries = await svc.sql`select endpoint_id, event from webhook_deliveries where event_id = ${events[0]!.id}`;
        expect(deliveries.map((d) => ({ ...d }))).toEqual([{ endpoint_id: endpointId, event: 'commission.approved' }]);
      } else {
        expect({ label: c.label, status: row.status }).toEqual({ label: c.label, status: c.status });
        expect(row.approved_at).toBeNull();
        expect(events).toEqual([]);
      }
    }
    // a second run finds nothing new
    expect(await runApprovalJob(svc.ctx)).toBe(0);
  });

  test('works through many rows in batches, one envelope per commission', async () => {
    const ids = [];
    for (let i = 0; i < 7; i++) ids.push(await insertCommission(svc.sql, { partnerId, campaignId, amount: 100 + i, holdbackDays: 1, ageDays: 2 }));
    expect(await approveDueCommissions(svc.sql, { batchSize: 3 })).toBe(7);
    for (const id of ids) expect((await commissionRow(svc.sql, id)).status).toBe('approved');
    const envelopes = await svc.sql`
      select data->>'commissionId' as id from webhook_events
      where type = 'commission.approved' and data->>'commissionId' = any(${ids}::text[])`;
    expect(envelopes.map((e) => e.id).sort()).toEqual([...ids].sort());
  });

  test('skips while another replica holds the job lock', async () => {
    const id = await insertCommission(svc.sql, { partnerId, campaignId, amount: 100, holdbackDays: 1, ageDays: 5 });
    const other = await svc.sql.reserve();
    try {
      await other`select pg_advisory_lock(${LOCKS.approval}::bigint)`;
      expect(await runApprovalJob(svc.ctx)).toBe(0);
      expect((await commissionRow(svc.sql, id)).status).toBe('accrued');
      await other`select pg_advisory_unlock(${LOCKS.approval}::bigint)`;
    } finally {
      other.release();
    }
    expect(await runApprovalJob(svc.ctx)).toBe(1);
    expect((await commissionRow(svc.sql, id)).status).toBe('approved');
  });

  test('the scheduler runs it on APPROVAL_CRON', async () => {
    const id = await insertCommission(svc.sql, { partnerId, campaignId, amount: 100, holdbackDays: 1, ageDays: 5 });
    const scheduler = startScheduler({ ...svc.ctx, config: { ...svc.ctx.config, approvalCron: '* * * * * *' } });
    // the schedule fires on the clock, every second here: waiting for it is the scenario
    try {
      await eventually(async () => expect((await commissionRow(svc.sql, id)).status).toBe('approved'), { timeout: 10_000 });
    } finally {
      await scheduler.stop();
    }
    expect((await transitionsOf(svc.sql, id))[0]).toMatchObject({ actor: 'job:approval' });
  }, 20_000);
});
