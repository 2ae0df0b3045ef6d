// Step 4 of DESIGN.md "Attribution": one attribution per touch, and the commission its partner's
// rules yield, written with their outbox envelopes in the event's transaction.
import type { Tx } from '../../db';
import { newId } from '../../lib/ids';
import { apportion, formatMinor, minorToNumber, multiply, toNumber, type Fraction } from '../../lib/money';
import type { AttributionModel } from '../attribution/models';
import type { ResolvedTouch } from '../attribution/service';
import type { CommissionSnapshot, Rule } from '../campaigns/rules';
import { assessCommissions } from '../fraud/service';
import { enqueueEvent } from '../webhooks/outbox';
import { evaluateRules, findRule, type EngineEvent } from './engine';

export type AccrualEvent = EngineEvent & { id: string; userId: string };

export type AccruedTouch = {
  clickId: string | null;
  couponCode: string | null;
  partnerId: string;
  campaignId: string;
  weight: number;
  attributionId: string;
  commissionId: string | null;
};

type Campaign = { id: string; currency: string; holdbackDays: number | null; rules: Rule[] };

/**
 * Writes the attributions and commissions of an attributed event and enqueues attribution.created
 * then commission.accrued (when one results) for each touch, in touch order.
 *
 * The rule set of a touch is its partner's commission snapshot if there is one, else the live
 * rules of the click's campaign. Amounts are exact (rule x weight) until one rounding per
 * currency, so the parts of a multi-touch split add up to the whole.
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
  const [campaignRows, snapshotRows] = await Promise.all([
    sql<{ id: string; currency: string; holdback_days: number | null; rules: Rule[] | null }[]>`
      select id, currency, holdback_days, rules from campaigns where id = any(${campaignIds})`,
    sql<{ partner_id: string; snapshot: CommissionSnapshot }[]>`
      select partner_id, snapshot from partner_commission_snapshots where partner_id = any(${partnerIds})`,
  ]);
  const campaigns = new Map<string, Campaign>(
    campaignRows.map((c) => [c.id, { id: c.id, currency: c.currency, holdbackDays: c.holdback_days, rules: c.rules ?? [] }]),
  );
  const snapshots = new Map<string, CommissionSnapshot>(snapshotRows.map((s) => [s.partner_id, s.snapshot]));
  const rulesOf = (t: ResolvedTouch) => snapshots.get(t.partnerId)?.rules ?? campaigns.get(t.campaignId)?.rules ?? [];

  // maxOccurrences counts the commissions this user already earned each partner for this event type
  const counted = partnerIds.filter((p) => touches.some((t) => t.partnerId === p && findRule(rulesOf(t), event)?.maxOccurrences !== undefined));
  const prior = new Map<string, number>();
  if (counted.length > 0) {
    const rows = await sql<{ partner_id: string; n: number }[]>`
      select partner_id, count(*)::int as n from commissions
      where user_id = ${event.userId} and event_type = ${event.type} and partner_id = any(${counted})
      group by partner_id`;
    for (const r of rows) prior.set(r.partner_id, r.n);
  }

  const outcomes = touches.map((t) => {
    const campaign = campaigns.get(t.campaignId)!;
    const outcome = evaluateRules({
      rules: rulesOf(t),
      event,
      campaignCurrency: campaign.currency,
      priorOccurrences: prior.get(t.partnerId) ?? 0,
      referralStartedAt: input.referralStartedAt,
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

  const attributions = touches.map((t) => ({
    id: newId('attribution'),
    event_id: event.id,
    user_id: event.userId,
    click_id: t.clickId,
    code_id: t.codeId,
    partner_id: t.partnerId,
    campaign_id: t.campaignId,
    model: input.model,
    weight: toNumber(t.weight),
  }));
  const commissions = touches.flatMap((t, i) => {
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
          holdback_days: snapshots.get(t.partnerId)?.holdbackDays ?? campaign.holdbackDays ?? input.defaultHoldbackDays,
        },
      },
    ];
  });

  // flagged commissions wait for a person instead of the holdback job
  const assessments = await assessCommissions(sql, {
    userId: event.userId,
    ...input.review,
    candidates: commissions.map((c) => ({ partnerId: c.row.partner_id, amount: c.row.amount, currency: c.row.currency })),
  });
  const flagged = commissions.map((c, k) => ({
    ...c.row,
    flags: assessments[k]!.flags,
    flag_evidence: sql.json(assessments[k]!.evidence as never),
  }));

  const writes: Promise<unknown>[] = [
    sql`insert into attributions ${sql(attributions, 'id', 'event_id', 'user_id', 'click_id', 'code_id', 'partner_id', 'campaign_id', 'model', 'weight')}`,
  ];
  if (commissions.length > 0) {
    const rows = flagged;
    writes.push(
      sql`insert into commissions ${sql(rows, 'id', 'attribution_id', 'event_id', 'partner_id', 'campaign_id', 'user_id', 'amount', 'currency', 'event_type', 'event_value', 'holdback_days', 'flags', 'flag_evidence')}`,
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
  const byTouch = new Map(commissions.map((c, k) => [c.index, flagged[k]!]));
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
      writes.push(
        enqueueEvent(sql, 'commission.accrued', {
          commissionId: com.id,
          partnerId: t.partnerId,
          attributionId: att.id,
          campaignId: t.campaignId,
          amount: formatMinor(com.amount, com.currency),
          currency: com.currency,
          eventType: event.type,
          eventValue,
          flags: com.flags,
        }),
      );
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
  }));
}
