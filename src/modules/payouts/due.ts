// What a payout run pays: per partner and currency, approved commissions less open clawbacks, paid
// when the net reaches MIN_PAYOUT. The run (src/workflows/run-payouts.ts) and the admin page's
// preview read it from here, so they cannot disagree.
import type { Tx } from '../../db';
import { majorToMinorCeil } from '../../lib/money';

/** What one partner is owed in one currency: approved commissions less open clawbacks. */
export type PayableGroup = {
  partnerId: string;
  currency: string;
  /** Approved commissions, minor units, and how many. */
  gross: bigint;
  commissionCount: number;
  /** Open clawbacks netted against them, minor units, how many, and which (clawback ids). */
  claw: bigint;
  clawbackCount: number;
  clawIds: string[];
};

/**
 * The sums a payout run is made of, per partner and currency: approved commissions, and the open
 * clawbacks they net. `partnerIds` narrows it to a batch; `lock` takes the rows FOR UPDATE (the
 * run does; the admin page's preview reads without locking). One query for both, so the preview
 * and the run cannot disagree about what is owed.
 */
export async function payableGroups(sql: Tx, input: { partnerIds?: string[]; lock?: boolean }): Promise<PayableGroup[]> {
  const partners = input.partnerIds ? sql`and partner_id = any(${input.partnerIds}::text[])` : sql``;
  const lock = input.lock ? sql`for update` : sql``;
  // Lock what the sums are made of: a reversal waiting on these rows then sees them paid (and opens a
  // clawback for the next payout) instead of shrinking this one after it was sized.
  const sums = await sql<{ partner_id: string; currency: string; gross: bigint; n: number; claw: bigint; m: number; claw_ids: string[] }[]>`
    with approved as (
      select partner_id, currency, amount from commissions
      where status = 'approved' ${partners}
      ${lock}
    ), owed as (
      select id, partner_id, currency, amount from clawbacks
      where status = 'open' ${partners}
      ${lock}
    ), gross as (
      select partner_id, currency, sum(amount)::bigint as gross, count(*)::int as n from approved group by partner_id, currency
    ), claw as (
      select partner_id, currency, sum(amount)::bigint as claw, count(*)::int as m, array_agg(id::text order by id) as claw_ids
      from owed group by partner_id, currency
    )
    select g.partner_id, g.currency, g.gross, g.n, coalesce(c.claw, 0)::bigint as claw, coalesce(c.m, 0)::int as m,
      coalesce(c.claw_ids, '{}') as claw_ids
    from gross g left join claw c using (partner_id, currency)
    order by g.partner_id, g.currency`;
  return sums.map((s) => ({
    partnerId: s.partner_id,
    currency: s.currency,
    gross: s.gross,
    commissionCount: s.n,
    claw: s.claw,
    clawbackCount: s.m,
    clawIds: s.claw_ids,
  }));
}

/**
 * Whether a net amount (approved commissions less open clawbacks, minor units) is paid by a run: it is
 * positive and reaches MIN_PAYOUT in its currency. The portal's "next payout" estimate uses it too.
 */
export function payoutDue(net: bigint, currency: string, minPayout: string): boolean {
  return net > 0n && net >= majorToMinorCeil(minPayout, currency);
}

/** Whether a group is paid in a run. */
export const isDue = (group: PayableGroup, minPayout: string) => payoutDue(group.gross - group.claw, group.currency, minPayout);
