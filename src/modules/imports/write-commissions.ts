// Imported commissions, with their exact amounts, currencies and states: each is a conversion event
// (source `import`), its attribution to the partner and the commission, written a batch at a time.
// Paid history goes into one paid payout per partner and currency (provider `import`), so the
// payout run never pays it again.
import type { Tx } from '../../db';
import { newId } from '../../lib/ids';
import { payoutKey } from './ahead';
import { claimRefs } from './refs';
import { timed } from './timing';
import type { ImportedCommission } from './rows';
import type { ImportTarget, Lined } from './write-partners';

type Files = { partnersFile: string; customersFile: string };
/** What every batch of one import's commissions shares: the time standing in for a missing one, and its paid payouts. */
type CommissionsTarget = ImportTarget & Files & { clock: Date; payouts: PaidPayouts };

/**
 * This import's paid payouts, one per partner and currency, each minted when its first paid
 * commission is written and named by the time of its last one (readCommissionsAhead), so every paid
 * commission is written in its payout; settlePaidPayouts then puts their totals in.
 */
export class PaidPayouts {
  /** payoutKey(partner source id, currency) -> payout id */
  readonly ids = new Map<string, string>();

  constructor(private readonly lastPaid: Map<string, number>) {}

  /** The payout of a paid commission, and whether this call minted it (the caller inserts it). */
  of(partnerSourceId: string, currency: string, paidAt: Date): { id: string; minted: boolean } {
    const key = payoutKey(partnerSourceId, currency);
    const known = this.ids.get(key);
    if (known !== undefined) return { id: known, minted: false };
    const id = newId('payout', new Date(this.lastPaid.get(key) ?? paidAt.getTime()));
    this.ids.set(key, id);
    return { id, minted: true };
  }
}

