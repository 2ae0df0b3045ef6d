// A Rewardful export end to end through POST /v1/imports: every kind written as it should be, bad
// rows reported with file, line and reason while the rest imports, paid history never paid again, a
// later export adding only what is new, the old links and a later Stripe invoice still crediting the
// partner, and the refusals (missing file or column, unknown source, too large).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { cpSync, appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deliver, invoice, stripeEvent, WEBHOOK_SECRET } from '../billing/fixtures';
import { BROWSER_UA, campaign } from '../support/chain';
import { startService, type TestService } from '../support/service';
import { FIXTURES, formOf, postImport, tableCounts } from './helpers';

const DIR = join(FIXTURES, 'rewardful');
let svc: TestService;
let campaignId: string;
let ada: string;
beforeAll(async () => {
  svc = await startService({ STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET });
  campaignId = await campaign(svc, { rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 20 }] });
  const res = await postImport(svc, formOf(DIR, { source: 'rewardful', dryRun: 'false' }));
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ dryRun: false, counts: { partners: 3, links: 2, customers: 4, commissions: 6, payouts: 2 }, skipped: 0, problemCount: 4 });
  ada = (await svc.sql`select id from partners where email = 'ada@example.com'`)[0]!.id;
});
afterAll(() => svc.stop());

