// A batch that fails mid-run rolls back whole: no half-paid payout, committed batches stand, the
// lock is released and the next run pays the rest.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { runPayouts } from '../../src/workflows/run-payouts';
import { startService, type TestService } from '../support/service';
import { insertCampaign, insertCommission, insertPartner } from '../support/lifecycle-fixtures';

let svc: TestService;
beforeAll(async () => {
  svc = await startService();
}, 60_000);
afterAll(() => svc.stop());

test('a failing batch leaves its partners untouched and the next run pays them', async () => {
  const campaignId = await insertCampaign(svc.sql);
  const partners: string[] = [];
  for (let i = 0; i < 6; i++) partners.push(await insertPartner(svc.sql));
  partners.sort();
  for (const partnerId of partners) {
    for (let j = 0; j < 3; j++) await insertCommission(svc.sql, { partnerId, campaignId, amount: 100 + j, status: 'approved' });
  }
  const broken = partners[3]!;
  // the database refuses the payout of one partner, as a crash or a bug might
  await svc.sql.unsafe(`
    create function refuse_payout() returns trigger language plpgsql as $$
    begin
      if new.partner_id = '${broken}' then raise exception 'disk on fire'; end if;
      return new;
    end $$;
    create trigger refuse_payout before insert on payouts for each row execute function refuse_payout();`);

  await expect(runPayouts(svc.ctx, { actor: 'job:payout', batchSize: 2, workers: 1 })).rejects.toThrow('disk on fire');

  const state = async () =>
    (await svc.sql`
      select partner_id, count(*) filter (where status = 'paid')::int as paid, count(*) filter (where status = 'approved')::int as approved,
             count(distinct payout_id)::int as payouts
      from commissions group by partner_id order by partner_id`).map((r) => ({ ...r }));
  // batches [0,1] committed; batch [2,3] rolled back whole (partner 2 too); [4,5] never started
  expect(await state()).toEqual(
    partners.map((partner_id, i) => (i < 2 ? { partner_id, paid: 3, approved: 0, payouts: 1 } : { partner_id, paid: 0, approved: 3, payouts: 0 })),
  );
  const [orphans] = await svc.sql`
    select (select count(*)::int from payouts where partner_id = any(${partners.slice(2)}::text[])) as payouts,
           (select count(*)::int from commission_transitions where to_status = 'paid') as transitions,
           (select count(*)::int from webhook_events where type = 'commission.paid') as paid_events`;
  expect({ ...orphans }).toEqual({ payouts: 0, transitions: 6, paid_events: 6 });

  await svc.sql.unsafe('drop trigger refuse_payout on payouts');
  const made = await runPayouts(svc.ctx, { actor: 'job:payout', batchSize: 2 });
  expect(made!.map((p) => p.partnerId).sort()).toEqual(partners.slice(2));
  expect((await state()).every((s) => s.paid === 3 && s.payouts === 1)).toBe(true);
});
