// Commission terms in plain words, for the rule editor's summary, the portal's "what you earn" and the
// signup page: "20% of every paid invoice, for the first 12 per customer, within 365 days".
import { DEFAULT_PERIOD_DAYS, type Rule, type Tier } from '../modules/campaigns/rules';
import { formatMoney } from './ui';

/** What each standard event type is called in a sentence; custom names are quoted as they are. */
export const EVENT_WORDS: Record<string, { one: string; every: string }> = {
  signup: { one: 'signup', every: 'every signup' },
  trial_started: { one: 'trial', every: 'every trial started' },
  subscription_created: { one: 'new subscription', every: 'every new subscription' },
  invoice_paid: { one: 'paid invoice', every: 'every paid invoice' },
};

export const STANDARD_EVENT_TYPES = Object.keys(EVENT_WORDS);

const eventWords = (eventType: string) => EVENT_WORDS[eventType] ?? { one: `“${eventType}” event`, every: `every “${eventType}” event` };

/** A percent as typed, without trailing zeros: 20 -> "20%", 12.5 -> "12.5%". */
export const percentText = (p: number) => `${Number(p.toFixed(4))}%`;

/** One rule as a sentence (no final full stop). `currency` is the campaign's, for flat amounts. */
export function describeRule(rule: Rule, currency: string): string {
  const words = eventWords(rule.eventType);
  const pay = rule.kind === 'percent' ? `${percentText(rule.percent ?? 0)} of ${words.every}` : `${formatMoney(rule.amount ?? '0', currency)} for ${words.every}`;
  const limits: string[] = [];
  if (rule.maxOccurrences !== undefined) limits.push(rule.maxOccurrences === 1 ? 'the first one per customer only' : `the first ${rule.maxOccurrences} per customer`);
  if (rule.durationDays !== undefined) limits.push(`within ${rule.durationDays} days of the customer's first conversion`);
  const match = rule.match ? Object.entries(rule.match) : [];
  if (match.length > 0) limits.push(`when ${match.map(([k, v]) => `${k} is ${typeof v === 'string' ? `“${v}”` : String(v)}`).join(' and ')}`);
  const base = limits.length ? `${pay}, ${limits.join(', ')}` : pay;
  const tiers = rule.tiers ?? [];
  if (tiers.length === 0) return base;
  const period = rule.periodDays ?? DEFAULT_PERIOD_DAYS;
  const steps = tiers.map((tier) => {
    const value = rule.kind === 'percent' ? percentText(tier.percent ?? 0) : formatMoney(tier.amount ?? '0', currency);
    return `${value} from ${tierThreshold(tier, currency)}`;
  });
  return `${base}; ${steps.join('; ')} (measured over the last ${period} day${period === 1 ? '' : 's'})`;
}

/** What a tier needs, in words: "1,000.00 EUR revenue and 5 new customers". */
export function tierThreshold(tier: Tier, currency: string): string {
  const parts: string[] = [];
  if (tier.minRevenue !== undefined) parts.push(`${formatMoney(tier.minRevenue, currency)} revenue`);
  if (tier.minCustomers !== undefined) parts.push(`${tier.minCustomers} new customer${tier.minCustomers === 1 ? '' : 's'}`);
  return parts.join(' and ') || 'always';
}

/**
 * A campaign's terms: one sentence per rule, then the holdback. Rules are tried in order and the first
 * that matches an event pays, so a later rule for the same event type never pays while an earlier one
 * without conditions matches it; that is said too.
 */
export function describeTerms(input: { rules: Rule[]; currency: string; holdbackDays: number }): { rules: string[]; holdback: string; shadowed: number[] } {
  const shadowed: number[] = [];
  input.rules.forEach((rule, i) => {
    const earlier = input.rules.slice(0, i).some((r) => r.eventType === rule.eventType && r.match === undefined && r.maxOccurrences === undefined && r.durationDays === undefined);
    if (earlier) shadowed.push(i);
  });
  const holdback =
    input.holdbackDays === 0
      ? 'Commissions are approved at once.'
      : `Commissions are approved ${input.holdbackDays} day${input.holdbackDays === 1 ? '' : 's'} after the conversion, unless it is refunded first.`;
  return { rules: input.rules.map((r) => describeRule(r, input.currency)), holdback, shadowed };
}