/** The fixture export with `rows` appended to its files, in a folder of its own for `run`. */
async function withExportPlus(rows: Partial<Record<'affiliates.csv' | 'referrals.csv' | 'commissions.csv', string[]>>, run: (dir: string) => Promise<void>) {
  const dir = mkdtempSync(join(tmpdir(), 'rewardful-later-'));
  try {
    cpSync(DIR, dir, { recursive: true });
    for (const [file, lines] of Object.entries(rows)) for (const line of lines) appendFileSync(join(dir, file), `${line}\r\n`);
    await run(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('a Rewardful export', () => {
  test('every problem row is reported with its file, line and reason; the other rows are imported', async () => {
    const { body } = await postImport(svc, formOf(DIR, { source: 'rewardful', dryRun: 'true' }));
    expect(body.problems).toEqual([
      { file: 'affiliates.csv', line: 5, reason: 'email is not an email address ("not-an-email")' },
      { file: 'referrals.csv', line: 6, reason: 'partner 4f1d2c3a-0099 is not in affiliates.csv' },
      { file: 'commissions.csv', line: 7, reason: 'amount_cents must be a whole number of cents (got "12.50")' },
      { file: 'commissions.csv', line: 9, reason: 'customer ref-0009 is not in referrals.csv' },
    ]);
    expect(await svc.sql`select 1 from partners where email = 'not-an-email'`).toHaveLength(0);
  });

  test('the import is in the audit log once, by the key that sent it, with what it created; the dry runs are not', async () => {
    const entries = await svc.sql`select actor_type, target_type, target_id, changes from audit_log where action = 'import.completed'`;
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ actor_type: 'key', target_type: 'import', target_id: 'rewardful' });
    expect(entries[0]!.changes).toEqual({
      source: [null, 'rewardful'], partners: [null, 3], links: [null, 2], customers: [null, 4], commissions: [null, 6], payouts: [null, 2], skipped: [null, 0], problems: [null, 4],
    });
  });

  test('affiliates become active partners of the campaign, created when Rewardful made them, with their payout email; no email is sent', async () => {
    const rows = await svc.sql`
      select p.email, p.name, p.payout_email, p.created_at, p.activated_at is not null as active, p.metadata,
             exists (select 1 from partner_campaigns pc where pc.partner_id = p.id and pc.campaign_id = ${campaignId}) as holds
      from partners p order by p.created_at`;
    expect(rows.map((r) => [r.email, r.name, r.payout_email, r.created_at.toISOString(), r.active, r.holds])).toEqual([
      ['ada@example.com', 'Ada Lovelace', 'ada.pay@example.com', '2024-01-05T10:00:00.000Z', true, true],
      ['bob@example.com', 'Bob, Jr. O"Brien', 'bob.wise@example.com', '2024-02-01T09:30:00.000Z', true, true],
      ['cleo@example.com', 'Cleo', null, '2024-03-01T00:00:00.000Z', true, true],
    ]);
    expect(rows[0]!.metadata).toEqual({ importedFrom: 'rewardful', importedId: '4f1d2c3a-0001' });
    await svc.deliverEmails();
    expect(svc.mail.messages.filter((m) => m.to.includes('ada@example.com'))).toHaveLength(0);
  });

  test('commissions keep their amounts, currencies and states; paid ones sit in one paid payout per partner and currency', async () => {
    const rows = await svc.sql`select user_id, amount, currency, status, payout_id from commissions order by occurred_at`;
    expect(rows.map((r) => [r.user_id, Number(r.amount), r.currency, r.status])).toEqual([
      ['cus_AAA111', 1500, 'USD', 'paid'],
      ['cus_AAA111', 1500, 'USD', 'paid'],
      ['cus_CCC333', 990, 'EUR', 'accrued'],
      ['cus_BBB222', 2000, 'EUR', 'approved'],
      ['cus_AAA111', 700, 'GBP', 'paid'],
      ['cus_CCC333', 990, 'EUR', 'reversed'],
    ]);
    const payouts = await svc.sql`select partner_id, currency, amount, commission_count, status, provider, paid_at from payouts order by currency`;
    expect(payouts.map((p) => [p.partner_id, p.currency, Number(p.amount), p.commission_count, p.status, p.provider, p.paid_at.toISOString()])).toEqual([
      [ada, 'GBP', 700, 1, 'paid', 'import', '2024-04-01T00:00:00.000Z'],
      [ada, 'USD', 3000, 2, 'paid', 'import', '2024-03-01T00:00:00.000Z'],
    ]);
    expect(rows.filter((r) => r.status === 'paid').every((r) => r.payout_id !== null)).toBe(true);
  });

  test("each imported customer converts on its first imported sale, counted on that day; a customer without a sale does not", async () => {
    const referrals = await svc.sql`select user_id, started_at from referrals order by user_id`;
    expect(referrals.map((r) => [r.user_id, r.started_at.toISOString()])).toEqual([
      ['cus_AAA111', '2024-01-11T00:00:00.000Z'], // its first commission, not the referral's 2024-01-10
      ['cus_BBB222', '2024-02-15T00:00:00.000Z'],
      ['cus_CCC333', '2024-02-12T00:00:00.000Z'],
      ['rewardful:ref-0004', '2024-03-05T00:00:00.000Z'], // no commission: created there
    ]);
    const conversions = await svc.sql`
      select day::text, sum(customers)::int as customers from rollup_facts
      where unit = 'd' and partner_id = '' and campaign_id = '' and link_id = '' and currency = ''
      group by day having sum(customers) <> 0 order by day`;
    expect([...conversions]).toEqual([
      { day: '2024-01-11', customers: 1 },
      { day: '2024-02-12', customers: 1 },
      { day: '2024-02-15', customers: 1 },
    ]);
  });

  test('the payout run pays the approved commission and never the imported paid history again', async () => {
    const res = await svc.api('POST', '/v1/payouts/run');
    expect(res.status).toBe(200);
    const paidAgain = res.body.payouts.filter((p: { currency: string }) => p.currency !== 'EUR');
    expect(paidAgain).toEqual([]);
    expect([...(await svc.sql`select count(*)::int as n from payouts where provider = 'import'`)]).toEqual([{ n: 2 }]);
    const [approved] = await svc.sql`select payout_id from commissions where amount = 2000 and currency = 'EUR'`;
    expect(res.body.payouts.map((p: { id: string }) => p.id)).toEqual(approved!.payout_id ? [approved!.payout_id] : []);
  });

  test("the partner's old token is a share link: /r/<token> redirects and records a click for the partner", async () => {
    const res = await fetch(`${svc.url}/r/ada`, { redirect: 'manual', headers: { 'user-agent': BROWSER_UA } });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toStartWith('https://app.example.com/signup');
    await svc.ctx.links.clicks.flush();
    expect([...(await svc.sql`select partner_id from clicks`)]).toEqual([{ partner_id: ada }]);
  });

  test("Stripe's next invoice for an imported customer credits the imported partner", async () => {
    const res = await deliver(svc.url, stripeEvent('invoice.paid', invoice('in_after_import', 'cus_AAA111', 5000)));
    expect(res.status).toBe(200);
    const rows = await svc.sql`select partner_id, amount, currency, status from commissions where event_id in (select id from events where source = 'stripe')`;
    expect([...rows]).toEqual([{ partner_id: ada, amount: 1000n, currency: 'USD', status: 'accrued' }]);
  });

  test('a later export adds only what is new', async () => {
    await withExportPlus(
      {
        'affiliates.csv': ['4f1d2c3a-0005,Dan,Dare,dan@example.com,,,dan,2024-05-01T00:00:00Z,active,0,0,0'],
        'referrals.csv': ['ref-0006,4f1d2c3a-0005,cus_EEE555,e@buyer.example,2024-05-02T00:00:00Z,,1'],
        'commissions.csv': ['cm-0009,4f1d2c3a-0005,ref-0006,1200,USD,paid,2024-05-03T00:00:00Z,2024-06-01T00:00:00Z,sale-9'],
      },
      async (later) => {
        const before = await tableCounts(svc);
        const res = await postImport(svc, formOf(later, { source: 'rewardful', dryRun: 'false' }));
        expect(res.status).toBe(200);
        expect(res.body.counts).toEqual({ partners: 1, links: 1, customers: 1, commissions: 1, payouts: 1 });
        expect(res.body.skipped).toBe(3 + 4 + 6);
        const after = await tableCounts(svc);
        expect(after.partners - before.partners).toBe(1);
        expect(after.commissions - before.commissions).toBe(1);
        expect(after.payouts - before.payouts).toBe(1);
        expect(await svc.sql`select amount from payouts where provider = 'import' and amount = 1200`).toHaveLength(1);
      },
    );
  });

  test('a commission id twice in the file: the first row is kept and the second reported; an id imported before is skipped', async () => {
    await withExportPlus(
      {
        'commissions.csv': [
          'cm-0011,4f1d2c3a-0001,ref-0001,400,USD,pending,2024-06-03T00:00:00Z,,sale-11',
          'cm-0011,4f1d2c3a-0001,ref-0001,999,USD,pending,2024-06-04T00:00:00Z,,sale-11',
          'cm-0001,4f1d2c3a-0001,ref-0001,1500,USD,paid,2024-01-11T00:00:00Z,2024-02-01T00:00:00Z,sale-1',
        ],
      },
      async (later) => {
        const before = await tableCounts(svc);
        const res = await postImport(svc, formOf(later, { source: 'rewardful', dryRun: 'false' }));
        expect(res.status).toBe(200);
        expect(res.body.counts.commissions).toBe(1);
        expect(res.body.problems).toContainEqual({ file: 'commissions.csv', line: 11, reason: 'id cm-0011 appears twice; the first row is kept' });
        expect((await tableCounts(svc)).commissions - before.commissions).toBe(1);
        expect([...(await svc.sql`select c.amount from import_refs r join commissions c on c.id = r.target_id where r.kind = 'commission' and r.source_id = 'cm-0011'`)]).toEqual([{ amount: 400n }]);
        expect(await svc.sql`select 1 from events where metadata ->> 'importedId' = 'cm-0001'`).toHaveLength(1);
      },
    );
  });

  test('paid commissions of nothing make no payout; they stay paid', async () => {
    await withExportPlus(
      {
        'affiliates.csv': ['4f1d2c3a-0006,Zed,Zero,zed@example.com,,,zed,2024-05-01T00:00:00Z,active,0,0,0'],
        'referrals.csv': ['ref-0007,4f1d2c3a-0006,cus_ZZZ000,z@buyer.example,2024-05-02T00:00:00Z,,1'],
        'commissions.csv': ['cm-0010,4f1d2c3a-0006,ref-0007,0,USD,paid,2024-05-03T00:00:00Z,2024-06-01T00:00:00Z,sale-10'],
      },
      async (later) => {
        const before = await tableCounts(svc);
        const res = await postImport(svc, formOf(later, { source: 'rewardful', dryRun: 'false' }));
        expect(res.status).toBe(200);
        expect(res.body.counts).toMatchObject({ commissions: 1, payouts: 0 });
        expect((await tableCounts(svc)).payouts).toBe(before.payouts);
        const [zed] = await svc.sql`select c.status, c.amount, c.payout_id from commissions c join partners p on p.id = c.partner_id where p.email = 'zed@example.com'`;
        expect(zed).toEqual({ status: 'paid', amount: 0n, payout_id: null });
      },
    );
  });
});

test('with invite, a new partner waits for the invite it is mailed once the import has committed', async () => {
  const form = new FormData();
  form.set('source', 'rewardful');
  form.set('invite', 'true');
  form.set('campaignId', campaignId);
  form.set('affiliates.csv', new Blob(['id,email,first_name,token\ninv-1,invited@example.com,Ivy,ivy\n']), 'affiliates.csv');
  form.set('referrals.csv', new Blob(['id,affiliate_id,stripe_customer_id\n']), 'referrals.csv');
  form.set('commissions.csv', new Blob(['id,affiliate_id,referral_id,amount_cents,currency,state\n']), 'commissions.csv');
  const res = await postImport(svc, form);
  expect(res.status).toBe(200);
  expect(res.body.counts).toMatchObject({ partners: 1, links: 1 });
  expect([...(await svc.sql`select activated_at from partners where email = 'invited@example.com'`)]).toEqual([{ activated_at: null }]);
  expect(await svc.mail.magicLink('invited@example.com')).toContain('/auth/magic');
});

describe('refusals', () => {
  const file = (name: string, text: string) => ({ name, blob: new Blob([text]) });
  const custom = (fields: Record<string, string>, files: { name: string; blob: Blob }[]) => {
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) form.set(k, v);
    for (const f of files) form.set(f.name, f.blob, f.name);
    return form;
  };

  test('a missing file is a 400 naming it, and nothing is written', async () => {
    const before = await tableCounts(svc);
    const res = await postImport(svc, formOf(DIR, { source: 'rewardful', dryRun: 'false' }, ['affiliates.csv', 'commissions.csv']));
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('missing file referrals.csv');
    expect(res.body.details).toEqual([{ field: 'referrals.csv', message: 'missing: the export file of this name is required' }]);
    expect(await tableCounts(svc)).toEqual(before);
  });

  test('a missing column is a 400 naming the file and the column; nothing of the import is kept', async () => {
    const before = await tableCounts(svc);
    const form = custom({ source: 'rewardful' }, [
      file('affiliates.csv', 'id,email,token\nnew-1,new1@example.com,new1\n'),
      file('referrals.csv', 'id,affiliate_id,stripe_customer_id\n'),
      file('commissions.csv', 'id,affiliate_id,referral_id,currency,state\n'),
    ]);
    const res = await postImport(svc, form);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('commissions.csv: missing column amount_cents');
    expect(res.body.details).toEqual([{ field: 'commissions.csv', message: 'missing column amount_cents' }]);
    expect(await tableCounts(svc)).toEqual(before);
  });

  test('an unknown source, a field the source does not read and a JSON body are refused', async () => {
    const unknown = await postImport(svc, custom({ source: 'impact' }, []));
    expect(unknown.status).toBe(400);
    expect(unknown.body.details).toEqual([{ field: 'source', message: 'must be one of rewardful, firstpromoter, tolt, partnerstack' }]);
    const extra = await postImport(svc, custom({ source: 'tolt', colour: 'blue' }, []));
    expect(extra.status).toBe(400);
    expect(extra.body.details[0].field).toBe('colour');
    const json = await svc.api('POST', '/v1/imports', { body: { source: 'tolt' } });
    expect(json.status).toBe(415);
  });

  test('without campaignId when the program has several campaigns: a 400 on campaignId', async () => {
    await campaign(svc, { name: 'Second' });
    const res = await postImport(svc, formOf(join(FIXTURES, 'tolt'), { source: 'tolt', dryRun: 'true' }));
    expect(res.status).toBe(400);
    expect(res.body.details[0].field).toBe('campaignId');
  });

  test('an upload over IMPORT_MAX_MB is a 413', async () => {
    const small = await (await import('../support/service')).startService({ IMPORT_MAX_MB: '1' });
    try {
      const big = 'id,email\n' + 'x'.repeat(1024 * 1024 + 10) + '\n';
      const form = custom({ source: 'rewardful' }, [file('affiliates.csv', big)]);
      const res = await postImport(small, form);
      expect(res.status).toBe(413);
      expect(res.body.code).toBe('payload_too_large');
    } finally {
      await small.stop();
    }
  });
});
