// The commission rules engine: which rule applies to an event, and what it pays at full weight.
// Pure: the caller loads the rules, the prior occurrence count and the referral's start.
import { EXPONENTS, fraction, isKnownCurrency, percentShare, percentUnits, scaleDecimal, type Fraction } from '../../lib/money';
import { DAY } from '../../lib/time';
import type { Rule, Tier } from '../campaigns/rules';

export type EngineEvent = {
  type: string;
  amount: bigint | null; // minor units of `currency`
  currency: string | null;
  occurredAt: Date;
  metadata: Record<string, unknown>;
};

/** Why a matched (or unmatched) rule pays nothing. */
export type NoCommission = 'no_rule' | 'no_amount' | 'max_occurrences' | 'duration' | 'zero' | 'invalid_rule';

export type RuleOutcome =
  | { pays: true; rule: Rule; share: Fraction; currency: string }
  | { pays: false; rule: Rule | null; reason: NoCommission };

/** First rule whose eventType equals the event's type and whose `match` entries all equal the metadata. */
export function findRule<R extends Rule>(rules: readonly R[], event: Pick<EngineEvent, 'type' | 'metadata'>): R | null {
  for (const rule of rules) {
    if (rule.eventType !== event.type) continue;
    const match = rule.match ?? {};
    if (Object.keys(match).every((key) => Object.hasOwn(event.metadata, key) && event.metadata[key] === match[key])) return rule;
  }
  return null;
}

/**
 * What the first matching rule pays for the event at weight 1, as an exact fraction of minor units
 * (the caller multiplies by the touch weight and rounds once, when splitting).
 *
 * - percent: of the event amount, in the event's currency; an event without amount pays nothing.
 * - flat: the rule amount in the campaign currency, whatever the event's currency.
 * - maxOccurrences: `priorOccurrences` (commissions this referred user already earned this partner
 *   for the rule's event type) must be below it.
 * - durationDays: the event must have occurred within N days of the referral's start.
 */
export function evaluateRules(input: {
  rules: readonly Rule[];
  event: EngineEvent;
  campaignCurrency: string;
  priorOccurrences: number;
  referralStartedAt: Date;
  measure?: TierMeasure;
}): RuleOutcome {
  const rule = findRule(input.rules, input.event);
  if (!rule) return { pays: false, rule: null, reason: 'no_rule' };
  return evaluateRule({ ...input, rule });
}

/** A partner's trailing period in a campaign: attributed revenue (minor units of the campaign currency) and new customers. */
export type TierMeasure = { revenue: bigint; customers: number };

/**
 * The tier a measure reaches: every threshold a tier names must be met; of the tiers reached, the
 * one paying the most (ties: the first listed). null: none reached (the rule's own value applies).
 * Thresholds that cannot be read (a stored rule gone bad) are never reached.
 */
export function reachedTier(rule: Rule, measure: TierMeasure, currency: string): { tier: Tier; index: number } | null {
  const exponent = EXPONENTS[currency] ?? 2;
  let best: { tier: Tier; index: number; pays: bigint } | null = null;
  (rule.tiers ?? []).forEach((tier, index) => {
    if (tier.minRevenue !== undefined) {
      const min = scaleDecimal(tier.minRevenue, exponent, 'round');
      if (min === null || measure.revenue < min) return;
    }
    if (tier.minCustomers !== undefined && measure.customers < tier.minCustomers) return;
    const pays = tierValue(rule, tier, exponent);
    if (pays === null) return;
    if (!best || pays > best.pays) best = { tier, index, pays };
  });
  return best ? { tier: (best as { tier: Tier }).tier, index: (best as { index: number }).index } : null;
}

/** A tier's percent (scaled by 10^4) or amount (minor units), comparable within one rule. */
function tierValue(rule: Rule, tier: Tier, exponent: number): bigint | null {
  try {
    if (rule.kind === 'percent') return typeof tier.percent === 'number' && tier.percent > 0 && tier.percent <= 100 ? percentUnits(tier.percent) : null;
    return typeof tier.amount === 'string' ? scaleDecimal(tier.amount, exponent, 'round') : null;
  } catch {
    return null;
  }
}

/** evaluateRules for a rule already chosen (by the precedence of DESIGN.md "Rewards beyond one rule list"). */
export function evaluateRule(input: {
  rule: Rule;
  event: EngineEvent;
  campaignCurrency: string;
  priorOccurrences: number;
  referralStartedAt: Date;
  /** Needed when the rule has tiers; without it the rule's own value applies. */
  measure?: TierMeasure;
}): RuleOutcome {
  const { event } = input;
  let rule = input.rule;
  if (rule.tiers && rule.tiers.length > 0 && input.measure) {
    const reached = reachedTier(rule, input.measure, input.campaignCurrency);
    if (reached) {
      rule = rule.kind === 'percent' ? { ...rule, percent: reached.tier.percent } : { ...rule, amount: reached.tier.amount };
    }
  }
  if (rule.maxOccurrences !== undefined && input.priorOccurrences >= rule.maxOccurrences) {
    return { pays: false, rule, reason: 'max_occurrences' };
  }
  if (rule.durationDays !== undefined && event.occurredAt.getTime() - input.referralStartedAt.getTime() > rule.durationDays * DAY) {
    return { pays: false, rule, reason: 'duration' };
  }
  let share: Fraction;
  let currency: string;
  // rules are validated when saved; a stored rule that still makes no sense pays nothing rather than failing the event
  if (rule.kind === 'percent') {
    if (typeof rule.percent !== 'number' || !(rule.percent > 0 && rule.percent <= 100)) return { pays: false, rule, reason: 'invalid_rule' };
    if (event.amount === null || event.currency === null) return { pays: false, rule, reason: 'no_amount' };
    share = percentShare(event.amount, rule.percent);
    currency = event.currency;
  } else if (rule.kind === 'flat') {
    // flat amounts are stored as decimal text; more decimals than the currency has are rounded half-even
    if (!isKnownCurrency(input.campaignCurrency) || typeof rule.amount !== 'string') return { pays: false, rule, reason: 'invalid_rule' };
    const minor = scaleDecimal(rule.amount, EXPONENTS[input.campaignCurrency]!, 'round');
    if (minor === null || minor < 0n) return { pays: false, rule, reason: 'invalid_rule' };
    share = fraction(minor, 1);
    currency = input.campaignCurrency;
  } else {
    return { pays: false, rule, reason: 'invalid_rule' };
  }
  if (share.num === 0n) return { pays: false, rule, reason: 'zero' };
  return { pays: true, rule, share, currency };
}
