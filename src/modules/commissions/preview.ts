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
  /** the partner's commission on this attribution was reversed (its event leaves the tier revenue) */
  reversed: boolean;
};

type Pick = ReturnType<typeof pickRule>;

/** The first index of `times` (ascending) not before `time`. */
function lowerBound(times: number[], time: number): number {
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (times[mid]! < time) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Times (added in order) with a running sum: how much fell in [from, to) in two binary searches. */
class Timeline {
  private times: number[] = [];
  private sums: bigint[] = [0n];
  add(time: number, value: bigint) {
    this.times.push(time);
    this.sums.push(this.sums[this.sums.length - 1]! + value);
  }
  between(from: number, to: number): bigint {
    return this.sums[lowerBound(this.times, to)]! - this.sums[lowerBound(this.times, from)]!;
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
    // each commission at its accrued amount: the amount before its first adjustment, if any (the
    // adjustments joined once, not looked up per commission)
    sql<{ partner_id: string; amount: bigint }[]>`
      select c.partner_id, sum(coalesce(j.amount_before, c.amount))::bigint as amount
      from commissions c
      left join (select distinct on (commission_id) commission_id, amount_before from commission_adjustments order by commission_id, id) j
        on j.commission_id = c.id
      where c.campaign_id = ${campaign.id} and c.currency = ${campaign.currency}
        and c.event_id in (select event_id from attributions where campaign_id = ${campaign.id} and occurred_at >= ${since} and occurred_at <= ${now})
      group by c.partner_id`,
  ]);

  const campaignIds = [...new Set([campaign.id, ...touches.map((t) => t.campaign_id)])];
  const partnerIds = [...new Set(touches.map((t) => t.partner_id))];
  const [campaigns, partners] = await Promise.all([loadCampaignTerms(sql, campaignIds), loadPartnerTerms(sql, partnerIds)]);
  const draft: CampaignTerms = { ...campaigns.get(campaign.id)!, rules: input.rules };
  campaigns.set(campaign.id, draft);
  const termsOf = (partnerId: string) => partners.get(partnerId) ?? NO_TERMS;
  const picks = await pickRules(sql, touches, campaigns, termsOf);

  const measures = await tierMeasures(sql, { touches, picks, campaigns, campaignId: campaign.id, since });
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
  const settle = (p: (typeof paying)[number], amount: bigint) => {
    if (amount === 0n) return;
    const t = touches[p.k]!;
    if (counting) prior.set(occurrenceKey(t), (prior.get(occurrenceKey(t)) ?? 0) + 1);
    if (t.campaign_id !== campaign.id || p.currency !== campaign.currency) return;
    credit(t.partner_id, amount);
    const recruiter = termsOf(t.partner_id).recruiterId;
    if (recruiterUnits !== null && recruiter !== null) {
      // percentOf(amount, recruiterPercent), with the percent read once
      const override = roundHalfEven(amount * recruiterUnits, PERCENT_DENOMINATOR);
      if (override > 0n) credit(recruiter, override);
    }
  };
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
    // one rounding per currency over the whole event, as accrual does (one payer: its share rounded)
    if (paying.length === 1) settle(paying[0]!, roundHalfEven(paying[0]!.share.num, paying[0]!.share.den));
    else {
      for (const currency of new Set(paying.map((p) => p.currency))) {
        const same = paying.filter((p) => p.currency === currency);
        const parts = same.length === 1 ? [roundHalfEven(same[0]!.share.num, same[0]!.share.den)] : apportion(same.map((p) => p.share));
        same.forEach((p, n) => settle(p, parts[n]!));
      }
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

type TouchValues = [string, string, string, string, string, bigint | null, string | null, number | null, number | null, number, number, number, boolean];

/**
 * The touches, oldest event first, as flat rows (arrays, not objects: 100,000 of them). The event
 * set is a semi-join on the campaign's attributions in the period; an attribution whose direct
 * commission was reversed is marked, for the tier revenue.
 */
async function readTouches(sql: Sql, campaignId: string, since: Date, now: Date): Promise<TouchRow[]> {
  const rows = (await sql`
    select a.event_id, a.user_id, a.partner_id, a.campaign_id, e.type, e.amount, e.currency, t.weight_num, t.weight_den, a.weight,
      floor(extract(epoch from a.occurred_at) * 1000)::float8, floor(extract(epoch from r.started_at) * 1000)::float8, x.id is not null
    from attributions a
    join events e on e.id = a.event_id
    join referrals r on r.user_id = a.user_id
    left join referral_touches t on t.user_id = a.user_id and t.partner_id = a.partner_id and t.campaign_id = a.campaign_id
      and t.click_id is not distinct from a.click_id and t.code_id is not distinct from a.code_id
    left join commissions x on x.attribution_id = a.id and x.source_commission_id is null and x.status = 'reversed'
    where a.event_id in (select event_id from attributions where campaign_id = ${campaignId} and occurred_at >= ${since} and occurred_at <= ${now})
    order by a.occurred_at, a.event_id, a.id`.values()) as unknown as TouchValues[];
  return rows.map((r) => ({
    event_id: r[0],
    user_id: r[1],
    partner_id: r[2],
    campaign_id: r[3],
    type: r[4],
    amount: r[5],
    currency: r[6],
    weight_num: r[7],
    weight_den: r[8],
    weight: r[9],
    occurred_ms: r[10],
    started_ms: r[11],
    reversed: r[12],
  }));
}

const UNIT_SEPARATOR = '\x1f';

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

const WHOLE: [bigint, bigint] = [1n, 1n];

/** The exact weight of a touch (its referral touch's fraction), unreduced; the stored float only when that is gone. */
function weightOf(t: TouchRow): [bigint, bigint] {
  if (t.weight_num !== null && t.weight_den !== null) return t.weight_num === t.weight_den ? WHOLE : [BigInt(t.weight_num), BigInt(t.weight_den)];
  const millionths = Math.round(t.weight * 1_000_000);
  return millionths === 1_000_000 ? WHOLE : [BigInt(millionths), 1_000_000n];
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
    select c.user_id, c.partner_id, c.event_type, count(*)::int as n from commissions c
    where c.user_id = any(${users}) and c.source_commission_id is null
      and not exists (select 1 from attributions a where a.event_id = c.event_id and a.campaign_id = ${campaignId} and a.occurred_at >= ${since} and a.occurred_at <= ${now})
    group by 1, 2, 3`;
  for (const r of rows) prior.set(`${r.user_id}|${r.partner_id}|${r.event_type}`, r.n);
  return prior;
}

/**
 * Tier measures for the touches whose rule has tiers (undefined for the others), by binary searches
 * in per-(partner, campaign) timelines of revenue and new customers since the earliest window start.
 * Revenue counts each attributed event once per (partner, campaign), unless the partner's commission
 * on it was reversed, and only in the campaign currency; this campaign's revenue in the period is
 * taken from the touches already read, and one read adds what lies before the period (and other
 * campaigns' revenue); customers count each referred user once, at its referral's start.
 */
async function tierMeasures(
  sql: Sql,
  input: { touches: TouchRow[]; picks: Pick[]; campaigns: Map<string, CampaignTerms>; campaignId: string; since: Date },
): Promise<(TierMeasure | undefined)[]> {
  const { touches, picks, campaigns, campaignId, since } = input;
  const tiered = touches.flatMap((_, i) => (picks[i]?.rule.tiers?.length ? [i] : []));
  const measures: (TierMeasure | undefined)[] = new Array(touches.length).fill(undefined);
  if (tiered.length === 0) return measures;
  const longest = Math.max(...tiered.map((i) => picks[i]!.rule.periodDays ?? DEFAULT_PERIOD_DAYS));
  const from = new Date(since.getTime() - longest * DAY);
  const keyOf = (t: { partner_id: string; campaign_id: string }) => `${t.partner_id}|${t.campaign_id}`;
  const keys = new Set(tiered.map((i) => keyOf(touches[i]!)));
  const partnerIds = [...new Set(tiered.map((i) => touches[i]!.partner_id))];
  const campaignIds = [...new Set(tiered.map((i) => touches[i]!.campaign_id))];
  // one row per (partner, campaign) timeline, its points in one text (postgres.js spends far more
  // per field than PostgreSQL per point): revenue before the period, and all of other campaigns',
  // as "<ms> <amount> <event id>" per attribution, in time order; customers as "<ms> <user id as
  // JSON>" per referral touch (JSON: a user id may hold any character but a control one)
  const [earlier, started] = (await Promise.all([
    sql`
      select a.partner_id, a.campaign_id, e.currency,
        string_agg(floor(extract(epoch from a.occurred_at) * 1000)::text || ' ' || e.amount || ' ' || a.event_id, ',' order by a.occurred_at)
      from attributions a join events e on e.id = a.event_id
      where a.partner_id = any(${partnerIds}) and a.campaign_id = any(${campaignIds}) and a.occurred_at >= ${from}
        and (a.campaign_id <> ${campaignId} or a.occurred_at < ${since}) and e.amount is not null
        and not exists (select 1 from commissions c where c.attribution_id = a.id and c.source_commission_id is null and c.status = 'reversed')
      group by 1, 2, 3`.values(),
    sql`
      select t.partner_id, t.campaign_id, string_agg(floor(extract(epoch from r.started_at) * 1000)::text || ' ' || to_json(t.user_id)::text, ${UNIT_SEPARATOR})
      from referral_touches t join referrals r on r.user_id = t.user_id
      where t.partner_id = any(${partnerIds}) and t.campaign_id = any(${campaignIds}) and r.started_at >= ${from}
      group by 1, 2`.values(),
  ])) as unknown as [[string, string, string, string][], [string, string, string][]];

  const revenue = new Map<string, Timeline>();
  // customers: each (partner, campaign)'s referral starts in time order, counted by two binary searches
  const customers = new Map<string, number[]>();
  for (const [partner, campaign, currency, points] of earlier) {
    // revenue counts in the campaign currency only
    if (currency !== campaigns.get(campaign)?.currency) continue;
    const line = new Timeline();
    const seen = new Set<string>();
    for (const point of points.split(',')) {
      const [at, amount, eventId] = point.split(' ') as [string, string, string];
      if (seen.has(eventId)) continue;
      seen.add(eventId);
      line.add(Number(at), BigInt(amount));
    }
    revenue.set(`${partner}|${campaign}`, line);
  }
  // then this campaign's period from the touches, in time order after what came before it; an
  // event's touches are adjacent, so a partner's second touch on it is found among them
  for (let start = 0; start < touches.length; ) {
    let end = start;
    while (end < touches.length && touches[end]!.event_id === touches[start]!.event_id) end++;
    for (let k = start; k < end; k++) {
      const t = touches[k]!;
      if (t.reversed || t.campaign_id !== campaignId || t.amount === null || t.currency !== campaigns.get(campaignId)!.currency) continue;
      const key = keyOf(t);
      if (!keys.has(key)) continue;
      let first = true;
      for (let j = start; j < k && first; j++) {
        const u = touches[j]!;
        if (!u.reversed && u.partner_id === t.partner_id && u.campaign_id === t.campaign_id) first = false;
      }
      if (first) (revenue.get(key) ?? revenue.set(key, new Timeline()).get(key)!).add(t.occurred_ms, t.amount);
    }
    start = end;
  }
  for (const [partner, campaign, points] of started) {
    // each user once (several touches of the partner in one referral), in time order
    const times = new Map<string, number>();
    for (const point of points.split(UNIT_SEPARATOR)) {
      const space = point.indexOf(' ');
      times.set(point.slice(space + 1), Number(point.slice(0, space)));
    }
    customers.set(`${partner}|${campaign}`, [...times.values()].sort((x, y) => x - y));
  }

  for (const i of tiered) {
    const t = touches[i]!;
    const key = keyOf(t);
    // the window of periodOf: [occurred - periodDays, occurred)
    const start = t.occurred_ms - (picks[i]!.rule.periodDays ?? DEFAULT_PERIOD_DAYS) * DAY;
    const starts = customers.get(key);
    measures[i] = {
      revenue: revenue.get(key)?.between(start, t.occurred_ms) ?? 0n,
      customers: starts ? lowerBound(starts, t.occurred_ms) - lowerBound(starts, start) : 0,
    };
  }
  return measures;
}
