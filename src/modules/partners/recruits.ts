// A recruiter's recruits (partners whose referredBy it is) and the overrides it earned on each.
import type { Sql } from '../../db';
import { formatMinor } from '../../lib/money';
import { iso } from '../../lib/time';
import { partnerStatus, type PartnerStatus } from './service';

export type Recruit = {
  partnerId: string;
  name: string;
  email: string;
  status: PartnerStatus;
  createdAt: string;
  /** recruit_override commissions not reversed, per currency (amount in major units). */
  overrides: { currency: string; amount: string; count: number }[];
};

/** Newest recruit first. */
export async function listRecruits(sql: Sql, recruiterId: string): Promise<Recruit[]> {
  const rows = await sql<
    { id: string; name: string; email: string; activated_at: Date | null; revoked_at: Date | null; created_at: Date; currency: string | null; amount: bigint | null; n: number }[]
  >`
    select p.id, p.name, p.email, p.activated_at, p.revoked_at, p.created_at, o.currency, o.amount, coalesce(o.n, 0)::int as n
    from partners p
    left join lateral (
      select ov.currency, sum(ov.amount)::bigint as amount, count(*)::int as n
      from commissions s join commissions ov on ov.source_commission_id = s.id
      where s.partner_id = p.id and ov.partner_id = ${recruiterId} and ov.status <> 'reversed'
      group by ov.currency
    ) o on true
    where p.referred_by = ${recruiterId}
    order by p.id desc, o.currency`;
  const recruits = new Map<string, Recruit>();
  for (const r of rows) {
    let recruit = recruits.get(r.id);
    if (!recruit) {
      recruit = { partnerId: r.id, name: r.name, email: r.email, status: partnerStatus(r), createdAt: iso(r.created_at)!, overrides: [] };
      recruits.set(r.id, recruit);
    }
    if (r.currency !== null && r.amount !== null) recruit.overrides.push({ currency: r.currency, amount: formatMinor(r.amount, r.currency), count: r.n });
  }
  return [...recruits.values()];
}
