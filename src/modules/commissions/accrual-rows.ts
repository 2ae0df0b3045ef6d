// The rows and webhook payloads of one event's accrual, from what its run read (accrual.ts): arithmetic
// only, no SQL. One attribution per touch; the commission its rule pays, split exactly across touches
// and rounded once per currency; the fraud flags; the recruiter's override; the envelopes, in order.
import { newId } from '../../lib/ids';
import { apportion, formatMinor, minorToNumber, multiply, percentOf, toNumber, type Fraction } from '../../lib/money';
import type { AttributionModel } from '../attribution/models';
import type { ResolvedTouch } from '../attribution/service';
import { assessCommissions, type FraudSignals, type FraudSubject } from '../fraud/service';
import type { Flag } from '../fraud/signals';
import type { EventPayloads } from '../webhooks/events';
import { evaluateRule, type EngineEvent, type TierMeasure } from './engine';
import { holdbackOf, NO_TERMS, type CampaignTerms, type PartnerTerms, type pickRule, type RuleSource } from './terms';

export type AccrualEvent = EngineEvent & { id: string; userId: string };

/** One attributed event to accrue. */
export type AccrualInput = {
  event: AccrualEvent;
  model: AttributionModel;
  touches: ResolvedTouch[];
  referralStartedAt: Date;
  /** The event started its referral, written (with those of the other events accrued with it) before the accrual. */
  newReferral: boolean;
  defaultHoldbackDays: number;
  /** What the fraud signals read (DESIGN.md "Fraud and review"). */
  review: { source: string; customerEmail: string | null; customerId: string | null; reviewAbove: string | undefined };
};

export type AccruedTouch = {
  clickId: string | null;
  couponCode: string | null;
  partnerId: string;
  campaignId: string;
  weight: number;
  attributionId: string;
  commissionId: string | null;
  /** The level whose rule matched the event; null when none did. */
  ruleSource: RuleSource | null;
};

/** The eventType of a recruiter's commission on its recruit's. */
export const RECRUIT_OVERRIDE = 'recruit_override';

/** The rule picked for each touch of an event (pickRule), in touch order. */
export type Picked = ReturnType<typeof pickRule>[];
export type Terms = { campaigns: Map<string, CampaignTerms>; partners: Map<string, PartnerTerms> };

export type AttributionRow = {
  id: string;
  event_id: string;
  user_id: string;
  click_id: string | null;
  code_id: string | null;
  partner_id: string;
  campaign_id: string;
  model: AttributionModel;
  weight: number;
  occurred_at: string;
  rule_source: RuleSource | null;
};

export type CommissionRow = {
  id: string;
  attribution_id: string;
  event_id: string;
  partner_id: string;
  campaign_id: string;
  user_id: string;
  amount: bigint;
  currency: string;
  event_type: string;
  event_value: bigint | null;
  holdback_days: number;
  /** the event's occurredAt: the day the commission counts on (docs/analytics.md) */
  occurred_at: string;
  flags: Flag[];
  flag_evidence: unknown;
  rule_source: RuleSource;
  source_commission_id: string | null;
};

/** An envelope to enqueue, in the order it is to be enqueued. */
export type AccrualEnvelope =
  | { type: 'attribution.created'; data: EventPayloads['attribution.created'] }
  | { type: 'commission.accrued'; data: EventPayloads['commission.accrued'] };

/** What one event of a run read: its rules, tier measures, earlier occurrences and fraud signals. */
export type EventReads = {
  picked: Picked;
  terms: Terms;
  measureOf: (touch: number) => TierMeasure | undefined;
  /** Earlier commissions per `${userId}\n${eventType}\n${partnerId}` (maxOccurrences). */
  prior: Map<string, number>;
  signals: FraudSignals;
  subject: FraudSubject;
};

export type EventAccrual = { attributions: AttributionRow[]; rows: CommissionRow[]; envelopes: AccrualEnvelope[]; touches: AccruedTouch[] };

