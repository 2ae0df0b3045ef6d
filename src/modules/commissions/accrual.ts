// Step 4 of DESIGN.md "Attribution": one attribution per touch, and the commission its partner's
// rules yield, written with their outbox envelopes in the event's transaction; for one event or for
// a whole batch of them at once.
import type { Tx } from '../../db';
import { newId } from '../../lib/ids';
import { apportion, formatMinor, minorToNumber, multiply, percentOf, toNumber, type Fraction } from '../../lib/money';
import type { AttributionModel } from '../attribution/models';
import type { ResolvedTouch } from '../attribution/service';
import { assessCommissions, billingCustomerOf, readBillingCustomers, readFraudSignals, type FraudSignals, type FraudSubject } from '../fraud/service';
import type { Flag } from '../fraud/signals';
import { enqueueEvent } from '../webhooks/outbox';
import { evaluateRule, type EngineEvent, type TierMeasure } from './engine';
import {
  holdbackOf,
  loadCampaignTerms,
  loadPartnerTerms,
  measureTiers,
  NO_TERMS,
  periodOf,
  pickRule,
  type CampaignTerms,
  type PartnerTerms,
  type RuleSource,
} from './terms';

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
type Picked = ReturnType<typeof pickRule>[];
type Terms = { campaigns: Map<string, CampaignTerms>; partners: Map<string, PartnerTerms> };

/**
 * Writes the attributions and commissions of attributed events and enqueues attribution.created
 * then commission.accrued (when one results) for each touch, event by event in the given order,
 * touch by touch. Every event gets exactly what it would get accrued alone after the ones before it.
 *
 * The rule of a touch follows the precedence of terms.ts (snapshot, group, campaign); a tiered rule
 * pays the tier the partner's trailing period reaches. Amounts are exact (rule x weight) until one
 * rounding per currency, so the parts of a multi-touch split add up to the whole. Each commission
 * in a campaign with recruiterPercent whose partner has a non-revoked recruiter also yields the
 * recruiter's recruit_override commission (that percent of it, half-even; never an override of an
 * override).
 *
 * Set-based: the terms and fraud signals of all events are read in one round trip; then each run of
 * events that cannot see each other's rows (runsOf) has its tiers and occurrence counts read in one
 * more (when its rules have any) and its rows written in one statement per table.
 */
export async function accrueCommissions(sql: Tx, inputs: AccrualInput[]): Promise<AccruedTouch[][]> {
  const results: AccruedTouch[][] = inputs.map(() => []);
  const attributed = inputs.flatMap((input, k) => (input.touches.length > 0 ? [k] : []));
  if (attributed.length === 0) return results;
  const touches = attributed.flatMap((k) => inputs[k]!.touches);
  const partnerIds = [...new Set(touches.map((t) => t.partnerId))];
  const subjects = new Map<number, FraudSubject>(attributed.map((k) => [k, { userId: inputs[k]!.event.userId, ...inputs[k]!.review }]));
  // the signals of every touched partner, earning or not: read with the terms, they cost no round trip of their own
  const [campaigns, partners, signals] = await Promise.all([
    loadCampaignTerms(sql, [...new Set(touches.map((t) => t.campaignId))]),
    loadPartnerTerms(sql, partnerIds),
    readFraudSignals(sql, { subjects: [...subjects.values()], partnerIds }),
  ]);
  const terms: Terms = { campaigns, partners };
  const picked = new Map<number, Picked>();
  for (const k of attributed) {
    const { event, touches } = inputs[k]!;
    picked.set(
      k,
      touches.map((t) => pickRule(partners.get(t.partnerId) ?? NO_TERMS, campaigns.get(t.campaignId)!, event)),
    );
  }
  for (const [r, run] of runsOf(inputs, attributed, picked).entries()) {
    const accrued = await accrueRun(sql, { inputs, run, picked, terms, signals, subjects, rereadCustomers: r > 0 });
    run.forEach((k, j) => (results[k] = accrued[j]!));
  }
  return results;
}

const pairOf = (t: Pick<ResolvedTouch, 'partnerId' | 'campaignId'>) => `${t.partnerId}\n${t.campaignId}`;

/**
 * Consecutive runs of events whose accruals read nothing another of the run writes, so a run's
 * reads can all go before its writes. An event starts a new run when an earlier one of the run has
 * its user (maxOccurrences counts the user's commissions), a touch of a partner in a campaign it
 * measures a tier in (the measure counts that attribution), or its billing customer
 * (duplicate_customer reads that commission).
 */
