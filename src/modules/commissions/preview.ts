// The rule preview (DESIGN.md "Rewards beyond one rule list"): the campaign's events of the last N
// days replayed under draft rules, next to what they earned. Set-based reads, arithmetic in memory,
// nothing written.
import type { Sql } from '../../db';
import { AppError, notFound } from '../../lib/errors';
import { apportion, formatMinor, PERCENT_SCALE, percentUnits, roundHalfEven, type Fraction } from '../../lib/money';
import { DAY } from '../../lib/time';
import { DEFAULT_PERIOD_DAYS, ruleProblems, type Rule } from '../campaigns/rules';
import { amountProblems, findCampaign, throwProblems } from '../campaigns/service';
import { compileRule, evaluateCompiled, type CompiledRule, type TierMeasure } from './engine';
import { loadCampaignTerms, loadPartnerTerms, NO_TERMS, pickRule, type CampaignTerms, type PartnerTerms } from './terms';

export type PreviewAnswer = {
  currency: string;
  days: number;
  partners: { partnerId: string; current: string; preview: string; difference: string }[];
  total: { current: string; preview: string; difference: string };
};

type TouchRow = {
  event_id: string;
  user_id: string;
  partner_id: string;
  campaign_id: string;
  type: string;
  amount: bigint | null;
  currency: string | null;
  weight_num: number | null;
  weight_den: number | null;
  weight: number;
  /** epoch milliseconds, as a Date would hold them (read as numbers: no Date per row) */
  occurred_ms: number;
  started_ms: number;
};

type Pick = ReturnType<typeof pickRule>;

/** Times (added in order) with a running sum: how much fell in [from, to) in two binary searches. */
class Timeline {
  private times: number[] = [];
  private sums: bigint[] = [0n];
  add(time: number, value: bigint) {
    this.times.push(time);
    this.sums.push(this.sums[this.sums.length - 1]! + value);
  }
  private lower(time: number): number {
    let lo = 0;
    let hi = this.times.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.times[mid]! < time) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
  between(from: number, to: number): bigint {
    return this.sums[this.lower(to)]! - this.sums[this.lower(from)]!;
  }
}

/**
 * Replays the campaign's events of the last `days` as accrual would today, with `rules` in place of
 * the campaign's rules (snapshots and groups still win over them), and compares with the
 * commissions those events accrued (at their accrued amount, live or reversed alike). Counted: this
 * campaign's commissions in its currency, recruiter overrides included (they follow the rules).
 */
