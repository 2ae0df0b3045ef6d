// Reads of the review queue: flagged commissions still waiting for a person, with the evidence
// of each flag, and a partner's flags month by month.
import type { Sql } from '../../db';
import { formatMinor } from '../../lib/money';
import type { FlagEvidence } from './service';
import type { Flag } from './signals';

export type ReviewClick = { id: string; partnerId: string; at: Date; ipHash: string | null; userAgent: string | null; uncreditedReason: string | null };

export type ReviewItem = {
  id: string;
  partnerId: string;
  partnerName: string;
  partnerEmail: string;
  userId: string;
  eventId: string;
  eventType: string;
  amount: string;
  currency: string;
  createdAt: Date;
  flags: Flag[];
  evidence: FlagEvidence;
  customerEmail: string | null;
  /** The customer's clicks through this partner's links, newest first (at most CLICKS_SHOWN). */
  clicks: ReviewClick[];
  /** The networks the customer was identified from. */
  identityIpHashes: string[];
  /** duplicate_customer: the other partner's name. */
  otherPartnerName: string | null;
};

const CLICKS_SHOWN = 10;

/** Flagged commissions still accrued, newest first; `ids` narrows to those. */
export async function reviewQueue(sql: Sql, options: { limit: number; ids?: string[] }): Promise<{ items: ReviewItem[]; total: number }> {
  const only = options.ids ? sql`and c.id = any(${options.ids})` : sql``;
  const [rows, [count]] = await Promise.all([
    sql<
      {
        id: string;
        partner_id: string;
        name: string;
        email: string;
        user_id: string;
        event_id: string;
        event_type: string;
        amount: bigint;
        currency: string;
        created_at: Date;
        flags: Flag[];
        flag_evidence: FlagEvidence;
        customer_email: string | null;
      }[]
    >`
      select c.id, c.partner_id, p.name, p.email, c.user_id, c.event_id, c.event_type, c.amount, c.currency, c.created_at, c.flags,
             c.flag_evidence, e.customer_email
      from commissions c
      join partners p on p.id = c.partner_id
      join events e on e.id = c.event_id
      where c.flags <> '{}' and c.status = 'accrued' ${only}
      order by c.id desc
      limit ${options.limit}`,
    sql<{ n: number }[]>`select count(*)::int as n from commissions c where c.flags <> '{}' and c.status = 'accrued' ${only}`,
  ]);
  if (rows.length === 0) return { items: [], total: count!.n };
  const users = [...new Set(rows.map((r) => r.user_id))];
  const others = [...new Set(rows.flatMap((r) => (r.flag_evidence.duplicate_customer ? [r.flag_evidence.duplicate_customer.otherPartnerId] : [])))];
  const [clicks, networks, names] = await Promise.all([
    sql<{ user_id: string; id: string; partner_id: string; created_at: Date; ip_hash: string | null; user_agent: string | null; uncredited_reason: string | null }[]>`
      select user_id, id, partner_id, created_at, ip_hash, user_agent, uncredited_reason from (
        select ic.user_id, c.id, c.partner_id, c.created_at, c.ip_hash, c.user_agent, c.uncredited_reason,
               row_number() over (partition by ic.user_id, c.partner_id order by c.created_at desc, c.id desc) as n
        from identity_clicks ic join clicks c on c.id = ic.click_id
        where ic.user_id = any(${users})
      ) ranked
      where n <= ${CLICKS_SHOWN}
      order by created_at desc, id desc`,
    sql<{ user_id: string; ip_hash: string }[]>`select user_id, ip_hash from identity_ips where user_id = any(${users}) order by created_at`,
    others.length > 0 ? sql<{ id: string; name: string }[]>`select id, name from partners where id = any(${others})` : Promise.resolve([]),
  ]);
  const nameOf = new Map(names.map((n) => [n.id, n.name]));
  return {
    total: count!.n,
    items: rows.map((r) => ({
      id: r.id,
      partnerId: r.partner_id,
      partnerName: r.name,
      partnerEmail: r.email,
      userId: r.user_id,
      eventId: r.event_id,
      eventType: r.event_type,
      amount: formatMinor(r.amount, r.currency),
      currency: r.currency,
      createdAt: r.created_at,
      flags: r.flags,
      evidence: r.flag_evidence,
      customerEmail: r.customer_email,
      clicks: clicks
        .filter((c) => c.user_id === r.user_id && c.partner_id === r.partner_id)
        .map((c) => ({ id: c.id, partnerId: c.partner_id, at: c.created_at, ipHash: c.ip_hash, userAgent: c.user_agent, uncreditedReason: c.uncredited_reason })),
      identityIpHashes: networks.filter((n) => n.user_id === r.user_id).map((n) => n.ip_hash),
      otherPartnerName: r.flag_evidence.duplicate_customer ? (nameOf.get(r.flag_evidence.duplicate_customer.otherPartnerId) ?? null) : null,
    })),
  };
}

export type PartnerFlagMonth = { month: string; flag: Flag; commissions: number };

/** A partner's flags per month (of the commission's accrual), newest month first; and how many wait for review. */
export async function partnerFlagHistory(sql: Sql, partnerId: string): Promise<{ months: PartnerFlagMonth[]; waiting: number; flagged: number }> {
  const [months, [counts]] = await Promise.all([
    sql<{ month: string; flag: Flag; n: number }[]>`
      select to_char(date_trunc('month', c.created_at at time zone 'UTC'), 'YYYY-MM') as month, f.flag, count(*)::int as n
      from commissions c, unnest(c.flags) as f(flag)
      where c.partner_id = ${partnerId} and c.flags <> '{}'
      group by 1, 2
      order by 1 desc, 2`,
    sql<{ waiting: number; flagged: number }[]>`
      select count(*) filter (where status = 'accrued')::int as waiting, count(*)::int as flagged
      from commissions where partner_id = ${partnerId} and flags <> '{}'`,
  ]);
  return { months: months.map((m) => ({ month: m.month, flag: m.flag, commissions: m.n })), waiting: counts!.waiting, flagged: counts!.flagged };
}
