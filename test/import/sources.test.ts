// Each platform's export folder end to end through POST /v1/imports: a dry run that writes nothing
// and says what the import will do, the import, and a second run that changes nothing.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { campaign } from '../support/chain';
import { startService, type TestService } from '../support/service';
import { FIXTURES, formOf, postImport, tableCounts, type Report } from './helpers';

let svc: TestService;
let campaignId: string;
beforeAll(async () => {
  svc = await startService();
  campaignId = await campaign(svc, { rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 20 }] });
});
afterAll(() => svc.stop());

const EXPECTED: Record<string, { counts: Report['counts']; problems: [string, number, string][]; rows: number }> = {
  firstpromoter: {
    counts: { partners: 3, links: 2, customers: 4, commissions: 5, payouts: 2 },
    problems: [['commissions.csv', 7, 'status "refunded" is not one of pending, approved, denied']],
    rows: 3 + 4 + 5,
  },
  tolt: {
    counts: { partners: 2, links: 2, customers: 3, commissions: 4, payouts: 1 },
    problems: [['commissions.csv', 6, 'amount must be a whole number of cents (got "-200")']],
    rows: 2 + 3 + 4,
  },
  partnerstack: {
    counts: { partners: 2, links: 2, customers: 2, commissions: 5, payouts: 2 },
    problems: [['rewards.csv', 7, 'partner pk_nobody is not in partners.csv']],
    rows: 2 + 2 + 5,
  },
};

const problemsOf = (report: Report) => report.problems.map((p) => [p.file, p.line, p.reason]);

describe.each(Object.keys(EXPECTED))('%s', (source) => {
  const expected = EXPECTED[source]!;
  const form = (dryRun: boolean) => formOf(join(FIXTURES, source), { source, dryRun: String(dryRun), campaignId });

  test('the dry run reports what the import will do and writes nothing; the import does it; a second run changes nothing', async () => {
    const before = await tableCounts(svc);
    const dry = await postImport(svc, form(true));
    expect(dry.status).toBe(200);
    expect(dry.body).toMatchObject({ dryRun: true, counts: expected.counts, skipped: 0 });
    expect(problemsOf(dry.body)).toEqual(expected.problems);
    expect(await tableCounts(svc)).toEqual(before);

    const real = await postImport(svc, form(false));
    expect(real.status).toBe(200);
    expect(real.body).toEqual({ ...dry.body, dryRun: false });
    const after = await tableCounts(svc);
    expect(after.partners - before.partners).toBe(expected.counts.partners);
    expect(after.links - before.links).toBe(expected.counts.links);
    expect(after.referrals - before.referrals).toBe(expected.counts.customers);
    expect(after.commissions - before.commissions).toBe(expected.counts.commissions);
    expect(after.payouts - before.payouts).toBe(expected.counts.payouts);

    const again = await postImport(svc, form(false));
    expect(again.status).toBe(200);
    expect(again.body.counts).toEqual({ partners: 0, links: 0, customers: 0, commissions: 0, payouts: 0 });
    expect(again.body.skipped).toBe(expected.rows);
    expect(await tableCounts(svc)).toEqual(after);
  });
});

