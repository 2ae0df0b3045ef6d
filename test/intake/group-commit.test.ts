// The group commit of POST /v1/events and /attribution/events: concurrent requests share one
// transaction, with the guarantees of one event at a time (per-user order, idempotency, one bad
// event failing alone). A long gathering wait makes concurrent requests land in one batch.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createLogger } from '../../src/lib/log';
import { createEventIntake } from '../../src/workflows/group-commit';
import * as fx from '../support/fixtures';
import { startService, type TestService } from '../support/service';

let svc: TestService;
let campaignId: string;
let partnerId: string;
beforeAll(async () => {
  // 250 ms, not 40: on a loaded machine concurrent requests reach the intake tens of ms apart (each
  // is parsed and its key checked first), and the tests below count the batches they landed in
  svc = await startService({ EVENT_BATCH_WAIT_MS: '250', EVENT_BATCH_MAX: '500', EVENT_BATCH_CONCURRENCY: '3' });
  campaignId = await fx.campaign(svc.sql, {
    rules: [
      { eventType: 'invoice_paid', kind: 'percent', percent: 10, maxOccurrences: 3 },
      { eventType: 'signup', kind: 'flat', amount: '5.00' },
    ],
  });
  partnerId = await fx.partner(svc.sql);
}, 60_000);
afterAll(() => svc.stop());

const post = (body: unknown, headers?: Record<string, string>) => svc.api('POST', '/v1/events', { body, headers });

async function transactionsOf(ids: string[]): Promise<number> {
  // xmin: the transaction that wrote each row
  const [row] = await svc.sql`select count(distinct xmin::text)::int as n from events where id = any(${ids}::text[])`;
  return row!.n;
}

describe('gathering', () => {
  test('thirty concurrent requests are written in fewer transactions than requests, each answered with its own event', async () => {
    const users = await Promise.all(Array.from({ length: 30 }, () => fx.referredUser(svc.sql, [{ partnerId, campaignId }])));
    const answers = await Promise.all(users.map((u, i) => post({ userId: u.userId, type: 'invoice_paid', amount: 1000 + 10 * i, currency: 'USD' })));
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 201));
    expect(answers.map((a) => a.body.amount)).toEqual(users.map((_, i) => 1000 + 10 * i));
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(30);
    // three lanes: at most a handful of commits for thirty events
    expect(await transactionsOf(answers.map((a) => a.body.id))).toBeLessThanOrEqual(6);
    const rows = await svc.sql`select e.user_id, c.amount from events e join commissions c on c.event_id = e.id where e.id = any(${answers.map((a) => a.body.id)}::text[])`;
    expect(rows.length).toBe(30);
    for (const [i, u] of users.entries()) expect(rows.find((r) => r.user_id === u.userId)?.amount).toBe(BigInt(100 + i));
  });

  test('the attribution form goes through the same path and answers the attribution result', async () => {
    const users = await Promise.all(Array.from({ length: 5 }, () => fx.referredUser(svc.sql, [{ partnerId, campaignId }])));
    const answers = await Promise.all(users.map((u) => svc.api('POST', '/attribution/events', { body: { userId: u.userId, type: 'signup' } })));
    for (const a of answers) {
      expect(a.status).toBe(201);
      expect(a.body.attribution).toMatchObject({ status: 'attributed', touches: [{ partnerId, commissionId: expect.stringMatching(/^com_/) }] });
    }
  });
});

describe('per-user order', () => {
  test("ten concurrent invoices of one user: one referral, and maxOccurrences 3 pays exactly the user's first three", async () => {
    const { userId } = await fx.referredUser(svc.sql, [{ partnerId, campaignId }]);
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => post({ userId, type: 'invoice_paid', amount: 100, currency: 'USD', metadata: { n: i } })),
    );
    expect(answers.every((a) => a.status === 201)).toBe(true);
    const events = await svc.sql`select id from events where user_id = ${userId} order by id`;
    const paid = await svc.sql`select event_id from commissions where user_id = ${userId} order by event_id`;
    expect(paid.map((p) => p.event_id)).toEqual(events.slice(0, 3).map((e) => e.id));
    const [referrals] = await svc.sql`select count(*)::int as n from referral_touches where user_id = ${userId}`;
    expect(referrals!.n).toBe(1);
  });

  test('each of twenty users sends five events one after another: every user sees them recorded in the order sent', async () => {
    const users = await Promise.all(Array.from({ length: 20 }, () => fx.referredUser(svc.sql, [{ partnerId, campaignId }])));
    await Promise.all(
      users.map(async (u) => {
        for (let seq = 0; seq < 5; seq++) {
          const res = await post({ userId: u.userId, type: 'custom_step', metadata: { seq } });
          expect(res.status).toBe(201);
        }
      }),
    );
    for (const u of users) {
      const rows = await svc.sql`select metadata from events where user_id = ${u.userId} order by id`;
      expect(rows.map((r) => r.metadata.seq)).toEqual([0, 1, 2, 3, 4]);
    }
  });

  test("a user's first event in a batch creates the referral its second event (same batch) reuses", async () => {
    const { userId } = await fx.referredUser(svc.sql, [{ partnerId, campaignId }]);
    const [first, second] = await Promise.all([
      svc.api('POST', '/attribution/events', { body: { userId, type: 'signup' } }),
      svc.api('POST', '/attribution/events', { body: { userId, type: 'invoice_paid', value: 20, currency: 'USD' } }),
    ]);
    expect(await transactionsOf([first!.body.eventId, second!.body.eventId])).toBe(1);
    expect(first!.body.attribution.touches[0].clickId).toBe(second!.body.attribution.touches[0].clickId);
    const [n] = await svc.sql`select count(*)::int as n from referrals where user_id = ${userId}`;
    expect(n!.n).toBe(1);
  });
});

