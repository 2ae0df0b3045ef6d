// Step 4 of DESIGN.md "Attribution": one attribution per touch, and the commission its partner's
// rules yield, written with their outbox envelopes in the event's transaction.
import type { Tx } from '../../db';
import { newId } from '../../lib/ids';
import { apportion, formatMinor, minorToNumber, multiply, percentOf, toNumber, type Fraction } from '../../lib/money';
import type { AttributionModel } from '../attribution/models';
import type { ResolvedTouch } from '../attribution/service';
import { assessCommissions } from '../fraud/service';
import { enqueueEvent } from '../webhooks/outbox';
import { evaluateRule, type EngineEvent, type RuleOutcome } from './engine';
import { holdbackOf, loadCampaignTerms, loadPartnerTerms, measureTiers, NO_TERMS, pickRule, type RuleSource } from './terms';

export type AccrualEvent = EngineEvent & { id: string; userId: string };

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

/**
 * Writes the attributions and commissions of an attributed event and enqueues attribution.created
 * then commission.accrued (when one results) for each touch, in touch order.
 *
 * The rule of a touch follows the precedence of terms.ts (snapshot, group, campaign); a tiered rule
 * pays the tier the partner's trailing period reaches. Amounts are exact (rule x weight) until one
 * rounding per currency, so the parts of a multi-touch split add up to the whole. Each commission
 * in a campaign with recruiterPercent whose partner has a non-revoked recruiter also yields the
 * recruiter's recruit_override commission (that percent of it, half-even; never an override of an
 * override).
 */
