// Accrual of a whole batch at once (POST /v1/events/batch): every event gets what it would get sent
// alone after the ones before it in the batch: tiers reached inside the batch, customers the batch
// brings, the batch's order across users, fraud flags per user, recruiter overrides; the rows and
// the commission.accrued envelopes.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Rule } from '../../src/modules/campaigns/rules';
import { recordEvents } from '../../src/workflows/record-events';
import * as fx from '../support/fixtures';
import { startService, type TestService } from '../support/service';

let svc: TestService;
beforeAll(async () => {
  svc = await startService();
}, 60_000);
afterAll(() => svc.stop());

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

type Sale = { userId: string; amount: number; occurredAt: string; customerEmail?: string };
const invoice = (s: Sale) => ({ userId: s.userId, type: 'invoice_paid', amount: s.amount, currency: 'USD', occurredAt: s.occurredAt, customerEmail: s.customerEmail });

async function batch(sales: Sale[]) {
  const res = await svc.api('POST', '/v1/events/batch', { body: { events: sales.map(invoice) } });
  expect(res.status).toBe(200);
  for (const r of res.body.results) expect(r.id).toMatch(/^evt_/);
  return res.body.results as { id: string }[];
}

async function oneByOne(sales: Sale[]) {
  for (const s of sales) expect((await svc.api('POST', '/v1/events', { body: invoice(s) })).status).toBe(201);
}

/** The partner's commissions, in the order of the events' users in `users`. */
async function amounts(partnerId: string, users: string[]): Promise<bigint[]> {
  const rows = await svc.sql<{ user_id: string; amount: bigint }[]>`select user_id, amount from commissions where partner_id = ${partnerId}`;
  return users.map((u) => rows.find((r) => r.user_id === u)?.amount ?? -1n);
}

/** The commission.accrued envelopes of the partner, in envelope order: amount and flags. */
async function accruedEnvelopes(partnerId: string) {
  const rows = await svc.sql<{ data: { amount: string; flags: string[]; commissionId: string } }[]>`
    select data from webhook_events where type = 'commission.accrued' and data->>'partnerId' = ${partnerId} order by id`;
  return rows.map((r) => r.data);
}

/** Times in the last hours, oldest first. */
const times = (n: number) => Array.from({ length: n }, (_, i) => new Date(Date.now() - (n - i) * HOUR).toISOString());

