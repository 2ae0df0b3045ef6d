// Step 4 of DESIGN.md "Attribution": one attribution per touch, and the commission its partner's
// rules yield, written with their outbox envelopes in the event's transaction; for one event or for
// a whole batch of them at once.
import type { Tx } from '../../db';
import type { ResolvedTouch } from '../attribution/service';
import { billingCustomerOf, readBillingCustomers, readFraudSignals, type FraudSignals, type FraudSubject } from '../fraud/service';
import type { EnvelopeBatch } from '../webhooks/outbox';
import { accrueOne, type AccrualInput, type AccruedTouch, type AttributionRow, type CommissionRow, type Picked, type Terms } from './accrual-rows';
import type { TierMeasure } from './engine';
import { loadCampaignTerms, loadPartnerTerms, measureTiers, NO_TERMS, periodOf, pickRule } from './terms';

/**
 * Writes the attributions and commissions of attributed events and adds to `envelopes`
 * attribution.created then commission.accrued (when one results) for each touch, event by event in
 * the given order, touch by touch. Every event gets exactly what it would get accrued alone after the ones before it.
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
export async function accrueCommissions(sql: Tx, inputs: AccrualInput[], envelopes: EnvelopeBatch): Promise<AccruedTouch[][]> {
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
    const accrued = await accrueRun(sql, { inputs, run, picked, terms, signals, subjects, rereadCustomers: r > 0 }, envelopes);
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
  envelopes: EnvelopeBatch,
): Promise<AccruedTouch[][]> {
  const { inputs, run, picked, terms, subjects } = input;
  const { campaigns } = terms;

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

  const written = run.map((k) =>
    accrueOne(inputs[k]!, { picked: picked.get(k)!, terms, measureOf: (i) => measures.get(`${k}:${i}`), prior, signals, subject: subjects.get(k)! }),
  );
  // ids are taken in the order the envelopes are added: the run's envelopes follow all its rows
  for (const e of written.flatMap((w) => w.envelopes)) {
    if (e.type === 'attribution.created') envelopes.add(e.type, e.data);
    else envelopes.add(e.type, e.data);
  }
  await writeRows(sql, written.flatMap((w) => w.attributions), written.flatMap((w) => w.rows));
  return written.map((w) => w.touches);
}

/** The run's attributions, commissions and their first transitions: one statement per table, pipelined. */
async function writeRows(sql: Tx, attributions: AttributionRow[], rows: CommissionRow[]): Promise<void> {
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
                                 holdback_days, occurred_at, flags, flag_evidence, rule_source, source_commission_id)
        select id, attribution_id, event_id, partner_id, campaign_id, user_id, amount, currency, event_type, event_value,
               holdback_days, occurred_at, flags, flag_evidence, rule_source, source_commission_id
        from jsonb_to_recordset(${sql.json(json as never)}) as r(
          id text, attribution_id text, event_id text, partner_id text, campaign_id text, user_id text, amount bigint, currency text,
          event_type text, event_value bigint, holdback_days int, occurred_at timestamptz, flags text[], flag_evidence jsonb, rule_source text, source_commission_id text)`.execute(),
      sql`
        insert into commission_transitions (commission_id, from_status, to_status, actor)
        select id, null, 'accrued', 'pipeline' from unnest(${rows.map((r) => r.id)}::text[]) with ordinality as r(id, n) order by n`.execute(),
    );
  }
  await Promise.all(writes);
}