/** The rows and envelopes of one event of a run. */
export function accrueOne(input: AccrualInput, reads: EventReads): EventAccrual {
  const { event, touches } = input;
  const { picked, terms } = reads;
  const termsOf = (t: ResolvedTouch) => terms.partners.get(t.partnerId) ?? NO_TERMS;
  const amounts = touchAmounts(input, reads);
  const attributions = touches.map((t, i) => attributionRow(input, t, picked[i]?.source ?? null));
  const direct = touches.flatMap((t, i) => {
    const share = amounts[i];
    if (!share) return [];
    const campaign = terms.campaigns.get(t.campaignId)!;
    const row = directRow(input, { touch: t, attributionId: attributions[i]!.id, ...share, holdbackDays: holdbackOf(termsOf(t), campaign, input.defaultHoldbackDays), source: picked[i]!.source });
    return [{ index: i, row }];
  });
  // flagged commissions wait for a person instead of the holdback job
  const assessments = assessCommissions(
    reads.signals,
    reads.subject,
    direct.map((c) => ({ partnerId: c.row.partner_id, amount: c.row.amount, currency: c.row.currency })),
  );
  const byTouch = new Map(direct.map((c, k) => [c.index, { ...c.row, flags: assessments[k]!.flags, flag_evidence: assessments[k]!.evidence }]));
  const overrides = overridesOf(terms, [...byTouch].map(([i, row]) => ({ row, recruiterId: termsOf(touches[i]!).recruiterId })));
  const rows = [...byTouch.values()].flatMap((r) => [r, ...(overrides.has(r.id) ? [overrides.get(r.id)!] : [])]);
  return {
    attributions,
    rows,
    envelopes: envelopesOf(input, attributions, byTouch, overrides),
    touches: touches.map((t, i) => ({
      clickId: t.clickId,
      couponCode: t.couponCode,
      partnerId: t.partnerId,
      campaignId: t.campaignId,
      weight: attributions[i]!.weight,
      attributionId: attributions[i]!.id,
      commissionId: byTouch.get(i)?.id ?? null,
      ruleSource: picked[i]?.source ?? null,
    })),
  };
}

/**
 * What each touch earns (null: nothing): its rule's outcome times its weight, exact until one
 * rounding per currency (largest remainder), so the parts add up to the rounded whole.
 */
function touchAmounts(input: AccrualInput, reads: EventReads): ({ amount: bigint; currency: string } | null)[] {
  const { event, touches } = input;
  const outcomes = touches.map((t, i) => {
    const pick = reads.picked[i];
    if (!pick) return null;
    const outcome = evaluateRule({
      rule: pick.rule,
      event,
      campaignCurrency: reads.terms.campaigns.get(t.campaignId)!.currency,
      priorOccurrences: reads.prior.get(`${event.userId}\n${event.type}\n${t.partnerId}`) ?? 0,
      referralStartedAt: input.referralStartedAt,
      measure: reads.measureOf(i),
    });
    return outcome.pays ? { currency: outcome.currency, share: multiply(outcome.share, t.weight) } : null;
  });
  const amounts: ({ amount: bigint; currency: string } | null)[] = outcomes.map(() => null);
  for (const currency of new Set(outcomes.flatMap((o) => (o ? [o.currency] : [])))) {
    const idx = outcomes.flatMap((o, i) => (o?.currency === currency ? [i] : []));
    const parts = apportion(idx.map((i) => outcomes[i]!.share as Fraction));
    idx.forEach((i, k) => (amounts[i] = parts[k] === 0n ? null : { amount: parts[k]!, currency }));
  }
  return amounts;
}

function attributionRow(input: AccrualInput, t: ResolvedTouch, source: RuleSource | null): AttributionRow {
  const { event } = input;
  return {
    id: newId('attribution'),
    event_id: event.id,
    user_id: event.userId,
    click_id: t.clickId,
    code_id: t.codeId,
    partner_id: t.partnerId,
    campaign_id: t.campaignId,
    model: input.model,
    weight: toNumber(t.weight),
    occurred_at: event.occurredAt.toISOString(),
    rule_source: source,
  };
}