describe('tiers inside one batch', () => {
  // 10%, 20% from 100.00 of the partner's revenue, 25% from 3 new customers, in the last 30 days
  const rule: Rule = {
    eventType: 'invoice_paid',
    kind: 'percent',
    percent: 10,
    periodDays: 30,
    tiers: [
      { minRevenue: '100.00', percent: 20 },
      { minCustomers: 3, percent: 25 },
    ],
  };
  let campaignId: string;
  beforeAll(async () => {
    campaignId = await fx.campaign(svc.sql, { rules: [rule] });
  });

  /** Users who clicked the partner's link three days ago and were identified: their first event starts their referral. */
  async function customers(partnerId: string, n: number): Promise<string[]> {
    const users: string[] = [];
    for (let i = 0; i < n; i++) users.push((await fx.referredUser(svc.sql, [{ partnerId, campaignId, at: new Date(Date.now() - 72 * HOUR) }])).userId);
    return users;
  }

  test('two events of a partner cross the revenue tier: the later one is paid at it, as when sent one by one', async () => {
    const inBatch = await fx.partner(svc.sql);
    const alone = await fx.partner(svc.sql);
    const when = times(3);
    const results: bigint[][] = [];
    for (const [partnerId, send] of [
      [inBatch, batch],
      [alone, oneByOne],
    ] as const) {
      const users = await customers(partnerId, 3);
      // 60.00 each: the first sees nothing, the second 60.00, the third 120.00
      await send(users.map((userId, i) => ({ userId, amount: 6000, occurredAt: when[i]! })));
      results.push(await amounts(partnerId, users));
    }
    // 10% of 60.00, then 10% (60.00 is below 100.00), then 20% (120.00)
    expect(results[0]).toEqual([600n, 600n, 1200n]);
    expect(results[1]).toEqual(results[0]!);
    expect((await accruedEnvelopes(inBatch)).map((e) => e.amount)).toEqual(['6.00', '6.00', '12.00']);
  });

  test('customers whose referral the batch starts later count only for the events after theirs', async () => {
    const partnerId = await fx.partner(svc.sql);
    const users = await customers(partnerId, 4);
    const when = times(4);
    // newest first: sent one by one, none would see the others (their referrals start later or not yet)
    await batch(users.map((userId, i) => ({ userId, amount: 1000, occurredAt: when[3 - i]! })));
    expect(await amounts(partnerId, users)).toEqual([100n, 100n, 100n, 100n]);

    // and oldest first, each sees the ones before it: the fourth reaches three customers (25%)
    const other = await fx.partner(svc.sql);
    const more = await customers(other, 4);
    await batch(more.map((userId, i) => ({ userId, amount: 1000, occurredAt: when[i]! })));
    expect(await amounts(other, more)).toEqual([100n, 100n, 100n, 250n]);
  });

  test("the batch's order holds across users: a user's second event counts for a later event of another user", async () => {
    const partnerId = await fx.partner(svc.sql);
    const [a, b] = (await customers(partnerId, 2)) as [string, string];
    const when = times(3);
    // a's two sales (60.00, 50.00) come before b's: b sees 110.00 (20%)
    await batch([
      { userId: a, amount: 6000, occurredAt: when[0]! },
      { userId: a, amount: 5000, occurredAt: when[1]! },
      { userId: b, amount: 5000, occurredAt: when[2]! },
    ]);
    const rows = await svc.sql<{ user_id: string; amount: bigint }[]>`
      select c.user_id, c.amount from commissions c join events e on e.id = c.event_id where c.partner_id = ${partnerId} order by e.occurred_at`;
    expect(rows.map((r) => [r.user_id, r.amount])).toEqual([
      [a, 600n],
      [a, 500n],
      [b, 1000n],
    ]);
  });

  test('the results of a batch name its events in the order sent, their ids rising in that order', async () => {
    const partnerId = await fx.partner(svc.sql);
    const [a, b] = await customers(partnerId, 2);
    const when = times(3);
    const results = await batch([
      { userId: a!, amount: 100, occurredAt: when[0]! },
      { userId: a!, amount: 100, occurredAt: when[1]! },
      { userId: b!, amount: 100, occurredAt: when[2]! },
    ]);
    const ids = results.map((r) => r.id);
    expect([...ids].sort()).toEqual(ids);
  });
});

describe('fraud flags inside one batch', () => {
  test('two customers of a partner in one batch, one through a bot click: each commission carries its own user’s flags and evidence', async () => {
    const campaignId = await fx.campaign(svc.sql, { rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 10 }] });
    const partnerId = await fx.partner(svc.sql);
    const email: string = (await svc.sql<{ email: string }[]>`select email from partners where id = ${partnerId}`)[0]!.email;
    const users = [fx.userId('bot'), fx.userId('bot'), fx.userId('clean'), fx.userId('self')];
    const botClicks: string[] = [];
    for (const [i, user] of users.entries()) {
      const clicks = [await fx.click(svc.sql, { partnerId, campaignId, at: new Date(Date.now() - 10 * HOUR) })];
      if (i < 2) {
        // an earlier click kept but never credited (a bot's)
        const bot = await fx.click(svc.sql, { partnerId, campaignId, at: new Date(Date.now() - 11 * HOUR - i * MINUTE) });
        await svc.sql`update clicks set uncredited_reason = 'bot_click' where id = ${bot}`;
        botClicks.push(bot);
        clicks.push(bot);
      }
      await fx.identify(svc.sql, user, clicks);
    }
    const when = times(4);
    await batch(users.map((userId, i) => ({ userId, amount: 1000, occurredAt: when[i]!, customerEmail: i === 3 ? email.toUpperCase() : undefined })));

    const rows = await svc.sql<{ user_id: string; flags: string[]; flag_evidence: Record<string, unknown> }[]>`
      select user_id, flags, flag_evidence from commissions where partner_id = ${partnerId}`;
    const of = (u: string) => rows.find((r) => r.user_id === u)!;
    expect(users.map((u) => of(u).flags)).toEqual([['bot_click'], ['bot_click'], [], ['self_referral']]);
    expect(of(users[0]!).flag_evidence).toEqual({ bot_click: { clickIds: [botClicks[0]] } });
    expect(of(users[1]!).flag_evidence).toEqual({ bot_click: { clickIds: [botClicks[1]] } });
    expect(of(users[3]!).flag_evidence).toEqual({ self_referral: { customerEmail: email.toUpperCase(), partnerEmail: email, ipHashes: [] } });
    expect((await accruedEnvelopes(partnerId)).map((e) => e.flags)).toEqual([['bot_click'], ['bot_click'], [], ['self_referral']]);
  });
});

