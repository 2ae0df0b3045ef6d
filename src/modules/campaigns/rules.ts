// The commission rule schema, shared by campaigns and partner commission snapshots.
import { t, type Static } from 'elysia';

export const DecimalString = t.String({ pattern: '^(0|[1-9][0-9]{0,14})(\\.[0-9]{1,3})?$', description: 'Decimal in major units, e.g. "12.50".' });

export const Rule = t.Object(
  {
    eventType: t.String({ minLength: 1, maxLength: 100, description: 'Standard or custom event name.' }),
    kind: t.UnionEnum(['percent', 'flat']),
    percent: t.Optional(t.Number({ exclusiveMinimum: 0, maximum: 100, description: 'Percent of the event value (up to 4 decimals).' })),
    amount: t.Optional(DecimalString),
    maxOccurrences: t.Optional(t.Integer({ minimum: 1, maximum: 10000, description: 'Per referred user.' })),
    durationDays: t.Optional(t.Integer({ minimum: 1, maximum: 36500, description: 'Only events within N days of the referral.' })),
    match: t.Optional(
      t.Record(t.String({ maxLength: 100 }), t.Union([t.String({ maxLength: 500 }), t.Number(), t.Boolean()]), {
        maxProperties: 20,
        description: 'Event metadata that must all be equal.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type Rule = Static<typeof Rule>;

export const Rules = t.Array(Rule, { maxItems: 100 });

/** Problems a rule's shape cannot express: percent rules need percent, flat rules need amount. */
export function ruleProblems(rules: Rule[], field: string): { field: string; message: string }[] {
  const problems: { field: string; message: string }[] = [];
  rules.forEach((rule, i) => {
    if (rule.kind === 'percent' && rule.percent === undefined) problems.push({ field: `${field}.${i}.percent`, message: 'required for percent rules' });
    if (rule.kind === 'percent' && rule.amount !== undefined) problems.push({ field: `${field}.${i}.amount`, message: 'not allowed for percent rules' });
    if (rule.kind === 'flat' && rule.amount === undefined) problems.push({ field: `${field}.${i}.amount`, message: 'required for flat rules' });
    if (rule.kind === 'flat' && rule.percent !== undefined) problems.push({ field: `${field}.${i}.percent`, message: 'not allowed for flat rules' });
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