export async function previewRules(sql: Sql, input: { campaignId: string; rules: Rule[]; days: number }): Promise<PreviewAnswer> {
  const campaign = await findCampaign(sql, input.campaignId);
  if (!campaign) throw notFound('campaign');
  if (!Number.isInteger(input.days) || input.days < 1 || input.days > 365) {
    throw new AppError('invalid_body', 'days: an integer from 1 to 365', [{ field: 'days', message: 'an integer from 1 to 365' }]);
  }
  throwProblems([...ruleProblems(input.rules, 'rules'), ...amountProblems(input.rules, campaign.currency)]);
  const now = new Date();
  const since = new Date(now.getTime() - input.days * DAY);

  // every touch of every event the campaign had in the period (touches of other campaigns too: a
  // multi-touch split is rounded over the whole event), and what those events accrued; the two
  // reads are independent, so PostgreSQL answers them side by side
  const [touches, current] = await Promise.all([
    readTouches(sql, campaign.id, since, now),
    sql<{ partner_id: string; amount: bigint }[]>`
      with ev as (select distinct event_id from attributions where campaign_id = ${campaign.id} and occurred_at >= ${since} and occurred_at <= ${now})
      select c.partner_id,
        sum(coalesce((select j.amount_before from commission_adjustments j where j.commission_id = c.id order by j.id limit 1), c.amount))::bigint as amount
      from ev join commissions c on c.event_id = ev.event_id
      where c.campaign_id = ${campaign.id} and c.currency = ${campaign.currency}
      group by c.partner_id`,
  ]);

  const campaignIds = [...new Set([campaign.id, ...touches.map((t) => t.campaign_id)])];
  const partnerIds = [...new Set(touches.map((t) => t.partner_id))];
  const [campaigns, partners] = await Promise.all([loadCampaignTerms(sql, campaignIds), loadPartnerTerms(sql, partnerIds)]);
  const draft: CampaignTerms = { ...campaigns.get(campaign.id)!, rules: input.rules };
  campaigns.set(campaign.id, draft);
  const termsOf = (partnerId: string) => partners.get(partnerId) ?? NO_TERMS;
  const picks = await pickRules(sql, touches, campaigns, termsOf);

  const measures = await tierMeasures(sql, touches, picks, campaigns, since);
  const prior = await priorOccurrences(sql, touches, picks, campaign.id, since, now);
  const counting = prior !== null;

  // each pick's rule read once (percent, amounts, tier thresholds): once per (partner, campaign,
  // event type) when no rule matches on metadata, else once per touch as before
  const compiled = new Map<NonNullable<Pick>, CompiledRule>();
  const compiledOf = (pick: NonNullable<Pick>, currency: string) =>
    compiled.get(pick) ?? compiled.set(pick, compileRule(pick.rule, currency)).get(pick)!;
  const recruiterUnits = draft.recruiterPercent === null ? null : percentUnits(draft.recruiterPercent);

  const previewed = new Map<string, bigint>();
  const credit = (partnerId: string, amount: bigint) => previewed.set(partnerId, (previewed.get(partnerId) ?? 0n) + amount);
  const paying: { k: number; currency: string; share: Fraction }[] = [];
  for (let start = 0; start < touches.length; ) {
    let end = start;
    while (end < touches.length && touches[end]!.event_id === touches[start]!.event_id) end++;
    paying.length = 0;
    for (let k = start; k < end; k++) {
      const t = touches[k]!;
      const pick = picks[k];
      if (!pick) continue;
      const outcome = evaluateCompiled(compiledOf(pick, campaigns.get(t.campaign_id)!.currency), {
        amount: t.amount,
        currency: t.currency,
        occurredAt: t.occurred_ms,
        referralStartedAt: t.started_ms,
        priorOccurrences: counting ? (prior.get(occurrenceKey(t)) ?? 0) : 0,
        measure: measures[k],
      });
      if (!outcome.pays) continue;
      // the touch's weight, unreduced: the rounding below is exact whatever the denominator
      const [wn, wd] = weightOf(t);
      paying.push({ k, currency: outcome.currency, share: wn === wd ? { num: outcome.num, den: outcome.den } : { num: outcome.num * wn, den: outcome.den * wd } });
    }
    // one rounding per currency over the whole event, as accrual does
    for (const currency of new Set(paying.map((p) => p.currency))) {
      const same = paying.filter((p) => p.currency === currency);
      const parts = same.length === 1 ? [roundHalfEven(same[0]!.share.num, same[0]!.share.den)] : apportion(same.map((p) => p.share));
      same.forEach((p, n) => {
        const amount = parts[n]!;
        if (amount === 0n) return;
        const t = touches[p.k]!;
        if (counting) prior.set(occurrenceKey(t), (prior.get(occurrenceKey(t)) ?? 0) + 1);
        if (t.campaign_id !== campaign.id || currency !== campaign.currency) return;
        credit(t.partner_id, amount);
        const recruiter = termsOf(t.partner_id).recruiterId;
        if (recruiterUnits !== null && recruiter !== null) {
          // percentOf(amount, recruiterPercent), with the percent read once
          const override = roundHalfEven(amount * recruiterUnits, PERCENT_DENOMINATOR);
          if (override > 0n) credit(recruiter, override);
        }
      });
    }
    start = end;
  }

  const was = new Map(current.map((c) => [c.partner_id, BigInt(c.amount)]));
  const ids = [...new Set([...was.keys(), ...previewed.keys()])].sort();
  const money = (minor: bigint) => formatMinor(minor, campaign.currency);
  let totalWas = 0n;
  let totalNow = 0n;
  const rows = ids.map((partnerId) => {
    const a = was.get(partnerId) ?? 0n;
    const b = previewed.get(partnerId) ?? 0n;
    totalWas += a;
    totalNow += b;
    return { partnerId, current: money(a), preview: money(b), difference: money(b - a) };
  });
  return { currency: campaign.currency, days: input.days, partners: rows, total: { current: money(totalWas), preview: money(totalNow), difference: money(totalNow - totalWas) } };
}

const PERCENT_DENOMINATOR = 100n * 10n ** BigInt(PERCENT_SCALE);

/**
 * The touches, oldest event first. postgres.js spends far more on 100,000 rows of a dozen text
 * columns than PostgreSQL does on the join, so the rows travel as JSON arrays, 2,000 per row
 * (amounts as text: exact whatever their size).
 */
