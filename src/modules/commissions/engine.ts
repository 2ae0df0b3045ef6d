// The commission rules engine: which rule applies to an event, and what it pays at full weight.
// Pure: the caller loads the rules, the prior occurrence count and the referral's start.
import { EXPONENTS, fraction, isKnownCurrency, PERCENT_SCALE, percentUnits, scaleDecimal, type Fraction } from '../../lib/money';
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
export function evaluateRules(input: Omit<RuleInput, 'rule'> & { rules: readonly Rule[] }): RuleOutcome {
  const rule = findRule(input.rules, input.event);
  if (!rule) return { pays: false, rule: null, reason: 'no_rule' };
  return evaluateRule({ ...input, rule });
}

/** A partner's trailing period in a campaign: attributed revenue (minor units of the campaign currency) and new customers. */
export type TierMeasure = { revenue: bigint; customers: number };

/** The denominator of a percent share: percent units are scaled by 10^4, and a percent is per 100. */
const PERCENT_DENOMINATOR = 100n * 10n ** BigInt(PERCENT_SCALE);

/**
 * The tier a measure reaches: every threshold a tier names must be met; of the tiers reached, the
 * one paying the most (ties: the first listed). null: none reached (the rule's own value applies).
 * Thresholds that cannot be read (a stored rule gone bad) are never reached.
 */
export function reachedTier(rule: Rule, measure: TierMeasure, currency: string): { tier: Tier; index: number } | null {
  const reached = pickTier(compileTiers(rule, currency), measure);
  return reached && { tier: reached.tier, index: reached.index };
}

/** A tier with its thresholds and value read once (null: unreadable, never reached). */
type ReadTier = { tier: Tier; index: number; minRevenue: bigint | null | undefined; pays: bigint | null; payout: Payout };

function compileTiers(rule: Rule, currency: string): ReadTier[] {
  const exponent = EXPONENTS[currency] ?? 2;
  return (rule.tiers ?? []).map((tier, index) => ({
    tier,
    index,
    minRevenue: tier.minRevenue === undefined ? undefined : scaleDecimal(tier.minRevenue, exponent, 'round'),
    pays: tierValue(rule, tier, exponent),
    payout: payoutOf(rule.kind === 'percent' ? { ...rule, percent: tier.percent } : { ...rule, amount: tier.amount }, currency),
  }));
}

function pickTier(tiers: readonly ReadTier[], measure: TierMeasure): ReadTier | null {
  let best: ReadTier | null = null;
  for (const t of tiers) {
    if (t.minRevenue !== undefined && (t.minRevenue === null || measure.revenue < t.minRevenue)) continue;
    if (t.tier.minCustomers !== undefined && measure.customers < t.tier.minCustomers) continue;
    if (t.pays === null) continue;
    if (!best || t.pays > best.pays!) best = t;
  }
  return best;
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

/** What a rule pays per event, read once: percent units of the event amount, or minor units of the campaign currency. */
type Payout = { kind: 'percent'; units: bigint } | { kind: 'flat'; minor: bigint } | { kind: 'invalid' };

// rules are validated when saved; a stored rule that still makes no sense pays nothing rather than failing the event
function payoutOf(rule: Rule, campaignCurrency: string): Payout {
  if (rule.kind === 'percent') {
    if (typeof rule.percent !== 'number' || !(rule.percent > 0 && rule.percent <= 100)) return { kind: 'invalid' };
    return { kind: 'percent', units: percentUnits(rule.percent) };
  }
  if (rule.kind === 'flat') {
    // flat amounts are stored as decimal text; more decimals than the currency has are rounded half-even
    if (!isKnownCurrency(campaignCurrency) || typeof rule.amount !== 'string') return { kind: 'invalid' };
    const minor = scaleDecimal(rule.amount, EXPONENTS[campaignCurrency]!, 'round');
    return minor === null || minor < 0n ? { kind: 'invalid' } : { kind: 'flat', minor };
  }
  return { kind: 'invalid' };
}

/**
 * A rule with its decimals (percent, amount, tier thresholds) read once, for evaluating it on
 * many events: the rule preview replays thousands with the same few rules.
 */
export type CompiledRule = { rule: Rule; campaignCurrency: string; payout: Payout; tiers: ReadTier[]; durationMs: number | null };

export function compileRule(rule: Rule, campaignCurrency: string): CompiledRule {
  return {
    rule,
    campaignCurrency,
    payout: payoutOf(rule, campaignCurrency),
    tiers: rule.tiers && rule.tiers.length > 0 ? compileTiers(rule, campaignCurrency) : [],
    durationMs: rule.durationDays === undefined ? null : rule.durationDays * DAY,
  };
}

/**
 * evaluateRule on a compiled rule, with times in epoch milliseconds. The share is `num / den`
 * minor units, not reduced (the caller multiplies and rounds once; reducing every event costs more
 * than it saves).
 */
export function evaluateCompiled(
  compiled: CompiledRule,
  input: { amount: bigint | null; currency: string | null; occurredAt: number; referralStartedAt: number; priorOccurrences: number; measure?: TierMeasure },
): { pays: true; rule: Rule; num: bigint; den: bigint; currency: string } | { pays: false; rule: Rule; reason: NoCommission } {
  let rule = compiled.rule;
  let payout = compiled.payout;
  if (compiled.tiers.length > 0 && input.measure) {
    const reached = pickTier(compiled.tiers, input.measure);
    if (reached) {
      rule = rule.kind === 'percent' ? { ...rule, percent: reached.tier.percent } : { ...rule, amount: reached.tier.amount };
      payout = reached.payout;
    }
  }
  if (rule.maxOccurrences !== undefined && input.priorOccurrences >= rule.maxOccurrences) return { pays: false, rule, reason: 'max_occurrences' };
  if (compiled.durationMs !== null && input.occurredAt - input.referralStartedAt > compiled.durationMs) return { pays: false, rule, reason: 'duration' };
  if (payout.kind === 'invalid') return { pays: false, rule, reason: 'invalid_rule' };
  if (payout.kind === 'percent') {
    if (input.amount === null || input.currency === null) return { pays: false, rule, reason: 'no_amount' };
    const num = input.amount * payout.units;
    return num === 0n ? { pays: false, rule, reason: 'zero' } : { pays: true, rule, num, den: PERCENT_DENOMINATOR, currency: input.currency };
  }
  return payout.minor === 0n ? { pays: false, rule, reason: 'zero' } : { pays: true, rule, num: payout.minor, den: 1n, currency: compiled.campaignCurrency };
}

/** What a rule is evaluated with: the event, the referral it belongs to and the tier measure. */
type RuleInput = {
  rule: Rule;
  event: EngineEvent;
  campaignCurrency: string;
  priorOccurrences: number;
  referralStartedAt: Date;
  /** Needed when the rule has tiers; without it the rule's own value applies. */
  measure?: TierMeasure;
};

/** evaluateRules for a rule already chosen (by the precedence of DESIGN.md "Rewards beyond one rule list"). */
export function evaluateRule(input: RuleInput): RuleOutcome {
  const outcome = evaluateCompiled(compileRule(input.rule, input.campaignCurrency), {
    amount: input.event.amount,
    currency: input.event.currency,
    occurredAt: input.event.occurredAt.getTime(),
    referralStartedAt: input.referralStartedAt.getTime(),
    priorOccurrences: input.priorOccurrences,
    measure: input.measure,
  });
  if (!outcome.pays) return outcome;
  return { pays: true, rule: outcome.rule, share: fraction(outcome.num, outcome.den), currency: outcome.currency };
}