/** A touch's own commission, before its fraud assessment. */
function directRow(
  input: AccrualInput,
  c: { touch: ResolvedTouch; attributionId: string; amount: bigint; currency: string; holdbackDays: number; source: RuleSource },
): Omit<CommissionRow, 'flags' | 'flag_evidence'> {
  const { event } = input;
  return {
    id: newId('commission'),
    attribution_id: c.attributionId,
    event_id: event.id,
    partner_id: c.touch.partnerId,
    campaign_id: c.touch.campaignId,
    user_id: event.userId,
    amount: c.amount,
    currency: c.currency,
    event_type: event.type,
    // the event's value is only recorded in the commission's currency
    event_value: event.currency === c.currency ? event.amount : null,
    holdback_days: c.holdbackDays,
    occurred_at: event.occurredAt.toISOString(),
    rule_source: c.source,
    source_commission_id: null,
  };
}

/**
 * Two-tier: the recruiter's share of each commission, a commission of its own on the same event and
 * attribution (recruit commission id -> override). It carries the recruit's flags, so a commission
 * held for review holds its override too; never an override of an override.
 */
function overridesOf(terms: Terms, commissions: { row: CommissionRow; recruiterId: string | null }[]): Map<string, CommissionRow> {
  const overrides = new Map<string, CommissionRow>();
  for (const { row: recruit, recruiterId } of commissions) {
    const percent = terms.campaigns.get(recruit.campaign_id)!.recruiterPercent;
    if (percent === null || recruiterId === null) continue;
    const amount = percentOf(recruit.amount, percent);
    if (amount === 0n) continue;
    overrides.set(recruit.id, {
      ...recruit,
      id: newId('commission'),
      partner_id: recruiterId,
      amount,
      event_type: RECRUIT_OVERRIDE,
      // an override's value is the recruit commission it is a share of
      event_value: recruit.amount,
      rule_source: 'campaign',
      source_commission_id: recruit.id,
    });
  }
  return overrides;
}

/** Touch by touch: attribution.created, then commission.accrued for its commission and its override. */
function envelopesOf(input: AccrualInput, attributions: AttributionRow[], byTouch: Map<number, CommissionRow>, overrides: Map<string, CommissionRow>): AccrualEnvelope[] {
  const { event } = input;
  const eventValue = event.amount !== null && event.currency !== null ? minorToNumber(event.amount, event.currency) : 0;
  const accrued = (com: CommissionRow, eventType: string, value: number): AccrualEnvelope => ({
    type: 'commission.accrued',
    data: {
      commissionId: com.id,
      partnerId: com.partner_id,
      attributionId: com.attribution_id,
      campaignId: com.campaign_id,
      amount: formatMinor(com.amount, com.currency),
      currency: com.currency,
      eventType,
      eventValue: value,
      flags: com.flags,
      ruleSource: com.rule_source,
    },
  });
  return input.touches.flatMap((t, i) => {
    const att = attributions[i]!;
    const com = byTouch.get(i);
    const envelopes: AccrualEnvelope[] = [
      {
        type: 'attribution.created',
        data: {
          attributionId: att.id,
          eventId: event.id,
          partnerId: t.partnerId,
          campaignId: t.campaignId,
          clickId: t.clickId,
          couponCode: t.couponCode,
          model: input.model,
          weight: att.weight,
          eventType: event.type,
          eventValue,
          commissionId: com?.id ?? null,
          commissionAmount: com ? formatMinor(com.amount, com.currency) : null,
          commissionCurrency: com?.currency ?? null,
        },
      },
    ];
    if (com) {
      envelopes.push(accrued(com, event.type, eventValue));
      const override = overrides.get(com.id);
      if (override) envelopes.push(accrued(override, RECRUIT_OVERRIDE, minorToNumber(com.amount, com.currency)));
    }
    return envelopes;
  });
}
