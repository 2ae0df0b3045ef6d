// A rule row as the editor's form holds it: every field a string, its tiers likewise; blank rows.
import { EVENT_WORDS } from '../terms';

export const RULE_FIELDS = ['eventType', 'kind', 'percent', 'amount', 'maxOccurrences', 'durationDays', 'match', 'periodDays', 'campaignId'] as const;
export const TIER_FIELDS = ['minRevenue', 'minCustomers', 'percent', 'amount'] as const;
export const MAX_ROWS = 100;
export const MAX_TIERS = 20;
/** The event-type picker's "Other (custom name)…" choice. */
export const OTHER = '__other';

export type TierRow = Record<(typeof TIER_FIELDS)[number], string>;
/** One rule as its form row shows it: every field a string, its tiers likewise. */
export type RuleRow = Record<(typeof RULE_FIELDS)[number], string> & { tiers: TierRow[] };

export const blankTier = (): TierRow => ({ minRevenue: '', minCustomers: '', percent: '', amount: '' });
export const blankRow = (): RuleRow => ({
  eventType: '',
  kind: 'percent',
  percent: '',
  amount: '',
  maxOccurrences: '',
  durationDays: '',
  match: '',
  periodDays: '',
  campaignId: '',
  tiers: [],
});

export const tierBlank = (t: TierRow) => TIER_FIELDS.every((f) => t[f] === '');

/** A row with nothing typed (the kind and the campaign choice alone do not make a rule). */
export const isBlank = (row: RuleRow) => RULE_FIELDS.every((f) => f === 'kind' || f === 'campaignId' || row[f] === '') && row.tiers.every(tierBlank);

/** An event type as the picker names it. */
export const eventLabel = (type: string) => (EVENT_WORDS[type] ? `${EVENT_WORDS[type].one[0]!.toUpperCase()}${EVENT_WORDS[type].one.slice(1)} (${type})` : type);