export async function accrueCommissions(
  sql: Tx,
  input: {
    event: AccrualEvent;
    model: AttributionModel;
    touches: ResolvedTouch[];
    referralStartedAt: Date;
    defaultHoldbackDays: number;
    /** What the fraud signals read (DESIGN.md "Fraud and review"). */
    review: { source: string; customerEmail: string | null; customerId: string | null; reviewAbove: string | undefined };
  },
): Promise<AccruedTouch[]> {
  const { event, touches } = input;
  if (touches.length === 0) return [];
  const campaignIds = [...new Set(touches.map((t) => t.campaignId))];
  const partnerIds = [...new Set(touches.map((t) => t.partnerId))];
  const [campaigns, partners] = await Promise.all([loadCampaignTerms(sql, campaignIds), loadPartnerTerms(sql, partnerIds)]);
  const termsOf = (t: ResolvedTouch) => partners.get(t.partnerId) ?? NO_TERMS;
  const picked = touches.map((t) => pickRule(termsOf(t), campaigns.get(t.campaignId)!, event));

  // tiers: one query measures every tiered touch; maxOccurrences: one counts the user's earlier commissions
  const tiered = touches.flatMap((t, i) => (picked[i]?.rule.tiers?.length ? [i] : []));
  const counted = partnerIds.filter((p) => touches.some((t, i) => t.partnerId === p && picked[i]?.rule.maxOccurrences !== undefined));
  const [measures, priorRows] = await Promise.all([
    measureTiers(
      sql,
      tiered.map((i) => ({
        partnerId: touches[i]!.partnerId,
        campaignId: touches[i]!.campaignId,
        currency: campaigns.get(touches[i]!.campaignId)!.currency,
        periodDays: picked[i]!.rule.periodDays,
        at: event.occurredAt,
      })),
    ),
    counted.length === 0
      ? []
      : sql<{ partner_id: string; n: number }[]>`
          select partner_id, count(*)::int as n from commissions
          where user_id = ${event.userId} and event_type = ${event.type} and partner_id = any(${counted})
          group by partner_id`,
  ]);
  const measureOf = new Map(tiered.map((i, k) => [i, measures[k]!]));
  const prior = new Map(priorRows.map((r) => [r.partner_id, r.n]));

  const outcomes = touches.map((t, i) => {
    const pick = picked[i];
    if (!pick) return null;
    const outcome: RuleOutcome = evaluateRule({
      rule: pick.rule,
      event,
      campaignCurrency: campaigns.get(t.campaignId)!.currency,
      priorOccurrences: prior.get(t.partnerId) ?? 0,
      referralStartedAt: input.referralStartedAt,
      measure: measureOf.get(i),
    });
    return outcome.pays ? { currency: outcome.currency, share: multiply(outcome.share, t.weight) } : null;
  });

  // one rounding per currency: largest remainder, so the parts add up to the rounded whole
  const amounts: (bigint | null)[] = outcomes.map(() => null);
  for (const currency of new Set(outcomes.flatMap((o) => (o ? [o.currency] : [])))) {
    const idx = outcomes.flatMap((o, i) => (o?.currency === currency ? [i] : []));
    const parts = apportion(idx.map((i) => outcomes[i]!.share as Fraction));
    idx.forEach((i, k) => (amounts[i] = parts[k]!));
  }

  const attributions = touches.map((t, i) => ({
    id: newId('attribution'),
    event_id: event.id,
    user_id: event.userId,
    click_id: t.clickId,
    code_id: t.codeId,
    partner_id: t.partnerId,
    campaign_id: t.campaignId,
    model: input.model,
    weight: toNumber(t.weight),
    occurred_at: event.occurredAt,
    rule_source: picked[i]?.source ?? null,
  }));
  const direct = touches.flatMap((t, i) => {
    const amount = amounts[i];
    if (amount === null || amount === undefined || amount === 0n) return [];
    const currency = outcomes[i]!.currency;
    const campaign = campaigns.get(t.campaignId)!;
    return [
      {
        index: i,
        row: {
          id: newId('commission'),
          attribution_id: attributions[i]!.id,
          event_id: event.id,
          partner_id: t.partnerId,
          campaign_id: t.campaignId,
          user_id: event.userId,
          amount,
          currency,
          event_type: event.type,
          // the event's value is only recorded in the commission's currency
          event_value: event.currency === currency ? event.amount : null,
          holdback_days: holdbackOf(termsOf(t), campaign, input.defaultHoldbackDays),
          rule_source: picked[i]!.source as RuleSource,
          source_commission_id: null as string | null,
        },
      },
    ];
  });

  // flagged commissions wait for a person instead of the holdback job
  const assessments = await assessCommissions(sql, {
    userId: event.userId,
    ...input.review,
    candidates: direct.map((c) => ({ partnerId: c.row.partner_id, amount: c.row.amount, currency: c.row.currency })),
  });
  const flagged = direct.map((c, k) => ({
    ...c.row,
    flags: assessments[k]!.flags,
    flag_evidence: sql.json(assessments[k]!.evidence as never),
  }));

  // two-tier: the recruiter's share of each commission, a commission of its own on the same event
  // and attribution; it carries the recruit's flags, so a commission held for review holds its override too
  const overrides = new Map<string, (typeof flagged)[number]>();
  for (const [k, c] of direct.entries()) {
    const percent = campaigns.get(c.row.campaign_id)!.recruiterPercent;
    const recruiterId = termsOf(touches[c.index]!).recruiterId;
    if (percent === null || recruiterId === null) continue;
    const amount = percentOf(c.row.amount, percent);
    if (amount === 0n) continue;
    const recruit = flagged[k]!;
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
  const rows = flagged.flatMap((r) => [r, ...(overrides.has(r.id) ? [overrides.get(r.id)!] : [])]);

  const writes: Promise<unknown>[] = [
    sql`insert into attributions ${sql(attributions, 'id', 'event_id', 'user_id', 'click_id', 'code_id', 'partner_id', 'campaign_id', 'model', 'weight', 'occurred_at', 'rule_source')}`,
  ];
  if (rows.length > 0) {
    writes.push(
      sql`insert into commissions ${sql(rows, 'id', 'attribution_id', 'event_id', 'partner_id', 'campaign_id', 'user_id', 'amount', 'currency', 'event_type', 'event_value', 'holdback_days', 'flags', 'flag_evidence', 'rule_source', 'source_commission_id')}`,
      sql`insert into commission_transitions ${sql(
        rows.map((r) => ({ commission_id: r.id, from_status: null, to_status: 'accrued', actor: 'pipeline' })),
        'commission_id',
        'from_status',
        'to_status',
        'actor',
      )}`,
    );
  }

  const eventValue = event.amount !== null && event.currency !== null ? minorToNumber(event.amount, event.currency) : 0;
  const byTouch = new Map(direct.map((c, k) => [c.index, flagged[k]!]));
  const accrued = (com: (typeof rows)[number], eventType: string, value: number) =>
    enqueueEvent(sql, 'commission.accrued', {
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
    });
  touches.forEach((t, i) => {
    const att = attributions[i]!;
    const com = byTouch.get(i);
    // enqueueEvent picks the envelope id before its first await: call order is envelope order
    writes.push(
      enqueueEvent(sql, 'attribution.created', {
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
      }),
    );
    if (com) {
      writes.push(accrued(com, event.type, eventValue));
      const override = overrides.get(com.id);
      if (override) writes.push(accrued(override, RECRUIT_OVERRIDE, minorToNumber(com.amount, com.currency)));
    }
  });
  await Promise.all(writes);

  return touches.map((t, i) => ({
    clickId: t.clickId,
    couponCode: t.couponCode,
    partnerId: t.partnerId,
    campaignId: t.campaignId,
    weight: attributions[i]!.weight,
    attributionId: attributions[i]!.id,
    commissionId: byTouch.get(i)?.id ?? null,
    ruleSource: picked[i]?.source ?? null,
  }));
}