function runsOf(inputs: AccrualInput[], attributed: number[], picked: Map<number, Picked>): number[][] {
  const runs: number[][] = [];
  let run: number[] = [];
  let users = new Set<string>();
  let pairs = new Set<string>();
  let customers = new Set<string>();
  for (const k of attributed) {
    const input = inputs[k]!;
    const measured = input.touches.filter((t, i) => picked.get(k)![i]?.rule.tiers?.length).map(pairOf);
    const customer = billingCustomerOf(input.review);
    if (users.has(input.event.userId) || measured.some((p) => pairs.has(p)) || (customer !== null && customers.has(customer))) {
      runs.push(run);
      run = [];
      users = new Set();
      pairs = new Set();
      customers = new Set();
    }
    run.push(k);
    users.add(input.event.userId);
    for (const t of input.touches) pairs.add(pairOf(t));
    if (customer !== null) customers.add(customer);
  }
  runs.push(run);
  return runs;
}

/**
 * The customers a tier measured in the database that the events after `k` brought: their referrals
 * were written before any accrual, but accrued one by one they would not exist yet when `k` is.
 */
function laterCustomers(inputs: AccrualInput[], k: number, request: { partnerId: string; campaignId: string; from: Date; to: Date }): number {
  const users = new Set<string>();
  for (let j = k + 1; j < inputs.length; j++) {
    const later = inputs[j]!;
    if (!later.newReferral || later.referralStartedAt < request.from || later.referralStartedAt >= request.to) continue;
    if (later.touches.some((t) => t.partnerId === request.partnerId && t.campaignId === request.campaignId)) users.add(later.event.userId);
  }
  return users.size;
}

/** One run of runsOf: its reads in one round trip, its writes in one statement per table. */
async function accrueRun(
  sql: Tx,
  input: {
    inputs: AccrualInput[];
    run: number[];
    picked: Map<number, Picked>;
    terms: Terms;
    signals: FraudSignals;
    subjects: Map<number, FraudSubject>;
    /** Earlier runs wrote commissions: the billing customers' other partners are read again. */
    rereadCustomers: boolean;
  },
): Promise<AccruedTouch[][]> {
  const { inputs, run, picked, terms, subjects } = input;
  const { campaigns, partners } = terms;
  const termsOf = (t: ResolvedTouch) => partners.get(t.partnerId) ?? NO_TERMS;

  // tiers: one query measures every tiered touch; maxOccurrences: one counts the users' earlier commissions
  const tiered = run.flatMap((k) => inputs[k]!.touches.flatMap((t, i) => (picked.get(k)![i]?.rule.tiers?.length ? [{ k, i, t }] : [])));
  const counted = run.flatMap((k) =>
    inputs[k]!.touches.flatMap((t, i) => (picked.get(k)![i]?.rule.maxOccurrences !== undefined ? [{ userId: inputs[k]!.event.userId, type: inputs[k]!.event.type, partnerId: t.partnerId }] : [])),
  );
  const requests = tiered.map(({ k, i, t }) => ({
    partnerId: t.partnerId,
    campaignId: t.campaignId,
    currency: campaigns.get(t.campaignId)!.currency,
    periodDays: picked.get(k)![i]!.rule.periodDays,
    at: inputs[k]!.event.occurredAt,
  }));
  const [measured, priorRows, others] = await Promise.all([
    measureTiers(sql, requests),
    counted.length === 0
      ? []
      : sql<{ user_id: string; event_type: string; partner_id: string; n: number }[]>`
          select user_id, event_type, partner_id, count(*)::int as n from commissions
          where (user_id, event_type) in (select * from unnest(${counted.map((c) => c.userId)}::text[], ${counted.map((c) => c.type)}::text[]))
            and partner_id = any(${[...new Set(counted.map((c) => c.partnerId))]})
          group by 1, 2, 3`,
    input.rereadCustomers ? readBillingCustomers(sql, run.map((k) => subjects.get(k)!)) : input.signals.others,
  ]);
  const signals = { ...input.signals, others };
  const measures = new Map<string, TierMeasure>(
    tiered.map(({ k, i, t }, n) => {
      const { from, to } = periodOf(requests[n]!.periodDays, requests[n]!.at);
      const m = measured[n]!;
      return [`${k}:${i}`, { revenue: m.revenue, customers: m.customers - laterCustomers(inputs, k, { partnerId: t.partnerId, campaignId: t.campaignId, from, to }) }];
    }),
  );
  const prior = new Map(priorRows.map((r) => [`${r.user_id}\n${r.event_type}\n${r.partner_id}`, r.n]));

  const attributions: Record<string, unknown>[] = [];
  const rows: Commission[] = [];
  const envelopes: (() => Promise<unknown>[])[] = [];
  const accrued = run.map((k) => {
    const input = inputs[k]!;
    const written = accrueOne({ sql, input, picked: picked.get(k)!, terms, termsOf, measureOf: (i) => measures.get(`${k}:${i}`), prior, signals, subject: subjects.get(k)! });
    attributions.push(...written.attributions);
    rows.push(...written.rows);
    envelopes.push(written.enqueue);
    return written.touches;
  });

  // one statement per table, each with one JSON parameter: the same statement text for any number of rows
  const writes: Promise<unknown>[] = [
    sql`
      insert into attributions (id, event_id, user_id, click_id, code_id, partner_id, campaign_id, model, weight, occurred_at, rule_source)
      select id, event_id, user_id, click_id, code_id, partner_id, campaign_id, model, weight, occurred_at, rule_source
      from jsonb_to_recordset(${sql.json(attributions as never)}) as r(
        id text, event_id text, user_id text, click_id text, code_id text, partner_id text, campaign_id text, model text,
        weight double precision, occurred_at timestamptz, rule_source text)`.execute(),
  ];
  if (rows.length > 0) {
    const json = rows.map((r) => ({ ...r, amount: r.amount.toString(), event_value: r.event_value?.toString() ?? null }));
    writes.push(
      sql`
        insert into commissions (id, attribution_id, event_id, partner_id, campaign_id, user_id, amount, currency, event_type, event_value,
                                 holdback_days, flags, flag_evidence, rule_source, source_commission_id)
        select id, attribution_id, event_id, partner_id, campaign_id, user_id, amount, currency, event_type, event_value,
               holdback_days, flags, flag_evidence, rule_source, source_commission_id
        from jsonb_to_recordset(${sql.json(json as never)}) as r(
          id text, attribution_id text, event_id text, partner_id text, campaign_id text, user_id text, amount bigint, currency text,
          event_type text, event_value bigint, holdback_days int, flags text[], flag_evidence jsonb, rule_source text, source_commission_id text)`.execute(),
      sql`
        insert into commission_transitions (commission_id, from_status, to_status, actor)
        select id, null, 'accrued', 'pipeline' from unnest(${rows.map((r) => r.id)}::text[]) with ordinality as r(id, n) order by n`.execute(),
    );
  }
  // enqueueEvent picks the envelope id before its first await: call order is envelope order
  await Promise.all([...writes, ...envelopes.flatMap((enqueue) => enqueue())]);
  return accrued;
}