async function readTouches(sql: Sql, campaignId: string, since: Date, now: Date): Promise<TouchRow[]> {
  const chunks = await sql<{ rows: string }[]>`
    with ev as (select distinct event_id from attributions where campaign_id = ${campaignId} and occurred_at >= ${since} and occurred_at <= ${now}),
    touch as (
      select json_build_array(a.event_id, a.user_id, a.partner_id, a.campaign_id, e.type, e.amount::text, e.currency, t.weight_num, t.weight_den, a.weight,
          floor(extract(epoch from a.occurred_at) * 1000)::float8, floor(extract(epoch from r.started_at) * 1000)::float8) as row,
        row_number() over (order by a.occurred_at, a.event_id, a.id) as n
      from ev
      join attributions a on a.event_id = ev.event_id
      join events e on e.id = a.event_id
      join referrals r on r.user_id = a.user_id
      left join referral_touches t on t.user_id = a.user_id and t.partner_id = a.partner_id and t.campaign_id = a.campaign_id
        and t.click_id is not distinct from a.click_id and t.code_id is not distinct from a.code_id)
    select json_agg(row order by n)::text as rows from touch group by (n - 1) / 2000 order by (n - 1) / 2000`;
  const touches: TouchRow[] = [];
  for (const chunk of chunks) {
    for (const r of JSON.parse(chunk.rows) as [string, string, string, string, string, string | null, string | null, number | null, number | null, number, number, number][]) {
      touches.push({
        event_id: r[0],
        user_id: r[1],
        partner_id: r[2],
        campaign_id: r[3],
        type: r[4],
        amount: r[5] === null ? null : BigInt(r[5]),
        currency: r[6],
        weight_num: r[7],
        weight_den: r[8],
        weight: r[9],
        occurred_ms: r[10],
        started_ms: r[11],
      });
    }
  }
  return touches;
}

const occurrenceKey = (t: TouchRow) => `${t.user_id}|${t.partner_id}|${t.type}`;

/**
 * The rule of each touch by the precedence of terms.ts. Without a `match` in any rule in play the
 * rule depends only on (partner, campaign, event type), so it is picked once per such triple and
 * no metadata is read; otherwise the events' metadata is read and each touch picked on its own.
 */