describe('duplicate_customer inside one batch', () => {
  test("a billing customer's second conversion in the batch, credited to another partner, is flagged with the first's commission", async () => {
    const campaignId = await fx.campaign(svc.sql, { rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 10 }] });
    const [first, second] = [await fx.partner(svc.sql), await fx.partner(svc.sql)];
    const users = [(await fx.referredUser(svc.sql, [{ partnerId: first, campaignId, at: new Date(Date.now() - 10 * HOUR) }])).userId];
    users.push((await fx.referredUser(svc.sql, [{ partnerId: second, campaignId, at: new Date(Date.now() - 10 * HOUR) }])).userId);
    const customerId = `cus_${fx.userId('batch')}`;
    const outcomes = await recordEvents(
      svc.ctx,
      users.map((userId) => ({
        source: 'stripe',
        userId,
        type: 'invoice_paid',
        amount: 1000n,
        currency: 'USD',
        occurredAt: undefined,
        metadata: {},
        idempotencyKey: undefined,
        customerId,
      })),
    );
    expect(outcomes.map((o) => o.ok)).toEqual([true, true]);
    const rows = await svc.sql<{ id: string; partner_id: string; flags: string[]; flag_evidence: Record<string, unknown> }[]>`
      select id, partner_id, flags, flag_evidence from commissions where user_id = any(${users}) order by id`;
    expect(rows.map((r) => [r.partner_id, r.flags])).toEqual([
      [first, []],
      [second, ['duplicate_customer']],
    ]);
    expect(rows[1]!.flag_evidence).toEqual({
      duplicate_customer: { provider: 'stripe', customerId, otherPartnerId: first, otherCommissionId: rows[0]!.id },
    });
  });
});

describe('recruiter overrides inside one batch', () => {
  test("each recruit commission of the batch yields its recruiter's override, pointing at it", async () => {
    const campaignId = await fx.campaign(svc.sql, { rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 10 }] });
    await svc.sql`update campaigns set recruiter_percent = 10 where id = ${campaignId}`;
    const recruiter = await fx.partner(svc.sql);
    const recruit = await fx.partner(svc.sql);
    await svc.sql`update partners set referred_by = ${recruiter} where id = ${recruit}`;
    const users: string[] = [];
    for (let i = 0; i < 3; i++) users.push((await fx.referredUser(svc.sql, [{ partnerId: recruit, campaignId, at: new Date(Date.now() - 10 * HOUR) }])).userId);
    const when = times(3);
    await batch(users.map((userId, i) => ({ userId, amount: 10_000 + i * 5, occurredAt: when[i]! })));

    const rows = await svc.sql<{ id: string; user_id: string; partner_id: string; amount: bigint; event_type: string; source_commission_id: string | null }[]>`
      select id, user_id, partner_id, amount, event_type, source_commission_id from commissions where user_id = any(${users}) order by id`;
    for (const [i, user] of users.entries()) {
      const direct = rows.find((r) => r.user_id === user && r.partner_id === recruit)!;
      const override = rows.find((r) => r.user_id === user && r.partner_id === recruiter)!;
      // 10% of 100.00, 100.05, 100.10; the override 10% of that, half-even
      expect(direct.amount).toBe([1000n, 1000n, 1001n][i]!);
      expect({ ...override, id: undefined }).toEqual({
        id: undefined,
        user_id: user,
        partner_id: recruiter,
        amount: 100n,
        event_type: 'recruit_override',
        source_commission_id: direct.id,
      });
    }
    // envelopes: each recruit commission, then its override
    const envelopes = await svc.sql<{ partnerId: string; eventType: string }[]>`
      select data->>'partnerId' as "partnerId", data->>'eventType' as "eventType" from webhook_events
      where type = 'commission.accrued' and data->>'partnerId' = any(${[recruit, recruiter]}) order by id`;
    expect(envelopes.map((e) => [e.partnerId, e.eventType])).toEqual(
      users.flatMap(() => [
        [recruit, 'invoice_paid'],
        [recruiter, 'recruit_override'],
      ]),
    );
  });
});
