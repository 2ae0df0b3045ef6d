// The commission rule schema, shared by campaigns, partner groups and partner commission snapshots.
import { t, type Static } from 'elysia';

export const DecimalString = t.String({ pattern: '^(0|[1-9][0-9]{0,14})(\\.[0-9]{1,3})?$', description: 'Decimal in major units, e.g. "12.50".' });

const Percent = t.Number({ exclusiveMinimum: 0, maximum: 100, description: 'Percent of the event value (up to 4 decimals).' });

/** A step of a rule: reached when every threshold it names is met over the rule's periodDays. */
export const Tier = t.Object(
  {
    minRevenue: t.Optional(t.String({ ...DecimalString, description: "Attributed revenue in the campaign currency over the rule's periodDays (major units)." })),
    minCustomers: t.Optional(t.Integer({ minimum: 1, maximum: 1_000_000_000, description: "New referred customers over the rule's periodDays." })),
    percent: t.Optional(Percent),
    amount: t.Optional(DecimalString),
  },
  { additionalProperties: false },
);
export type Tier = Static<typeof Tier>;

const ruleFields = {
  eventType: t.String({ minLength: 1, maxLength: 100, description: 'Standard or custom event name.' }),
  kind: t.UnionEnum(['percent', 'flat']),
  percent: t.Optional(Percent),
  amount: t.Optional(DecimalString),
  maxOccurrences: t.Optional(t.Integer({ minimum: 1, maximum: 10000, description: 'Per referred user.' })),
  durationDays: t.Optional(t.Integer({ minimum: 1, maximum: 36500, description: 'Only events within N days of the referral.' })),
  match: t.Optional(
    t.Record(t.String({ maxLength: 100 }), t.Union([t.String({ maxLength: 500 }), t.Number(), t.Boolean()]), {
      maxProperties: 20,
      description: 'Event metadata that must all be equal.',
    }),
  ),
  periodDays: t.Optional(t.Integer({ minimum: 1, maximum: 3650, description: 'The trailing period tiers are measured over (default 30).' })),
  tiers: t.Optional(
    t.Array(Tier, {
      maxItems: 20,
      description: 'The reached tier paying the most replaces the rule’s own percent / amount; below every tier the rule’s own value applies.',
    }),
  ),
};

export const Rule = t.Object(ruleFields, { additionalProperties: false });
export type Rule = Static<typeof Rule>;

export const Rules = t.Array(Rule, { maxItems: 100 });

/** A group rule: a campaign rule that may be limited to one campaign. */
export const GroupRule = t.Object(
  { ...ruleFields, campaignId: t.Optional(t.String({ maxLength: 64, description: 'Absent: the rule applies in every campaign.' })) },
  { additionalProperties: false },
);
export type GroupRule = Static<typeof GroupRule>;

export const GroupRules = t.Array(GroupRule, { maxItems: 100 });

/** Trailing period of a tiered rule when it names none. */
export const DEFAULT_PERIOD_DAYS = 30;

/**
 * Problems a rule's shape cannot express: percent rules need percent, flat rules need amount, and
 * their tiers likewise; each tier needs a threshold.
 */
export function ruleProblems(rules: Rule[], field: string): { field: string; message: string }[] {
  const problems: { field: string; message: string }[] = [];
  rules.forEach((rule, i) => {
    if (rule.kind === 'percent' && rule.percent === undefined) problems.push({ field: `${field}.${i}.percent`, message: 'required for percent rules' });
    if (rule.kind === 'percent' && rule.amount !== undefined) problems.push({ field: `${field}.${i}.amount`, message: 'not allowed for percent rules' });
    if (rule.kind === 'flat' && rule.amount === undefined) problems.push({ field: `${field}.${i}.amount`, message: 'required for flat rules' });
    if (rule.kind === 'flat' && rule.percent !== undefined) problems.push({ field: `${field}.${i}.percent`, message: 'not allowed for flat rules' });
    (rule.tiers ?? []).forEach((tier, k) => {
      const at = `${field}.${i}.tiers.${k}`;
      if (tier.minRevenue === undefined && tier.minCustomers === undefined) problems.push({ field: at, message: 'needs minRevenue or minCustomers' });
      if (rule.kind === 'percent') {
        if (tier.percent === undefined) problems.push({ field: `${at}.percent`, message: 'required for tiers of percent rules' });
        if (tier.amount !== undefined) problems.push({ field: `${at}.amount`, message: 'not allowed for tiers of percent rules' });
      } else {
        if (tier.amount === undefined) problems.push({ field: `${at}.amount`, message: 'required for tiers of flat rules' });
        if (tier.percent !== undefined) problems.push({ field: `${at}.percent`, message: 'not allowed for tiers of flat rules' });
      }
    });
  });
  return problems;
}

export const CommissionSnapshot = t.Object(
  {
    rules: Rules,
    holdbackDays: t.Optional(t.Integer({ minimum: 0, maximum: 3650 })),
  },
  { additionalProperties: false },
);
export type CommissionSnapshot = Static<typeof CommissionSnapshot>;
