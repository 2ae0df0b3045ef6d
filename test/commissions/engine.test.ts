import { describe, expect, test } from 'bun:test';
import type { Rule } from '../../src/modules/campaigns/rules';
import { evaluateRules, findRule, type EngineEvent } from '../../src/modules/commissions/engine';

const DAY = 86_400_000;
const start = new Date('2026-01-01T00:00:00Z');
const event = (over: Partial<EngineEvent> = {}): EngineEvent => ({
  type: 'invoice_paid',
  amount: 10000n,
  currency: 'USD',
  occurredAt: start,
  metadata: {},
  ...over,
});

type Case = {
  label: string;
  rules: Rule[];
  event?: Partial<EngineEvent>;
  campaignCurrency?: string;
  prior?: number;
  startedAt?: Date;
  expect: string; // "<minor units as fraction> <currency>" or "none:<reason>"
};

const cases: Case[] = [
  { label: 'percent of the event amount', rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 30 }], expect: '3000 USD' },
  { label: 'percent with 4 decimals stays exact', rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 12.3456 }], expect: '1234.56 USD' },
  { label: 'flat amount in the campaign currency', rules: [{ eventType: 'signup', kind: 'flat', amount: '5.00' }], event: { type: 'signup', amount: null, currency: null }, expect: '500 USD' },
  { label: 'flat on an event of another currency still pays the campaign currency', rules: [{ eventType: 'invoice_paid', kind: 'flat', amount: '7.5' }], event: { currency: 'EUR' }, expect: '750 USD' },
  { label: 'flat in a JPY campaign', rules: [{ eventType: 'invoice_paid', kind: 'flat', amount: '500' }], campaignCurrency: 'JPY', expect: '500 JPY' },
  { label: 'flat in a KWD campaign', rules: [{ eventType: 'invoice_paid', kind: 'flat', amount: '1.5' }], campaignCurrency: 'KWD', expect: '1500 KWD' },
  { label: 'percent pays in the event currency', rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 10 }], event: { amount: 1250n, currency: 'JPY' }, expect: '125 JPY' },
  { label: 'no rule for the event type', rules: [{ eventType: 'signup', kind: 'flat', amount: '1' }], expect: 'none:no_rule' },
  { label: 'custom event type targeted by name', rules: [{ eventType: 'demo_booked', kind: 'flat', amount: '20' }], event: { type: 'demo_booked' }, expect: '2000 USD' },
  { label: 'percent rule on an event without amount pays nothing', rules: [{ eventType: 'signup', kind: 'percent', percent: 10 }], event: { type: 'signup', amount: null, currency: null }, expect: 'none:no_amount' },
  {
    label: 'first matching rule wins',
    rules: [
      { eventType: 'invoice_paid', kind: 'percent', percent: 50 },
      { eventType: 'invoice_paid', kind: 'percent', percent: 10 },
    ],
    expect: '5000 USD',
  },
  {
    label: 'metadata match: all keys equal picks the rule',
    rules: [
      { eventType: 'invoice_paid', kind: 'percent', percent: 50, match: { plan: 'pro', annual: true } },
      { eventType: 'invoice_paid', kind: 'percent', percent: 10 },
    ],
    event: { metadata: { plan: 'pro', annual: true, extra: 1 } },
    expect: '5000 USD',
  },
  {
    label: 'metadata match: one key differs falls to the next rule',
    rules: [
      { eventType: 'invoice_paid', kind: 'percent', percent: 50, match: { plan: 'pro', annual: true } },
      { eventType: 'invoice_paid', kind: 'percent', percent: 10 },
    ],
    event: { metadata: { plan: 'pro', annual: false } },
    expect: '1000 USD',
  },
  {
    label: 'metadata match: a missing key does not match',
    rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 50, match: { plan: 'pro' } }],
    event: { metadata: {} },
    expect: 'none:no_rule',
  },
  {
    label: 'metadata match: number 1 is not the string "1"',
    rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 50, match: { seats: '1' } }],
    event: { metadata: { seats: 1 } },
    expect: 'none:no_rule',
  },
  { label: 'maxOccurrences 12: the 12th invoice pays', rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 10, maxOccurrences: 12 }], prior: 11, expect: '1000 USD' },
  { label: 'maxOccurrences 12: the 13th invoice pays nothing', rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 10, maxOccurrences: 12 }], prior: 12, expect: 'none:max_occurrences' },
  {
    label: 'durationDays 30: day 30 pays',
    rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 10, durationDays: 30 }],
    event: { occurredAt: new Date(start.getTime() + 30 * DAY) },
    expect: '1000 USD',
  },
  {
    label: 'durationDays 30: a moment after day 30 pays nothing',
    rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 10, durationDays: 30 }],
    event: { occurredAt: new Date(start.getTime() + 30 * DAY + 1) },
    expect: 'none:duration',
  },
  { label: 'a percent that rounds to nothing pays nothing', rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 0.0001 }], event: { amount: 0n }, expect: 'none:zero' },
  { label: 'flat with more decimals than the currency rounds half-even (JPY "12.5" -> 12)', rules: [{ eventType: 'invoice_paid', kind: 'flat', amount: '12.5' }], campaignCurrency: 'JPY', expect: '12 JPY' },
  { label: 'a stored rule with a broken percent pays nothing', rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: -5 }], expect: 'none:invalid_rule' },
  { label: 'a stored flat rule without amount pays nothing', rules: [{ eventType: 'invoice_paid', kind: 'flat' }], expect: 'none:invalid_rule' },
  { label: 'a flat rule in a campaign with an unknown currency pays nothing', rules: [{ eventType: 'invoice_paid', kind: 'flat', amount: '1' }], campaignCurrency: 'ZZZ', expect: 'none:invalid_rule' },
];

describe('rules engine', () => {
  test.each(cases.map((c) => [c.label, c] as const))('%s', (_label, c) => {
    const outcome = evaluateRules({
      rules: c.rules,
      event: event(c.event),
      campaignCurrency: c.campaignCurrency ?? 'USD',
      priorOccurrences: c.prior ?? 0,
      referralStartedAt: c.startedAt ?? start,
    });
    const shown = outcome.pays
      ? `${Number(outcome.share.num) / Number(outcome.share.den)} ${outcome.currency}`
      : `none:${outcome.reason}`;
    expect(shown).toBe(c.expect);
  });

  test('findRule answers the rule object itself', () => {
    const rules: Rule[] = [{ eventType: 'signup', kind: 'flat', amount: '1' }];
    expect(findRule(rules, { type: 'signup', metadata: {} })).toBe(rules[0]!);
    expect(findRule(rules, { type: 'Signup', metadata: {} })).toBeNull();
  });
});