/** Writes one batch of commissions; rows imported before are counted as skipped. */
export async function writeCommissions(
  sql: Tx,
  target: CommissionsTarget,
  batch: Lined<ImportedCommission>[],
  partners: Map<string, string>,
  customers: Map<string, string>,
): Promise<void> {
  const { source, report, file } = target;
  // each id's first row with its partner and customer known is the one to write, unless it was
  // imported before: its ref is claimed first, and only the claimed are written
  const first = new Map<string, Lined<ImportedCommission> & { partnerId: string; userId: string; id: string }>();
  const partnerOf = (row: ImportedCommission) => partners.get(row.partnerSourceId);
  const userOf = (row: ImportedCommission) => (row.customerSourceId === null ? `${source}:commission:${row.sourceId}` : customers.get(row.customerSourceId));
  for (const item of batch) {
    const partnerId = partnerOf(item.row);
    const userId = userOf(item.row);
    if (partnerId !== undefined && userId !== undefined && !first.has(item.row.sourceId)) {
      first.set(item.row.sourceId, { ...item, partnerId, userId, id: newId('commission', item.row.createdAt ?? target.clock) });
    }
  }
  const claimed = await claimRefs(sql, target, 'commission', [...first.values()].map((f) => [f.row.sourceId, f.id]));
  const fresh: (Lined<ImportedCommission> & { partnerId: string; userId: string; id: string })[] = [];
  for (const item of batch) {
    const { row, line } = item;
    const chosen = first.get(row.sourceId);
    if (partnerOf(row) === undefined) report.problem(file, line, `partner ${row.partnerSourceId} is not in ${target.partnersFile}`);
    else if (userOf(row) === undefined) report.problem(file, line, `customer ${row.customerSourceId} is not in ${target.customersFile}`);
    else if (!claimed.has(row.sourceId)) report.skipped++;
    else if (chosen!.line !== line) report.problem(file, line, `id ${row.sourceId} appears twice; the first row is kept`);
    else fresh.push(chosen!);
  }
  if (fresh.length === 0) return;
  // the attribution names the customer's referral touch (its click or code), else a click minted for it
  const touches = await timed(target.times, 'sql: touches of batch users', sql<{ user_id: string; click_id: string | null; code_id: string | null }[]>`
    select user_id, click_id, code_id from referral_touches where position = 0 and user_id = any(${[...new Set(fresh.map((f) => f.userId))]}::text[])`);
  const touchOf = new Map(touches.map((t) => [t.user_id, t]));
  const actor = `import:${source}`;
  const minted: { id: string; partner_id: string; currency: string; paid_at: string }[] = [];
  const rows = fresh.map(({ row, partnerId, userId, id }) => {
    const at = row.createdAt ?? target.clock;
    const touch = touchOf.get(userId);
    const paidAt = row.status === 'paid' ? (row.paidAt ?? at) : null;
    const payout = paidAt === null ? null : target.payouts.of(row.partnerSourceId, row.currency, paidAt);
    if (payout?.minted) minted.push({ id: payout.id, partner_id: partnerId, currency: row.currency, paid_at: paidAt!.toISOString() });
    return {
      event_id: newId('event', at),
      attribution_id: newId('attribution', at),
      id,
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
      payout_id: payout?.id ?? null,
      reversed_at: row.status === 'reversed' ? at.toISOString() : null,
      reversal_reason: row.status === 'reversed' ? `refused at ${source} before the import` : null,
      metadata: { importedFrom: source, importedId: row.sourceId },
    };
  });
  if (minted.length > 0) {
    // their totals are put in once every commission is written (settlePaidPayouts); 1 meanwhile
    await timed(target.times, 'sql: insert paid payouts', sql`
      insert into payouts (id, partner_id, currency, amount, commissions_amount, commission_count, status, provider, created_by, settled_by, paid_at)
      select id, partner_id, currency, 1, 1, 1, 'paid', 'import', ${actor}, ${actor}, paid_at
      from jsonb_to_recordset(${sql.json(minted)}) as r(id text, partner_id text, currency text, paid_at timestamptz)`);
  }
  const json = sql.json(rows as never);
  await timed(target.times, 'sql: insert events + attributions + commissions + transitions', sql`
    with r as (
      select * from jsonb_to_recordset(${json}) as r(
        event_id text, attribution_id text, id text, user_id text, partner_id text, click_id text, code_id text, occurred_at timestamptz,
        amount bigint, currency text, status text, approved_at timestamptz, paid_at timestamptz, payout_id text, reversed_at timestamptz,
        reversal_reason text, metadata jsonb)
    ), events as (
      insert into events (id, user_id, type, occurred_at, metadata, source, attribution_status, attribution_model)
      select event_id, user_id, 'sale', occurred_at, metadata, 'import', 'attributed', 'last_click' from r
    ), attributions as (
      insert into attributions (id, event_id, user_id, click_id, code_id, partner_id, campaign_id, model, weight, occurred_at, rule_source)
      select attribution_id, event_id, user_id, click_id, code_id, partner_id, ${target.campaignId}, 'last_click', 1, occurred_at, 'campaign' from r
    ), commissions as (
      insert into commissions (id, attribution_id, event_id, partner_id, campaign_id, user_id, amount, currency, event_type, status,
                               holdback_days, approved_at, paid_at, payout_id, reversed_at, reversal_reason, occurred_at)
      select id, attribution_id, event_id, partner_id, ${target.campaignId}, user_id, amount, currency, 'sale', status,
             0, approved_at, paid_at, payout_id, reversed_at, reversal_reason, occurred_at from r
    )
    insert into commission_transitions (commission_id, from_status, to_status, actor, reason)
    select id, null, status, ${actor}, ${`imported from ${source}`} from r`);
  report.counts.commissions += rows.length;
}

/**
 * Puts each of this import's paid payouts' totals in: the sum and count of its commissions and its
 * last payment. A payout whose commissions are all of 0 is no payout: they are left out of it and
 * it is removed (a payout is of more than nothing).
 */
export async function settlePaidPayouts(sql: Tx, target: Pick<CommissionsTarget, 'report' | 'times' | 'payouts'>): Promise<void> {
  const ids = [...target.payouts.ids.values()];
  if (ids.length === 0) return;
  const [{ empty }] = await timed(target.times, 'sql: settle paid payouts', sql<[{ empty: string[] | null }]>`
    with totals as (
      select p.id, coalesce(sum(c.amount), 0)::bigint as total, count(c.id)::int as n, max(c.paid_at) as paid_at
      from unnest(${ids}::text[]) as p(id) left join commissions c on c.payout_id = p.id
      group by p.id
    ), settled as (
      update payouts p set amount = t.total, commissions_amount = t.total, commission_count = t.n, paid_at = t.paid_at
      from totals t where p.id = t.id and t.total > 0
    )
    select array_agg(id) as empty from totals where total = 0`);
  if (empty !== null) {
    await sql`update commissions set payout_id = null where payout_id = any(${empty}::text[])`;
    await sql`delete from payouts where id = any(${empty}::text[])`;
  }
  target.report.counts.payouts += ids.length - (empty?.length ?? 0);
}
