// What each billing provider has sent so far, for the admin settings page.
import type { Sql } from '../../db';

export type ProviderActivity = { conversions: number; lastAt: Date | null; refunds: number };

/** Conversions and refund notices recorded per provider, with the newest conversion's time. */
export async function providerActivity(sql: Sql): Promise<Map<string, ProviderActivity>> {
  const rows = await sql<{ provider: string; conversions: number; last_at: Date | null; refunds: number }[]>`
    with c as (select provider, count(*)::int as n, max(created_at) as last_at from billing_conversions group by provider),
         r as (select provider, count(*)::int as n from billing_refunds group by provider)
    select coalesce(c.provider, r.provider) as provider, coalesce(c.n, 0) as conversions, c.last_at, coalesce(r.n, 0) as refunds
    from c full join r on r.provider = c.provider`;
  return new Map(rows.map((r) => [r.provider, { conversions: r.conversions, lastAt: r.last_at, refunds: r.refunds }]));
}