describe('idempotency', () => {
  test('ten concurrent requests with one key: one event recorded, every answer is that event (one 201, nine 200)', async () => {
    const body = { userId: fx.userId(), type: 'signup' };
    const answers = await Promise.all(Array.from({ length: 10 }, () => post(body, { 'idempotency-key': `same-${body.userId}` })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    const [n] = await svc.sql`select count(*)::int as n from events where user_id = ${body.userId}`;
    expect(n!.n).toBe(1);
  });

  test('one key with two bodies in one batch: the first to arrive records, the other is a 409; a later repeat replays', async () => {
    const userId = fx.userId();
    const key = `two-bodies-${userId}`;
    const answers = await Promise.all(['signup', 'trial_started'].map((type) => post({ userId, type }, { 'idempotency-key': key })));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409]);
    const winner = answers.find((a) => a.status === 201)!;
    expect(answers.find((a) => a.status === 409)!.body.code).toBe('conflict');
    const again = await post({ userId, type: winner.body.type }, { 'idempotency-key': key });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(winner.body.id);
    const [n] = await svc.sql`select count(*)::int as n from events where user_id = ${userId}`;
    expect(n!.n).toBe(1);
  });
});

describe('isolation', () => {
  test('an event the database refuses fails alone: the others of its batch are recorded', async () => {
    await svc.sql.unsafe(`
      create function refuse_poison() returns trigger language plpgsql as $$
      begin
        if new.user_id like 'poison-%' then raise exception 'refused by the test'; end if;
        return new;
      end $$;
      create trigger refuse_poison before insert on events for each row execute function refuse_poison();`);
    try {
      const users = Array.from({ length: 8 }, (_, i) => (i === 3 ? `poison-${fx.userId()}` : fx.userId()));
      const answers = await Promise.all(users.map((userId) => post({ userId, type: 'signup' })));
      expect(answers.map((a) => a.status)).toEqual(users.map((u) => (u.startsWith('poison-') ? 500 : 201)));
      expect(answers[3]!.body).toEqual({ code: 'internal', message: 'internal error' });
      const rows = await svc.sql`select user_id from events where user_id = any(${users}::text[])`;
      expect(rows.map((r) => r.user_id).sort()).toEqual(users.filter((u) => !u.startsWith('poison-')).sort());
    } finally {
      await svc.sql.unsafe('drop trigger refuse_poison on events; drop function refuse_poison();');
    }
  });

  test('a request with a bad body is refused before its batch; the others are recorded', async () => {
    const good = Array.from({ length: 4 }, () => fx.userId());
    const answers = await Promise.all([
      ...good.map((userId) => post({ userId, type: 'signup' })),
      post({ userId: fx.userId(), type: 'invoice_paid', amount: 100, currency: 'XYZ' }),
    ]);
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201, 400]);
    const [n] = await svc.sql`select count(*)::int as n from events where user_id = any(${good}::text[])`;
    expect(n!.n).toBe(4);
  });
});

describe('a batch that fails unexpectedly', () => {
  test('every request of it is answered internal, and the log keeps the cause', async () => {
    const lines: { level: string; msg: string; error?: { message?: string } }[] = [];
    const log = createLogger('error', {}, (line) => lines.push(JSON.parse(line)));
    // a writer with a bug: it throws instead of answering each event
    const intake = createEventIntake({ config: { eventBatch: { maxSize: 10, maxWaitMs: 5, concurrency: 1 } }, log }, async () => {
      throw new TypeError('the writer broke');
    });
    const input = { source: 'api', userId: fx.userId(), type: 'signup', amount: null, currency: null, occurredAt: undefined, metadata: {}, idempotencyKey: undefined };
    const outcomes = await Promise.all([intake.record(input), intake.record({ ...input, userId: fx.userId() })]);
    for (const outcome of outcomes) {
      expect(outcome.ok).toBe(false);
      expect(!outcome.ok && outcome.error.toBody()).toEqual({ code: 'internal', message: 'internal error' });
    }
    expect(lines.map((l) => [l.level, l.msg, l.error?.message])).toEqual([['error', 'event batch failed unexpectedly', 'the writer broke']]);
  });
});
