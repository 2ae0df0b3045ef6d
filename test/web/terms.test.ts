// Commission terms in words: what the rule editor's summary, the portal and the signup page say.
import { describe, expect, test } from 'bun:test';
import type { Rule } from '../../src/modules/campaigns/rules';
import { describeRule, describeTerms } from '../../src/web/terms';

describe('describeRule', () => {
  const cases: [string, Rule, string, string][] = [
    ['a percent of invoices', { eventType: 'invoice_paid', kind: 'percent', percent: 20 }, 'USD', '20% of every paid invoice'],
    ['a fractional percent', { eventType: 'invoice_paid', kind: 'percent', percent: 12.5 }, 'USD', '12.5% of every paid invoice'],
    ['a flat amount in the campaign currency', { eventType: 'signup', kind: 'flat', amount: '5' }, 'EUR', '5.00 EUR for every signup'],
    ['a yen amount has no decimals', { eventType: 'subscription_created', kind: 'flat', amount: '1500' }, 'JPY', '1,500 JPY for every new subscription'],
    ['recurring for twelve invoices', { eventType: 'invoice_paid', kind: 'percent', percent: 30, maxOccurrences: 12 }, 'USD', '30% of every paid invoice, the first 12 per customer'],
    ['once per customer', { eventType: 'trial_started', kind: 'flat', amount: '1.5', maxOccurrences: 1 }, 'USD', '1.50 USD for every trial started, the first one per customer only'],
    ['within a period', { eventType: 'invoice_paid', kind: 'percent', percent: 10, durationDays: 365 }, 'USD', "10% of every paid invoice, within 365 days of the customer's first conversion"],
    ['a custom event with a metadata match', { eventType: 'seat_added', kind: 'flat', amount: '2', match: { plan: 'team', annual: true } }, 'USD', '2.00 USD for every “seat_added” event, when plan is “team” and annual is true'],
  ];
  for (const [label, rule, currency, text] of cases) test(label, () => expect(describeRule(rule, currency)).toBe(text));
});

describe('describeTerms', () => {
  test('the holdback in words, and a rule that an earlier one always wins over', () => {
    const terms = describeTerms({
      rules: [
        { eventType: 'invoice_paid', kind: 'percent', percent: 20 },
        { eventType: 'invoice_paid', kind: 'percent', percent: 50, match: { plan: 'pro' } },
      ],
      currency: 'USD',
      holdbackDays: 30,
    });
    expect(terms.holdback).toBe('Commissions are approved 30 days after the conversion, unless it is refunded first.');
    expect(terms.shadowed).toEqual([1]);
    expect(describeTerms({ rules: [], currency: 'USD', holdbackDays: 0 }).holdback).toBe('Commissions are approved at once.');
  });
});
