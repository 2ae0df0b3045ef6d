// Where a partner stands on its tiered rules today: the measure of its trailing period, the tier it
// has reached and what the next one needs (the portal's tier progress, the admin's partner page).
import type { Sql } from '../../db';
import { EXPONENTS, formatMinor, percentUnits, scaleDecimal } from '../../lib/money';
import { DEFAULT_PERIOD_DAYS, type Rule, type Tier } from '../campaigns/rules';
import { reachedTier } from './engine';
import { loadCampaignTerms, loadPartnerTerms, measureTiers, NO_TERMS, type RuleSource } from './terms';

export type TierStanding = {
  campaignId: string;
  campaignName: string;
  currency: string;
  ruleSource: RuleSource;
  eventType: string;
  kind: Rule['kind'];
  periodDays: number;
  /** The measure now, over the trailing periodDays (revenue in major units of the campaign currency). */
  revenue: string;
  customers: number;
  /** The tier reached (its index in rule.tiers) and what it pays; tierIndex null: the rule's own value. */
  current: { tierIndex: number | null; percent: number | null; amount: string | null };
  /** The next tier paying more than the current one, and what is still missing to reach it; null: none. */
  next: {
    tierIndex: number;
    percent: number | null;
    amount: string | null;
    minRevenue: string | null;
    minCustomers: number | null;
    revenueNeeded: string | null;
    customersNeeded: number | null;
  } | null;
};

/** A tier's or rule's pay, comparable within one rule (percent x 10^4, or minor units). */
function pays(rule: Rule, value: { percent?: number; amount?: string }, exponent: number): bigint {
  if (rule.kind === 'percent') return value.percent === undefined ? 0n : percentUnits(value.percent);
  return value.amount === undefined ? 0n : (scaleDecimal(value.amount, exponent, 'round') ?? 0n);
}

/**
 * The tiered rules that can pay the partner in each campaign it holds, from the level that wins for
 * their event type (snapshot, group, campaign: a lower level's rule for an event type a higher level
 * already has a rule for is left out), each with the partner's standing as of `at`.
 */
export async function tierStanding(sql: Sql, partnerId: string, at = new Date()): Promise<TierStanding[]> {
  const held = await sql<{ campaign_id: string; name: string }[]>`
    select pc.campaign_id, c.name from partner_campaigns pc join campaigns c on c.id = pc.campaign_id
    where pc.partner_id = ${partnerId} and c.archived_at is null order by c.name, c.id`;
  if (held.length === 0) return [];
  const [campaigns, partners] = await Promise.all([loadCampaignTerms(sql, held.map((h) => h.campaign_id)), loadPartnerTerms(sql, [partnerId])]);
  const terms = partners.get(partnerId) ?? NO_TERMS;
  const candidates: { campaignId: string; name: string; rule: Rule; source: RuleSource }[] = [];
  for (const h of held) {
    const campaign = campaigns.get(h.campaign_id)!;
    const levels: [RuleSource, Rule[]][] = [
      ['snapshot', terms.snapshot?.rules ?? []],
      ['group', (terms.group?.rules ?? []).filter((r) => r.campaignId === campaign.id || r.campaignId === undefined).map(({ campaignId: _c, ...r }) => r)],
      ['campaign', campaign.rules],
    ];
    const covered = new Set<string>();
    for (const [source, rules] of levels) {
      for (const rule of rules) {
        if (covered.has(rule.eventType)) continue;
        if (rule.tiers?.length) candidates.push({ campaignId: campaign.id, name: h.name, rule, source });
      }
      for (const rule of rules) covered.add(rule.eventType);
    }
  }
  const measures = await measureTiers(
    sql,
    candidates.map((c) => ({ partnerId, campaignId: c.campaignId, currency: campaigns.get(c.campaignId)!.currency, periodDays: c.rule.periodDays, at })),
  );
  return candidates.map((c, k) => {
    const currency = campaigns.get(c.campaignId)!.currency;
    const exponent = EXPONENTS[currency] ?? 2;
    const measure = measures[k]!;
    const reached = reachedTier(c.rule, measure, currency);
    const currentValue: { percent?: number; amount?: string } = reached ? reached.tier : c.rule;
    const currentPays = pays(c.rule, currentValue, exponent);
    let next: { tier: Tier; index: number; pays: bigint } | null = null;
    (c.rule.tiers ?? []).forEach((tier, index) => {
      const p = pays(c.rule, tier, exponent);
      if (p <= currentPays || (next && p >= next.pays)) return;
      next = { tier, index, pays: p };
    });
    const n = next as { tier: Tier; index: number } | null;
    const minRevenue = n?.tier.minRevenue === undefined ? null : (scaleDecimal(n.tier.minRevenue, exponent, 'round') ?? 0n);
    return {
      campaignId: c.campaignId,
      campaignName: c.name,
      currency,
      ruleSource: c.source,
      eventType: c.rule.eventType,
      kind: c.rule.kind,
      periodDays: c.rule.periodDays ?? DEFAULT_PERIOD_DAYS,
      revenue: formatMinor(measure.revenue, currency),
      customers: measure.customers,
      current: { tierIndex: reached?.index ?? null, percent: currentValue.percent ?? null, amount: currentValue.amount ?? null },
      next: n && {
        tierIndex: n.index,
        percent: n.tier.percent ?? null,
        amount: n.tier.amount ?? null,
        minRevenue: n.tier.minRevenue ?? null,
        minCustomers: n.tier.minCustomers ?? null,
        revenueNeeded: minRevenue === null ? null : formatMinor(minRevenue > measure.revenue ? minRevenue - measure.revenue : 0n, currency),
        customersNeeded: n.tier.minCustomers === undefined ? null : Math.max(0, n.tier.minCustomers - measure.customers),
      },
    };
  });
}
