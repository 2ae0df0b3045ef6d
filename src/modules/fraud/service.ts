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

/** What one event's flags are computed from, besides the commissions themselves. */
export type FraudSubject = {
  userId: string;
  /** events.source: 'api', 'attribution' or a billing provider. */
  source: string;
  customerEmail: string | null;
  customerId: string | null;
  reviewAbove: string | undefined;
};

/** Only a billing provider's customer can be a duplicate (the HTTP forms name no provider). */
export function billingCustomerOf(subject: Pick<FraudSubject, 'source' | 'customerId'>): string | null {
  return subject.customerId !== null && subject.source !== 'api' && subject.source !== 'attribution' ? `${subject.source}\n${subject.customerId}` : null;
}

/** The rows the flags of many events' commissions rest on (readFraudSignals). */
export type FraudSignals = {
  emailOf: Map<string, string>;
  networks: { user_id: string; partner_id: string; ip_hash: string }[];
  clicks: { user_id: string; partner_id: string; reason: 'bot_click' | 'click_flood'; ids: string[] }[];
  /** Per billing customer, the lowest non-reversed commission of each partner, by partner id. */
  others: Map<string, { partner_id: string; id: string }[]>;
};

/**
 * Reads what the flags of commissions of `subjects` to `partnerIds` rest on, in one pipelined round
 * trip for all of them. Read in the events' transaction: a commission written earlier in it counts
 * as an other partner's (duplicate_customer; readBillingCustomers reads that part again).
 */
export async function readFraudSignals(sql: Tx, input: { subjects: FraudSubject[]; partnerIds: string[] }): Promise<FraudSignals> {
  const { partnerIds } = input;
  if (partnerIds.length === 0 || input.subjects.length === 0) return { emailOf: new Map(), networks: [], clicks: [], others: new Map() };
  const userIds = [...new Set(input.subjects.map((s) => s.userId))];
  const [partners, networks, clicks, others] = await Promise.all([
    sql<{ id: string; email: string }[]>`select id, email from partners where id = any(${partnerIds})`,
    sql<FraudSignals['networks']>`
      select i.user_id, s.partner_id, s.ip_hash
      from identity_ips i join partner_sign_in_ips s on s.ip_hash = i.ip_hash
      where i.user_id = any(${userIds}) and s.partner_id = any(${partnerIds})
      order by s.ip_hash`,
    sql<FraudSignals['clicks']>`
      select ic.user_id, c.partner_id, c.uncredited_reason as reason, array_agg(c.id order by c.id) as ids
      from identity_clicks ic join clicks c on c.id = ic.click_id
      where ic.user_id = any(${userIds}) and c.uncredited_reason is not null and c.partner_id = any(${partnerIds})
      group by 1, 2, 3`,
    readBillingCustomers(sql, input.subjects),
  ]);
  return { emailOf: new Map(partners.map((p) => [p.id, p.email])), networks, clicks, others };
}

/** FraudSignals.others of the subjects' billing customers (none for the HTTP forms). */
export async function readBillingCustomers(sql: Tx, subjects: FraudSubject[]): Promise<FraudSignals['others']> {
  const billing = [
    ...new Map(
      subjects.flatMap((s) => {
        const customer = billingCustomerOf(s);
        return customer === null ? [] : [[customer, s] as const];
      }),
    ).values(),
  ];
  const byCustomer: FraudSignals['others'] = new Map();
  if (billing.length === 0) return byCustomer;
  const rows = await sql<{ source: string; customer_id: string; partner_id: string; id: string }[]>`
    select distinct on (e.source, e.customer_id, c.partner_id) e.source, e.customer_id, c.partner_id, c.id
    from events e join commissions c on c.event_id = e.id
    where (e.source, e.customer_id) in (select * from unnest(${billing.map((s) => s.source)}::text[], ${billing.map((s) => s.customerId!)}::text[]))
      and c.status <> 'reversed'
    order by e.source, e.customer_id, c.partner_id, c.id`;
  for (const o of rows) {
    const key = billingCustomerOf({ source: o.source, customerId: o.customer_id })!;
    let list = byCustomer.get(key);
    if (!list) byCustomer.set(key, (list = []));
    list.push({ partner_id: o.partner_id, id: o.id });
  }
  return byCustomer;
}

/** The flags of each commission an event is about to accrue (one entry per candidate, same order). */
export function assessCommissions(
  signals: FraudSignals,
  subject: FraudSubject,
  candidates: { partnerId: string; amount: bigint; currency: string }[],
): Assessment[] {
  const normalized = subject.customerEmail === null ? null : normalizeEmail(subject.customerEmail);
  const customer = billingCustomerOf(subject);
  const others = customer === null ? [] : (signals.others.get(customer) ?? []);

  return candidates.map((c) => {
    const flags: Flag[] = [];
    const evidence: FlagEvidence = {};

    const partnerEmail = signals.emailOf.get(c.partnerId) ?? null;
    const emailMatch = normalized !== null && partnerEmail !== null && normalizeEmail(partnerEmail) === normalized;
    const ipHashes = signals.networks.filter((n) => n.user_id === subject.userId && n.partner_id === c.partnerId).map((n) => n.ip_hash);
    if (emailMatch || ipHashes.length > 0) {
      flags.push('self_referral');
      evidence.self_referral = { customerEmail: emailMatch ? subject.customerEmail : null, partnerEmail: emailMatch ? partnerEmail : null, ipHashes };
    }

    for (const reason of ['click_flood', 'bot_click'] as const) {
      const ids = signals.clicks.find((r) => r.user_id === subject.userId && r.partner_id === c.partnerId && r.reason === reason)?.ids;
      if (ids) {
        flags.push(reason);
        evidence[reason] = { clickIds: ids.slice(0, 50) };
      }
    }

    const other = others.find((o) => o.partner_id !== c.partnerId);
    if (other) {
      flags.push('duplicate_customer');
      evidence.duplicate_customer = { provider: subject.source, customerId: subject.customerId!, otherPartnerId: other.partner_id, otherCommissionId: other.id };
    }

    if (subject.reviewAbove !== undefined && aboveThreshold(c.amount, c.currency, subject.reviewAbove)) {
      flags.push('review_amount');
      evidence.review_amount = { amount: formatMinor(c.amount, c.currency), threshold: subject.reviewAbove, currency: c.currency };
    }
    return { flags, evidence };
  });
}
