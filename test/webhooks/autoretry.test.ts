// WEBHOOK_AUTO_RETRY=true: a failed delivery gets a next attempt on the schedule of DESIGN.md
// (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h) with jitter; without the flag there is none (SPEC).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { RETRY_DELAYS_MS, RETRY_JITTER, retryDelayMs } from '../../src/modules/webhooks/schedule';
import { startService, type TestService } from '../support/service';
import { startReceiver, type Receiver } from '../support/receiver';
import { createPartner, LOCAL_RECEIVERS, registerEndpoint } from '../support/webhooks';

describe('the schedule', () => {
  test('is the documented list, with jitter of at most 20 % either way, and ends', () => {
    expect(RETRY_DELAYS_MS).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
    for (let attempt = 1; attempt <= 7; attempt++) {
      const base = RETRY_DELAYS_MS[attempt - 1]!;
      expect(retryDelayMs(attempt, () => 0)).toBe(Math.round(base * (1 - RETRY_JITTER)));
      expect(retryDelayMs(attempt, () => 0.5)).toBe(base);
      expect(retryDelayMs(attempt, () => 0.999999)).toBeLessThanOrEqual(Math.round(base * (1 + RETRY_JITTER)));
    }
    const spread = new Set(Array.from({ length: 20 }, () => retryDelayMs(1)));
    expect(spread.size).toBeGreaterThan(1);
    expect(retryDelayMs(8)).toBeNull();
  });
});

describe('with WEBHOOK_AUTO_RETRY=true', () => {
  let svc: TestService;
  let rcv: Receiver;
  let down = true;
  beforeAll(async () => {
    svc = await startService({ ...LOCAL_RECEIVERS, WEBHOOK_AUTO_RETRY: 'true' });
    rcv = await startReceiver();
    rcv.respond = () => (down ? new Response('down', { status: 502 }) : new Response('up'));
  }, 60_000);
  afterAll(async () => {
    await svc.stop();
    await rcv.stop();
  });

  const rowsOf = async (endpointId: string): Promise<any[]> => [
    ...(await svc.sql`select id, status, attempt, retry_of, error, next_attempt_at, created_at from webhook_deliveries where endpoint_id = ${endpointId} order by attempt`),
  ];
  /** The dispatcher sends what is due now (a retry not yet due stays queued); then the endpoint's rows. */
  async function deliveredRows(endpointId: string): Promise<any[]> {
    await svc.deliverWebhooks();
    return rowsOf(endpointId);
  }

  test('a failure schedules the next attempt ~5 s later, linked to it; it is sent when due', async () => {
    const { id } = await registerEndpoint(svc, `${rcv.url}/retry`, ['partner.created']);
    await createPartner(svc);
    const rows = await deliveredRows(id);
    expect(rows).toHaveLength(2);
    const [first, second] = rows;
    expect(first).toMatchObject({ status: 'failed', attempt: 1, error: 'http_status' });
    expect(second).toMatchObject({ status: 'pending', attempt: 2, retry_of: first.id, error: null });
    const wait = second.next_attempt_at.getTime() - second.created_at.getTime();
    expect(wait).toBeGreaterThanOrEqual(4000 - 50);
    expect(wait).toBeLessThanOrEqual(6000 + 50);
    // the log shows when it is due
    const log = (await svc.api('GET', `/webhooks/${id}/deliveries?status=pending`)).body.deliveries;
    expect(log).toEqual([expect.objectContaining({ id: second.id, attempt: 2, retryOf: first.id, nextAttemptAt: second.next_attempt_at.toISOString() })]);

    // the receiver recovers; bring the due time forward instead of waiting 5 s
    down = false;
    await svc.sql`update webhook_deliveries set next_attempt_at = now() where id = ${second.id}`;
    const done = await deliveredRows(id);
    // succeeded: nothing further is scheduled
    expect(done).toHaveLength(2);
    expect(done[1]).toMatchObject({ status: 'succeeded', attempt: 2 });
    const hooks = rcv.received.filter((h) => h.path === '/retry');
    expect(hooks).toHaveLength(2);
    expect(hooks[0]!.json.id).toBe(hooks[1]!.json.id);
  });

  test('the schedule ends: after the 8th attempt nothing more is scheduled', async () => {
    down = true;
    const { id } = await registerEndpoint(svc, `${rcv.url}/always-down`, ['partner.created']);
    await createPartner(svc);
    for (let attempt = 2; attempt <= 8; attempt++) {
      const rows = await deliveredRows(id);
      expect(rows).toHaveLength(attempt);
      expect(rows[attempt - 1]).toMatchObject({ status: 'pending', attempt, retry_of: rows[attempt - 2].id });
      // due now instead of in minutes or hours
      await svc.sql`update webhook_deliveries set next_attempt_at = now() where id = ${rows[attempt - 1].id}`;
    }
    const rows = await deliveredRows(id);
    expect(rows).toHaveLength(8);
    expect(rows.every((r: any) => r.status === 'failed')).toBe(true);
    expect(rcv.received.filter((h) => h.path === '/always-down')).toHaveLength(8);
  }, 30_000);

  test('blocked deliveries are not retried', async () => {
    const id = 'whe_0000000000000000000000blk0';
    await svc.sql`insert into webhook_endpoints (id, url, events, secret) values (${id}, 'https://169.254.169.254/x', ${['partner.created']}, 'whsec_AAAA')`;
    await createPartner(svc);
    const rows = await deliveredRows(id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 'failed', error: 'blocked' });
  });
});