type Commission = {
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
  flags: Flag[];
  flag_evidence: unknown;
  rule_source: RuleSource;
  source_commission_id: string | null;
};

/** The rows and envelopes of one event of a run, from what the run read: arithmetic only. */
function accrueOne({
  sql,
  input,
  picked,
  terms,
  termsOf,
  measureOf,
  prior,
  signals,
  subject,
}: {
  sql: Tx;
  input: AccrualInput;
  picked: Picked;
  terms: Terms;
  termsOf: (t: ResolvedTouch) => PartnerTerms;
  measureOf: (touch: number) => TierMeasure | undefined;
  prior: Map<string, number>;
  signals: FraudSignals;
  subject: FraudSubject;
}) {
  const { event, touches } = input;
  const { campaigns } = terms;

  const outcomes = touches.map((t, i) => {
    const pick = picked[i];
    if (!pick) return null;
    const outcome = evaluateRule({
      rule: pick.rule,
      event,
      campaignCurrency: campaigns.get(t.campaignId)!.currency,
      priorOccurrences: prior.get(`${event.userId}\n${event.type}\n${t.partnerId}`) ?? 0,
      referralStartedAt: input.referralStartedAt,
      measure: measureOf(i),
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
    occurred_at: event.occurredAt.toISOString(),
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
          rule_source: picked[i]!.source,
          source_commission_id: null as string | null,
        },
      },
    ];
  });

  // flagged commissions wait for a person instead of the holdback job
  const assessments = assessCommissions(
    signals,
    subject,
    direct.map((c) => ({ partnerId: c.row.partner_id, amount: c.row.amount, currency: c.row.currency })),
  );
  const flagged: Commission[] = direct.map((c, k) => ({ ...c.row, flags: assessments[k]!.flags, flag_evidence: assessments[k]!.evidence }));

  // two-tier: the recruiter's share of each commission, a commission of its own on the same event
  // and attribution; it carries the recruit's flags, so a commission held for review holds its override too
  const overrides = new Map<string, Commission>();
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

  const eventValue = event.amount !== null && event.currency !== null ? minorToNumber(event.amount, event.currency) : 0;
  const byTouch = new Map(direct.map((c, k) => [c.index, flagged[k]!]));
  const accrued = (com: Commission, eventType: string, value: number) =>
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
  const enqueue = () =>
    touches.flatMap((t, i) => {
      const att = attributions[i]!;
      const com = byTouch.get(i);
      const queued: Promise<unknown>[] = [
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
      ];
      if (com) {
        queued.push(accrued(com, event.type, eventValue));
        const override = overrides.get(com.id);
        if (override) queued.push(accrued(override, RECRUIT_OVERRIDE, minorToNumber(com.amount, com.currency)));
      }
      return queued;
    });

  return {
    attributions,
    rows,
    enqueue,
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
