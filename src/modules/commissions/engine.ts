// The commission rules engine: which rule applies to an event, and what it pays at full weight.
// Pure: the caller loads the rules, the prior occurrence count and the referral's start.
import { EXPONENTS, fraction, isKnownCurrency, percentShare, scaleDecimal, type Fraction } from '../../lib/money';
import { DAY } from '../../lib/time';
import type { Rule } from '../campaigns/rules';

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
export function findRule(rules: readonly Rule[], event: Pick<EngineEvent, 'type' | 'metadata'>): Rule | null {
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
}): RuleOutcome {
  const { event } = input;
  const rule = findRule(input.rules, event);
  if (!rule) return { pays: false, rule: null, reason: 'no_rule' };
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