describe('what each source maps to', () => {
  test('FirstPromoter: is_paid marks paid, denied is reversed, names with quotes and commas kept, a blank uid gets a stand-in user', async () => {
    const [grace] = await svc.sql`select id, name, activated_at from partners where email = 'grace@example.com'`;
    expect(grace!.name).toBe('Hopper, Grace');
    expect(grace!.activated_at).not.toBeNull();
    const [linus] = await svc.sql`select name from partners where email = 'linus@example.com'`;
    expect(linus!.name).toBe('Linus "the blanket" Van Pelt');
    const [noname] = await svc.sql`select name, created_at from partners where email = 'noname@example.com'`;
    expect(noname!.name).toBe('noname@example.com');
    expect(noname!.created_at.toISOString()).toBe('2024-01-02T09:15:00.000Z');
    const states = await svc.sql<{ user_id: string; amount: bigint; currency: string; status: string }[]>`
      select c.user_id, c.amount, c.currency, c.status from commissions c join partners p on p.id = c.partner_id
      where p.email in ('grace@example.com', 'linus@example.com') order by c.occurred_at`;
    expect(states.map((s) => [s.user_id, Number(s.amount), s.currency, s.status])).toEqual([
      ['user_42', 2500, 'USD', 'paid'],
      ['user_42', 2500, 'USD', 'approved'],
      ['cus_FP0002', 1800, 'CAD', 'accrued'],
      ['user_44', 999, 'USD', 'reversed'],
      ['user_44', 500, 'JPY', 'paid'],
    ]);
    expect(await svc.sql`select 1 from referrals where user_id = 'firstpromoter:9004'`).toHaveLength(1);
  });

  test('PartnerStack: the partner key is the link slug, hold is accrued, declined reversed, paid inside a paid payout', async () => {
    const [sam] = await svc.sql`select p.id, p.name, l.slug from partners p join links l on l.partner_id = p.id where p.email = 'sam@example.com'`;
    expect(sam).toMatchObject({ name: 'Sam Smith, Esq.', slug: 'pk_sam_01' });
    const rows = await svc.sql`select status, payout_id from commissions where partner_id = ${sam!.id} order by occurred_at`;
    expect(rows.map((r) => r.status)).toEqual(['paid', 'accrued']);
    const [payout] = await svc.sql`select status, provider, amount, commission_count, currency from payouts where id = ${rows[0]!.payout_id}`;
    expect(payout).toMatchObject({ status: 'paid', provider: 'import', amount: 3000n, commission_count: 1, currency: 'USD' });
  });

  test('Tolt: the customer id is the user, a Stripe one is remembered for billing, an empty one gets a stand-in', async () => {
    expect([...(await svc.sql`select user_id from billing_customers where provider = 'stripe' and customer_id = 'cus_TOLT1'`)]).toEqual([{ user_id: 'cus_TOLT1' }]);
    expect(await svc.sql`select 1 from referrals where user_id = 'tolt:cust_3'`).toHaveLength(1);
    const [maria] = await svc.sql`select name from partners where email = 'maria@example.com'`;
    expect(maria!.name).toBe('María García, PhD');
  });
});

test("after every source's import the rollups (what the pages read) equal a recount of the imported rows", async () => {
  const counters = ['clicks', 'filtered', 'converted', 'leads', 'customers', 'sales', 'revenue', 'accrued', 'approved', 'paid', 'reversed', 'earned'];
  const sums = counters.map((c) => `sum(${c})::text as ${c}`).join(', ');
  const nonZero = counters.map((c) => `${c} <> '0'`).join(' or ');
  const rowsOf = (from: string) =>
    svc.sql.unsafe<Record<string, string>[]>(`
      select * from (select day::text, partner_id, campaign_id, link_id, currency, ${sums} from ${from} group by 1, 2, 3, 4, 5) d
      where ${nonZero} order by day, partner_id, campaign_id, link_id, currency`);
  const rolled = await rowsOf(`(select * from rollup_facts where unit = 'd') r`);
  const recounted = await rowsOf('partnerd_rollup_recount()');
  expect(rolled).toEqual(recounted);
  const [program] = await svc.sql`
    select sum(sales)::int as sales from rollup_facts where unit = 'd' and partner_id = '' and campaign_id = '' and link_id = '' and currency = ''`;
  expect(program!.sales).toBeGreaterThan(0);
  // an imported customer came through its partner's old token, now a share link: its sales count there
  const [linked] = await svc.sql`
    select sum(r.sales)::int as sales from rollup_facts r join links l on l.id = r.link_id
    where r.unit = 'd' and r.currency = '' and l.partner_id = r.partner_id`;
  expect(linked!.sales).toBe(program!.sales);
});
