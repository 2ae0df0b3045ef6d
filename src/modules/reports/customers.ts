// The customers a partner brought, for its admin page: each referred user's first and last sale,
// lifetime revenue and the partner's commissions, and where they stand.
import type { Sql } from '../../db';

export type CustomerState = 'active' | 'refunded' | 'reversed' | 'no_commission';

export type ReferredCustomer = {
  userId: string;
  conversions: number;
  firstAt: Date;
  lastAt: Date;
  /** lifetime, minor units of the chosen currency */
  revenue: bigint;
  commissions: bigint;
  state: CustomerState;
};

/**
 * The customers a partner brought (users with an event attributed to it), all time, latest
 * conversion first: first and last conversion (the events' occurredAt), lifetime revenue and the
 * partner's commissions (reversed left out) in `currency`, and a state: every commission reversed,
 * some refunded or charged back, active, or no commission at all (no rule paid for their events).
 */
export async function referredCustomers(sql: Sql, input: { partnerId: string; currency: string; limit: number; offset: number }): Promise<{ rows: ReferredCustomer[]; total: number }> {
  const rows = await sql<{ user_id: string; conversions: number; first_at: Date; last_at: Date; revenue: bigint; commissions: bigint; n: number; reversed: number; refunded: number; total: number }[]>`
    with t as (
      select distinct a.user_id, a.event_id from attributions a where a.partner_id = ${input.partnerId}
    ),
    ev as (
      select t.user_id, count(*)::int as conversions, min(e.occurred_at) as first_at, max(e.occurred_at) as last_at,
        coalesce(sum(e.amount) filter (where e.currency = ${input.currency}), 0)::bigint as revenue
      from t join events e on e.id = t.event_id
      group by t.user_id
    ),
    cm as (
      select x.user_id,
        coalesce(sum(x.amount) filter (where x.status <> 'reversed' and x.currency = ${input.currency}), 0)::bigint as commissions,
        count(*)::int as n,
        (count(*) filter (where x.status = 'reversed'))::int as reversed,
        (count(*) filter (where x.status = 'reversed' and x.reversal_reason in ('refund', 'chargeback', 'partial_refund')))::int as refunded
      from commissions x where x.partner_id = ${input.partnerId}
      group by x.user_id
    )
    select ev.user_id, ev.conversions, ev.first_at, ev.last_at, ev.revenue,
      coalesce(cm.commissions, 0)::bigint as commissions, coalesce(cm.n, 0) as n, coalesce(cm.reversed, 0) as reversed,
      coalesce(cm.refunded, 0) as refunded, (count(*) over ())::int as total
    from ev left join cm on cm.user_id = ev.user_id
    order by ev.last_at desc, ev.user_id
    limit ${input.limit} offset ${input.offset}`;
  const total = rows[0]?.total ?? (input.offset > 0 ? await customerCount(sql, input.partnerId) : 0);
  return {
    total,
    rows: rows.map((r) => ({
      userId: r.user_id,
      conversions: r.conversions,
      firstAt: r.first_at,
      lastAt: r.last_at,
      revenue: r.revenue,
      commissions: r.commissions,
      state: r.n === 0 ? 'no_commission' : r.reversed === r.n ? 'reversed' : r.refunded > 0 ? 'refunded' : 'active',
    })),
  };
}

async function customerCount(sql: Sql, partnerId: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`select count(distinct user_id)::int as n from attributions where partner_id = ${partnerId}`;
  return row!.n;
}

