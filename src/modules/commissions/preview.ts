// The rule preview (DESIGN.md "Rewards beyond one rule list"): the campaign's events of the last N
// days replayed under draft rules, next to what they earned. Set-based reads, arithmetic in memory,
// nothing written.
import type { Sql } from '../../db';
import { AppError, notFound } from '../../lib/errors';
import { apportion, formatMinor, fraction, multiply, percentOf, type Fraction } from '../../lib/money';
import { DAY } from '../../lib/time';
import { ruleProblems, type Rule } from '../campaigns/rules';
import { amountProblems, findCampaign, throwProblems } from '../campaigns/service';
import { evaluateRule, type TierMeasure } from './engine';
import { loadCampaignTerms, loadPartnerTerms, NO_TERMS, periodOf, pickRule, type CampaignTerms } from './terms';

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
  occurred_at: Date;
  type: string;
  amount: bigint | null;
  currency: string | null;
  metadata: Record<string, unknown> | null;
  weight_num: number | null;
  weight_den: number | null;
  weight: number;
  started_at: Date;
};

/** Sorted times with a running sum: how much fell in [from, to) in two binary searches. */
class Timeline {
  private times: number[] = [];
  private sums: bigint[] = [0n];
  add(time: number, value: bigint) {
    this.times.push(time);
    this.sums.push(this.sums[this.sums.length - 1]! + value);
  }
  sort() {
    const order = this.times.map((t, i) => ({ t, v: this.sums[i + 1]! - this.sums[i]! })).sort((a, b) => a.t - b.t);
    this.times = [];
    this.sums = [0n];
    for (const o of order) this.add(o.t, o.v);
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
  // multi-touch split is rounded over the whole event)
  const touches = await sql<TouchRow[]>`
    with ev as (select distinct event_id from attributions where campaign_id = ${campaign.id} and occurred_at >= ${since} and occurred_at <= ${now})
    select a.event_id, a.user_id, a.partner_id, a.campaign_id, a.occurred_at, e.type, e.amount, e.currency, e.metadata,
      t.weight_num, t.weight_den, a.weight, r.started_at
    from ev
    join attributions a on a.event_id = ev.event_id
    join events e on e.id = a.event_id
    join referrals r on r.user_id = a.user_id
    left join referral_touches t on t.user_id = a.user_id and t.partner_id = a.partner_id and t.campaign_id = a.campaign_id
      and t.click_id is not distinct from a.click_id and t.code_id is not distinct from a.code_id
    order by a.occurred_at, a.event_id, a.id`;
  const current = await sql<{ partner_id: string; amount: bigint }[]>`
    with ev as (select distinct event_id from attributions where campaign_id = ${campaign.id} and occurred_at >= ${since} and occurred_at <= ${now})
    select c.partner_id,
      sum(coalesce((select j.amount_before from commission_adjustments j where j.commission_id = c.id order by j.id limit 1), c.amount))::bigint as amount
    from ev join commissions c on c.event_id = ev.event_id
    where c.campaign_id = ${campaign.id} and c.currency = ${campaign.currency}
    group by c.partner_id`;

  const campaignIds = [...new Set([campaign.id, ...touches.map((t) => t.campaign_id)])];
  const partnerIds = [...new Set(touches.map((t) => t.partner_id))];
  const [campaigns, partners] = await Promise.all([loadCampaignTerms(sql, campaignIds), loadPartnerTerms(sql, partnerIds)]);
  const draft: CampaignTerms = { ...campaigns.get(campaign.id)!, rules: input.rules };
  campaigns.set(campaign.id, draft);
  const termsOf = (partnerId: string) => partners.get(partnerId) ?? NO_TERMS;
  const picks = touches.map((t) => pickRule(termsOf(t.partner_id), campaigns.get(t.campaign_id)!, { type: t.type, metadata: t.metadata ?? {} }));

  const measureAt = await tierMeasures(sql, touches, picks, campaigns, since);
  const prior = await priorOccurrences(sql, touches, picks, campaign.id, since, now);

  const previewed = new Map<string, bigint>();
  const credit = (partnerId: string, amount: bigint) => previewed.set(partnerId, (previewed.get(partnerId) ?? 0n) + amount);
  for (let start = 0; start < touches.length; ) {
    let end = start;
    while (end < touches.length && touches[end]!.event_id === touches[start]!.event_id) end++;
    const outcomes: ({ currency: string; share: Fraction; key: string } | null)[] = [];
    for (let i = start; i < end; i++) {
      const t = touches[i]!;
      const pick = picks[i];
      if (!pick) {
        outcomes.push(null);
        continue;
      }
      const key = `${t.user_id}|${t.partner_id}|${t.type}`;
      const outcome = evaluateRule({
        rule: pick.rule,
        event: { type: t.type, amount: t.amount, currency: t.currency, occurredAt: t.occurred_at, metadata: t.metadata ?? {} },
        campaignCurrency: campaigns.get(t.campaign_id)!.currency,
        priorOccurrences: prior.get(key) ?? 0,
        referralStartedAt: t.started_at,
        measure: measureAt(i),
      });
      outcomes.push(outcome.pays ? { currency: outcome.currency, share: multiply(outcome.share, weightOf(t)), key } : null);
    }
    for (const currency of new Set(outcomes.flatMap((o) => (o ? [o.currency] : [])))) {
      const idx = outcomes.flatMap((o, k) => (o?.currency === currency ? [k] : []));
      const parts = apportion(idx.map((k) => outcomes[k]!.share));
      idx.forEach((k, n) => {
        const amount = parts[n]!;
        if (amount === 0n) return;
        const t = touches[start + k]!;
        prior.set(outcomes[k]!.key, (prior.get(outcomes[k]!.key) ?? 0) + 1);
        if (t.campaign_id !== campaign.id || currency !== campaign.currency) return;
        credit(t.partner_id, amount);
        const recruiter = termsOf(t.partner_id).recruiterId;
        if (draft.recruiterPercent !== null && recruiter !== null) {
          const override = percentOf(amount, draft.recruiterPercent);
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

/** The exact weight of a touch (its referral touch's fraction); the stored float only when that is gone. */
function weightOf(t: TouchRow): Fraction {
  if (t.weight_num !== null && t.weight_den !== null) return fraction(t.weight_num, t.weight_den);
  return fraction(Math.round(t.weight * 1_000_000), 1_000_000);
}

/**
 * maxOccurrences: what each (user, partner, event type) had earned before the replay (commissions on
 * events outside it); the replay adds its own as it goes, oldest event first.
 */
async function priorOccurrences(
  sql: Sql,
  touches: TouchRow[],
  picks: (ReturnType<typeof pickRule>)[],
  campaignId: string,
  since: Date,
  now: Date,
): Promise<Map<string, number>> {
  const prior = new Map<string, number>();
  if (!picks.some((p) => p?.rule.maxOccurrences !== undefined)) return prior;
  const users = [...new Set(touches.map((t) => t.user_id))];
  const rows = await sql<{ user_id: string; partner_id: string; event_type: string; n: number }[]>`
    with ev as (select distinct event_id from attributions where campaign_id = ${campaignId} and occurred_at >= ${since} and occurred_at <= ${now})
    select c.user_id, c.partner_id, c.event_type, count(*)::int as n from commissions c
    where c.user_id = any(${users}) and c.source_commission_id is null and not exists (select 1 from ev where ev.event_id = c.event_id)
    group by 1, 2, 3`;
  for (const r of rows) prior.set(`${r.user_id}|${r.partner_id}|${r.event_type}`, r.n);
  return prior;
}

/** Tier measures for the touches whose rule has tiers, from two set-based reads and binary searches. */
async function tierMeasures(
  sql: Sql,
  touches: TouchRow[],
  picks: (ReturnType<typeof pickRule>)[],
  campaigns: Map<string, CampaignTerms>,
  since: Date,
): Promise<(i: number) => TierMeasure | undefined> {
  const tiered = touches.flatMap((_, i) => (picks[i]?.rule.tiers?.length ? [i] : []));
  if (tiered.length === 0) return () => undefined;
  const longest = Math.max(...tiered.map((i) => picks[i]!.rule.periodDays ?? 30));
  const from = new Date(since.getTime() - longest * DAY);
  const partnerIds = [...new Set(tiered.map((i) => touches[i]!.partner_id))];
  const campaignIds = [...new Set(tiered.map((i) => touches[i]!.campaign_id))];
  const [revenueRows, customerRows] = await Promise.all([
    sql<{ partner_id: string; campaign_id: string; occurred_at: Date; amount: bigint | null; currency: string | null }[]>`
      select distinct on (a.partner_id, a.campaign_id, a.event_id) a.partner_id, a.campaign_id, a.occurred_at, e.amount, e.currency
      from attributions a join events e on e.id = a.event_id
      where a.partner_id = any(${partnerIds}) and a.campaign_id = any(${campaignIds}) and a.occurred_at >= ${from}
        and not exists (select 1 from commissions c where c.attribution_id = a.id and c.source_commission_id is null and c.status = 'reversed')`,
    sql<{ partner_id: string; campaign_id: string; started_at: Date }[]>`
      select distinct t.partner_id, t.campaign_id, t.user_id, r.started_at
      from referral_touches t join referrals r on r.user_id = t.user_id
      where t.partner_id = any(${partnerIds}) and t.campaign_id = any(${campaignIds}) and r.started_at >= ${from}`,
  ]);
  const revenue = new Map<string, Timeline>();
  const customers = new Map<string, Timeline>();
  const line = (map: Map<string, Timeline>, key: string) => map.get(key) ?? map.set(key, new Timeline()).get(key)!;
  for (const r of revenueRows) {
    const currency = campaigns.get(r.campaign_id)?.currency;
    if (r.amount !== null && r.currency === currency) line(revenue, `${r.partner_id}|${r.campaign_id}`).add(r.occurred_at.getTime(), BigInt(r.amount));
  }
  for (const r of customerRows) line(customers, `${r.partner_id}|${r.campaign_id}`).add(r.started_at.getTime(), 1n);
  for (const l of [...revenue.values(), ...customers.values()]) l.sort();
  const wanted = new Set(tiered);
  return (i) => {
    if (!wanted.has(i)) return undefined;
    const t = touches[i]!;
    const key = `${t.partner_id}|${t.campaign_id}`;
    const w = periodOf(picks[i]!.rule.periodDays, t.occurred_at);
    return {
      revenue: revenue.get(key)?.between(w.from.getTime(), w.to.getTime()) ?? 0n,
      customers: Number(customers.get(key)?.between(w.from.getTime(), w.to.getTime()) ?? 0n),
    };
  };
}
