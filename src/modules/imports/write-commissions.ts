// Imported commissions, with their exact amounts, currencies and states: each is a conversion event
// (source `import`), its attribution to the partner and the commission, written a batch at a time.
// Paid history then becomes one paid payout per partner and currency (provider `import`), so the
// payout run never pays it again.
import type { Tx } from '../../db';
import { newId } from '../../lib/ids';
import { refsAmong, saveRefs } from './refs';
import { timed } from './timing';
import type { ImportedCommission } from './rows';
import type { ImportTarget, Lined } from './write-partners';

type Files = { partnersFile: string; customersFile: string };

/** Writes one batch of commissions; rows imported before are counted as skipped. */
export async function writeCommissions(
  sql: Tx,
  target: ImportTarget & Files,
  batch: Lined<ImportedCommission>[],
  partners: Map<string, string>,
  customers: Map<string, string>,
): Promise<void> {
  const { source, report, file } = target;
  const before = await refsAmong(sql, target, 'commission', batch.map((b) => b.row.sourceId));
  const fresh: (Lined<ImportedCommission> & { partnerId: string; userId: string })[] = [];
  const seen = new Set<string>();
  for (const item of batch) {
    const { row, line } = item;
    const partnerId = partners.get(row.partnerSourceId);
    const userId = row.customerSourceId === null ? `${source}:commission:${row.sourceId}` : customers.get(row.customerSourceId);
    if (before.has(row.sourceId)) report.skipped++;
    else if (seen.has(row.sourceId)) report.problem(file, line, `id ${row.sourceId} appears twice; the first row is kept`);
    else if (partnerId === undefined) report.problem(file, line, `partner ${row.partnerSourceId} is not in ${target.partnersFile}`);
    else if (userId === undefined) report.problem(file, line, `customer ${row.customerSourceId} is not in ${target.customersFile}`);
    else (seen.add(row.sourceId), fresh.push({ ...item, partnerId, userId }));
  }
  if (fresh.length === 0) return;
  // the attribution names the customer's referral touch (its click or code), else a click minted for it
  const touches = await timed(target.times, 'sql: touches of batch users', sql<{ user_id: string; click_id: string | null; code_id: string | null }[]>`
    select user_id, click_id, code_id from referral_touches where position = 0 and user_id = any(${[...new Set(fresh.map((f) => f.userId))]}::text[])`);
  const touchOf = new Map(touches.map((t) => [t.user_id, t]));
  const actor = `import:${source}`;
  const rows = fresh.map(({ row, partnerId, userId }) => {
    const at = row.createdAt ?? new Date();
    const touch = touchOf.get(userId);
    const paidAt = row.status === 'paid' ? (row.paidAt ?? at) : null;
    return {
      event_id: newId('event', at),
      attribution_id: newId('attribution', at),
      id: newId('commission', at),
      user_id: userId,
      partner_id: partnerId,
      click_id: touch ? touch.click_id : newId('click', at),
      code_id: touch ? touch.code_id : null,
      occurred_at: at.toISOString(),
      amount: row.amount.toString(),
      currency: row.currency,
      status: row.status,
      approved_at: row.status === 'approved' || row.status === 'paid' ? at.toISOString() : null,
      paid_at: paidAt?.toISOString() ?? null,
      reversed_at: row.status === 'reversed' ? at.toISOString() : null,
      reversal_reason: row.status === 'reversed' ? `refused at ${source} before the import` : null,
      metadata: { importedFrom: source, importedId: row.sourceId },
    };
  });
  const json = sql.json(rows as never);
  await timed(target.times, 'sql: insert events + attributions + commissions + transitions', sql`
    with r as (
      select * from jsonb_to_recordset(${json}) as r(
        event_id text, attribution_id text, id text, user_id text, partner_id text, click_id text, code_id text, occurred_at timestamptz,
        amount bigint, currency text, status text, approved_at timestamptz, paid_at timestamptz, reversed_at timestamptz,
        reversal_reason text, metadata jsonb)
    ), events as (
      insert into events (id, user_id, type, occurred_at, metadata, source, attribution_status, attribution_model)
      select event_id, user_id, 'sale', occurred_at, metadata, 'import', 'attributed', 'last_click' from r
    ), attributions as (
      insert into attributions (id, event_id, user_id, click_id, code_id, partner_id, campaign_id, model, weight, occurred_at, rule_source)
      select attribution_id, event_id, user_id, click_id, code_id, partner_id, ${target.campaignId}, 'last_click', 1, occurred_at, 'campaign' from r
    ), commissions as (
      insert into commissions (id, attribution_id, event_id, partner_id, campaign_id, user_id, amount, currency, event_type, status,
                               holdback_days, approved_at, paid_at, reversed_at, reversal_reason, occurred_at)
      select id, attribution_id, event_id, partner_id, ${target.campaignId}, user_id, amount, currency, 'sale', status,
             0, approved_at, paid_at, reversed_at, reversal_reason, occurred_at from r
    )
    insert into commission_transitions (commission_id, from_status, to_status, actor, reason)
    select id, null, status, ${actor}, ${`imported from ${source}`} from r`);
  await saveRefs(sql, target, 'commission', fresh.map((f, k) => [f.row.sourceId, rows[k]!.id]));
  report.counts.commissions += rows.length;
}

/**
 * The paid commissions this import wrote (its refs, written at this transaction's `now()`) go into
 * one paid payout per partner and currency, provider `import`: paid history, never paid again.
 */
export async function writePaidPayouts(sql: Tx, target: ImportTarget): Promise<void> {
  const groups = await timed(target.times, 'sql: paid commissions by partner and currency', sql<{ partner_id: string; currency: string; total: bigint; n: number; paid_at: Date }[]>`
    select c.partner_id, c.currency, sum(c.amount)::bigint as total, count(*)::int as n, max(c.paid_at) as paid_at
    from import_refs r join commissions c on c.id = r.target_id
    where r.source = ${target.source} and r.kind = 'commission' and r.created_at = now() and c.status = 'paid' and c.payout_id is null
    group by c.partner_id, c.currency
    having sum(c.amount) > 0
    order by c.partner_id, c.currency`);
  if (groups.length === 0) return;
  const actor = `import:${target.source}`;
  const rows = groups.map((g) => ({
    id: newId('payout', g.paid_at),
    partner_id: g.partner_id,
    currency: g.currency,
    amount: g.total.toString(),
    n: g.n,
    paid_at: g.paid_at.toISOString(),
  }));
  await timed(target.times, 'sql: insert payouts + commissions payout_id', sql`
    with p as (
      insert into payouts (id, partner_id, currency, amount, commissions_amount, commission_count, status, provider, created_by, settled_by, paid_at)
      select id, partner_id, currency, amount, amount, n, 'paid', 'import', ${actor}, ${actor}, paid_at
      from jsonb_to_recordset(${sql.json(rows)}) as r(id text, partner_id text, currency text, amount bigint, n int, paid_at timestamptz)
      returning id, partner_id, currency
    )
    update commissions c set payout_id = p.id
    from p, import_refs r
    where r.source = ${target.source} and r.kind = 'commission' and r.created_at = now() and c.id = r.target_id
      and c.status = 'paid' and c.payout_id is null and c.partner_id = p.partner_id and c.currency = p.currency`);
  target.report.counts.payouts += rows.length;
}