async function pickRules(
  sql: Sql,
  touches: TouchRow[],
  campaigns: Map<string, CampaignTerms>,
  termsOf: (partnerId: string) => PartnerTerms,
): Promise<Pick[]> {
  const rulesInPlay = (partnerId: string, campaignId: string): readonly Rule[][] => {
    const p = termsOf(partnerId);
    return [p.snapshot?.rules ?? [], p.group?.rules ?? [], campaigns.get(campaignId)!.rules];
  };
  const seen = new Set<string>();
  let needsMetadata = false;
  for (const t of touches) {
    const key = `${t.partner_id}|${t.campaign_id}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (rulesInPlay(t.partner_id, t.campaign_id).some((rules) => rules.some((r) => r.match && Object.keys(r.match).length > 0))) needsMetadata = true;
  }
  if (needsMetadata) {
    const rows = await sql<{ id: string; metadata: Record<string, unknown> | null }[]>`
      select id, metadata from events where id = any(${[...new Set(touches.map((t) => t.event_id))]})`;
    const metadata = new Map(rows.map((r) => [r.id, r.metadata ?? {}]));
    return touches.map((t) => pickRule(termsOf(t.partner_id), campaigns.get(t.campaign_id)!, { type: t.type, metadata: metadata.get(t.event_id) ?? {} }));
  }
  const picked = new Map<string, Pick>();
  return touches.map((t) => {
    const key = `${t.partner_id}|${t.campaign_id}|${t.type}`;
    if (!picked.has(key)) picked.set(key, pickRule(termsOf(t.partner_id), campaigns.get(t.campaign_id)!, { type: t.type, metadata: {} }));
    return picked.get(key)!;
  });
}

/** The exact weight of a touch (its referral touch's fraction), unreduced; the stored float only when that is gone. */
function weightOf(t: TouchRow): [bigint, bigint] {
  if (t.weight_num !== null && t.weight_den !== null) return [BigInt(t.weight_num), BigInt(t.weight_den)];
  return [BigInt(Math.round(t.weight * 1_000_000)), 1_000_000n];
}

/**
 * maxOccurrences: what each (user, partner, event type) had earned before the replay (commissions on
 * events outside it); the replay adds its own as it goes, oldest event first.
 */
async function priorOccurrences(
  sql: Sql,
  touches: TouchRow[],
  picks: Pick[],
  campaignId: string,
  since: Date,
  now: Date,
): Promise<Map<string, number> | null> {
  // no rule counts occurrences: nothing to read, nor to count during the replay
  if (!picks.some((p) => p?.rule.maxOccurrences !== undefined)) return null;
  const prior = new Map<string, number>();
  const users = [...new Set(touches.map((t) => t.user_id))];
  const rows = await sql<{ user_id: string; partner_id: string; event_type: string; n: number }[]>`
    with ev as (select distinct event_id from attributions where campaign_id = ${campaignId} and occurred_at >= ${since} and occurred_at <= ${now})
    select c.user_id, c.partner_id, c.event_type, count(*)::int as n from commissions c
    where c.user_id = any(${users}) and c.source_commission_id is null and not exists (select 1 from ev where ev.event_id = c.event_id)
    group by 1, 2, 3`;
  for (const r of rows) prior.set(`${r.user_id}|${r.partner_id}|${r.event_type}`, r.n);
  return prior;
}

/**
 * Tier measures for the touches whose rule has tiers (undefined for the others), from one
 * set-based read of every revenue event and new customer their partners had since the earliest
 * window start, and binary searches in per-(partner, campaign) timelines.
 */
async function tierMeasures(
  sql: Sql,
  touches: TouchRow[],
  picks: Pick[],
  campaigns: Map<string, CampaignTerms>,
  since: Date,
): Promise<(TierMeasure | undefined)[]> {
  const tiered = touches.flatMap((_, i) => (picks[i]?.rule.tiers?.length ? [i] : []));
  const measures: (TierMeasure | undefined)[] = new Array(touches.length).fill(undefined);
  if (tiered.length === 0) return measures;
  const longest = Math.max(...tiered.map((i) => picks[i]!.rule.periodDays ?? DEFAULT_PERIOD_DAYS));
  const from = new Date(since.getTime() - longest * DAY);
  const partnerIds = [...new Set(tiered.map((i) => touches[i]!.partner_id))];
  const campaignIds = [...new Set(tiered.map((i) => touches[i]!.campaign_id))];
  // revenue: each attributed event once per (partner, campaign), unless the partner's commission on
  // it was reversed; customers: each referred user once, at its referral's start (amount null)
  // one row per (partner, campaign, measure) with its times and amounts in time order
  const rows = await sql<{ partner_id: string; campaign_id: string; customer: boolean; currency: string | null; points: string }[]>`
    select partner_id, campaign_id, customer, currency, json_agg(json_build_array(floor(extract(epoch from at) * 1000)::float8, amount::text) order by at)::text as points
    from (
      select distinct on (a.partner_id, a.campaign_id, a.event_id) a.partner_id, a.campaign_id, a.occurred_at as at, e.amount, e.currency, false as customer
      from attributions a join events e on e.id = a.event_id
      where a.partner_id = any(${partnerIds}) and a.campaign_id = any(${campaignIds}) and a.occurred_at >= ${from}
        and not exists (select 1 from commissions c where c.attribution_id = a.id and c.source_commission_id is null and c.status = 'reversed')
      union all
      select partner_id, campaign_id, started_at, null::bigint, null::text, true from (
        select distinct t.partner_id, t.campaign_id, t.user_id, r.started_at
        from referral_touches t join referrals r on r.user_id = t.user_id
        where t.partner_id = any(${partnerIds}) and t.campaign_id = any(${campaignIds}) and r.started_at >= ${from}
      ) u
    ) m
    where customer or (amount is not null and currency is not null)
    group by partner_id, campaign_id, customer, currency`;
  const revenue = new Map<string, Timeline>();
  const customers = new Map<string, Timeline>();
  for (const r of rows) {
    // revenue counts in the campaign currency only
    if (!r.customer && r.currency !== campaigns.get(r.campaign_id)?.currency) continue;
    const line = new Timeline();
    for (const [at, amount] of JSON.parse(r.points) as [number, string | null][]) line.add(at, r.customer ? 1n : BigInt(amount!));
    (r.customer ? customers : revenue).set(`${r.partner_id}|${r.campaign_id}`, line);
  }
  for (const i of tiered) {
    const t = touches[i]!;
    const key = `${t.partner_id}|${t.campaign_id}`;
    // the window of periodOf: [occurred - periodDays, occurred)
    const start = t.occurred_ms - (picks[i]!.rule.periodDays ?? DEFAULT_PERIOD_DAYS) * DAY;
    measures[i] = {
      revenue: revenue.get(key)?.between(start, t.occurred_ms) ?? 0n,
      customers: Number(customers.get(key)?.between(start, t.occurred_ms) ?? 0n),
    };
  }
  return measures;
}
