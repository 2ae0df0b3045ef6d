// Fraud signals at accrual and what they rest on: sign-in and identify networks, the flags of a
// commission with their evidence, and the reads of the review queue (DESIGN.md "Fraud and review").
import type { Tx } from '../../db';
import { exponentOf, formatMinor, scaleDecimal } from '../../lib/money';
import { normalizeEmail, type Flag } from './signals';

/** What each flag was raised on, as of accrual (commissions.flag_evidence). */
export type FlagEvidence = {
  self_referral?: { customerEmail: string | null; partnerEmail: string | null; ipHashes: string[] };
  click_flood?: { clickIds: string[] };
  bot_click?: { clickIds: string[] };
  duplicate_customer?: { provider: string; customerId: string; otherPartnerId: string; otherCommissionId: string };
  review_amount?: { amount: string; threshold: string; currency: string };
};

export type Assessment = { flags: Flag[]; evidence: FlagEvidence };

/** Remembers the network a partner signed in from (portal magic link). */
export async function recordSignInNetwork(sql: Tx, partnerId: string, ipHash: string): Promise<void> {
  await sql`
    insert into partner_sign_in_ips (partner_id, ip_hash) values (${partnerId}, ${ipHash})
    on conflict (partner_id, ip_hash) do update set last_at = now(), sign_ins = partner_sign_in_ips.sign_ins + 1`;
}

/** Remembers the network a user was identified from. */
export async function recordIdentityNetwork(sql: Tx, userId: string, ipHash: string): Promise<void> {
  await sql`insert into identity_ips (user_id, ip_hash) values (${userId}, ${ipHash}) on conflict do nothing`;
}

/** Whether `amount` (minor units) is above `threshold` (major units, up to 3 decimals): exact, in integers. */
export function aboveThreshold(amount: bigint, currency: string, threshold: string): boolean {
  const milli = scaleDecimal(threshold, 3, 'strict');
  if (milli === null) return false;
  return amount * 1000n > milli * 10n ** BigInt(exponentOf(currency));
}

/**
 * The flags of each commission an event is about to accrue (one entry per candidate, same order).
 * Read in the event's transaction, in one pipelined round trip.
 */
export async function assessCommissions(
  sql: Tx,
  input: {
    userId: string;
    /** events.source: 'api', 'attribution' or a billing provider. */
    source: string;
    customerEmail: string | null;
    customerId: string | null;
    reviewAbove: string | undefined;
    candidates: { partnerId: string; amount: bigint; currency: string }[];
  },
): Promise<Assessment[]> {
  const { candidates } = input;
  if (candidates.length === 0) return [];
  const partnerIds = [...new Set(candidates.map((c) => c.partnerId))];
  const normalized = input.customerEmail === null ? null : normalizeEmail(input.customerEmail);
  const [partners, networks, clicks, others] = await Promise.all([
    sql<{ id: string; email: string }[]>`select id, email from partners where id = any(${partnerIds})`,
    sql<{ partner_id: string; ip_hash: string }[]>`
      select s.partner_id, s.ip_hash
      from identity_ips i join partner_sign_in_ips s on s.ip_hash = i.ip_hash
      where i.user_id = ${input.userId} and s.partner_id = any(${partnerIds})
      order by s.ip_hash`,
    sql<{ partner_id: string; reason: 'bot_click' | 'click_flood'; ids: string[] }[]>`
      select c.partner_id, c.uncredited_reason as reason, array_agg(c.id order by c.id) as ids
      from identity_clicks ic join clicks c on c.id = ic.click_id
      where ic.user_id = ${input.userId} and c.uncredited_reason is not null and c.partner_id = any(${partnerIds})
      group by 1, 2`,
    input.customerId !== null && input.source !== 'api' && input.source !== 'attribution'
      ? sql<{ partner_id: string; id: string }[]>`
          select distinct on (c.partner_id) c.partner_id, c.id
          from events e join commissions c on c.event_id = e.id
          where e.source = ${input.source} and e.customer_id = ${input.customerId} and c.status <> 'reversed'
          order by c.partner_id, c.id`
      : Promise.resolve([]),
  ]);
  const emailOf = new Map(partners.map((p) => [p.id, p.email]));

  return candidates.map((c) => {
    const flags: Flag[] = [];
    const evidence: FlagEvidence = {};

    const partnerEmail = emailOf.get(c.partnerId) ?? null;
    const emailMatch = normalized !== null && partnerEmail !== null && normalizeEmail(partnerEmail) === normalized;
    const ipHashes = networks.filter((n) => n.partner_id === c.partnerId).map((n) => n.ip_hash);
    if (emailMatch || ipHashes.length > 0) {
      flags.push('self_referral');
      evidence.self_referral = { customerEmail: emailMatch ? input.customerEmail : null, partnerEmail: emailMatch ? partnerEmail : null, ipHashes };
    }

    for (const reason of ['click_flood', 'bot_click'] as const) {
      const ids = clicks.find((r) => r.partner_id === c.partnerId && r.reason === reason)?.ids;
      if (ids) {
        flags.push(reason);
        evidence[reason] = { clickIds: ids.slice(0, 50) };
      }
    }

    const other = others.find((o) => o.partner_id !== c.partnerId);
    if (other) {
      flags.push('duplicate_customer');
      evidence.duplicate_customer = { provider: input.source, customerId: input.customerId!, otherPartnerId: other.partner_id, otherCommissionId: other.id };
    }

    if (input.reviewAbove !== undefined && aboveThreshold(c.amount, c.currency, input.reviewAbove)) {
      flags.push('review_amount');
      evidence.review_amount = { amount: formatMinor(c.amount, c.currency), threshold: input.reviewAbove, currency: c.currency };
    }
    return { flags, evidence };
  });
}
