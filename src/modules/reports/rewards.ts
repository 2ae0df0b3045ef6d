// The rewards pages' reads: a recruiter's recruits with the override commissions each brought, and
// what an override commission was earned on (the recruit behind it), for the admin and the portal.
import type { Sql } from '../../db';
import type { PartnerStatus } from '../partners/model';

export type Recruit = {
  id: string;
  name: string;
  status: PartnerStatus;
  createdAt: Date;
  /** override commissions the recruiter earned on this recruit, per currency, reversed ones left out (minor units) */
  earnings: { currency: string; amount: bigint }[];
};

/**
 * The partners `recruiterId` recruited (newest first, at most `limit`), each with the recruiter's
 * override earnings on it: the recruiter's commissions whose source commission is the recruit's.
 */
export async function recruitsOf(sql: Sql, input: { recruiterId: string; limit: number }): Promise<{ recruits: Recruit[]; total: number }> {
  const rows = await sql<{ id: string; name: string; status: PartnerStatus; created_at: Date; total: number; earnings: { currency: string; amount: string }[] | null }[]>`
    with mine as (
      select p.id, p.name, partner_status(p) as status, p.created_at, count(*) over ()::int as total
      from partners p
      where p.referred_by = ${input.recruiterId}
      order by p.id desc
      limit ${input.limit}
    )
    select mine.*, (
      select json_agg(json_build_object('currency', e.currency, 'amount', e.amount::text) order by e.currency)
      from (
        select o.currency, sum(o.amount) as amount
        from commissions o
        join commissions s on s.id = o.source_commission_id
        where o.partner_id = ${input.recruiterId} and s.partner_id = mine.id and o.status <> 'reversed'
        group by o.currency
      ) e
    ) as earnings
    from mine
    order by mine.id desc`;
  return {
    total: rows[0]?.total ?? 0,
    recruits: rows.map((r) => ({
      id: r.id,
      name: r.name,
      status: r.status,
      createdAt: r.created_at,
      earnings: (r.earnings ?? []).map((e) => ({ currency: e.currency, amount: BigInt(e.amount) })),
    })),
  };
}

/** Override commission id -> the recruit (id and name) whose commission it was earned on. */
export async function overrideRecruits(sql: Sql, commissionIds: string[]): Promise<Map<string, { id: string; name: string }>> {
  if (commissionIds.length === 0) return new Map();
  const rows = await sql<{ id: string; recruit_id: string; recruit_name: string }[]>`
    select o.id, r.id as recruit_id, r.name as recruit_name
    from commissions o
    join commissions s on s.id = o.source_commission_id
    join partners r on r.id = s.partner_id
    where o.id = any(${commissionIds}) and o.source_commission_id is not null`;
  return new Map(rows.map((r) => [r.id, { id: r.recruit_id, name: r.recruit_name }]));
}
