// Which rules pay a partner in a campaign (DESIGN.md "Rewards beyond one rule list"): the partner's
// commission snapshot, then its group's rules for that campaign, its group's rules for every
// campaign, then the campaign's rules; the first level with a rule matching the event wins. Also
// the trailing-period measure tiers read, in one query for every touch of an event.
import type { Tx } from '../../db';
import { DAY } from '../../lib/time';
import { DEFAULT_PERIOD_DAYS, type CommissionSnapshot, type GroupRule, type Rule } from '../campaigns/rules';
import { findRule, type EngineEvent, type TierMeasure } from './engine';

export const RULE_SOURCES = ['snapshot', 'group', 'campaign'] as const;
export type RuleSource = (typeof RULE_SOURCES)[number];

export type CampaignTerms = { id: string; currency: string; holdbackDays: number | null; rules: Rule[]; recruiterPercent: string | null };
export type GroupTerms = { rules: GroupRule[]; holdbackDays: number | null };
/** What one partner's rules depend on besides the campaign. */
export type PartnerTerms = {
  snapshot: CommissionSnapshot | null;
  group: GroupTerms | null;
  /** The recruiter when it may earn overrides (set and not revoked); else null. */
  recruiterId: string | null;
};

export const NO_TERMS: PartnerTerms = { snapshot: null, group: null, recruiterId: null };

/** The rule that applies to the event and the level it came from; null when no level has a matching rule. */
export function pickRule(
  partner: PartnerTerms,
  campaign: Pick<CampaignTerms, 'id' | 'rules'>,
  event: Pick<EngineEvent, 'type' | 'metadata'>,
): { rule: Rule; source: RuleSource } | null {
  const fromSnapshot = partner.snapshot ? findRule(partner.snapshot.rules, event) : null;
  if (fromSnapshot) return { rule: fromSnapshot, source: 'snapshot' };
  if (partner.group) {
    const rules = partner.group.rules;
    const fromGroup =
      findRule(rules.filter((r) => r.campaignId === campaign.id), event) ?? findRule(rules.filter((r) => r.campaignId === undefined), event);
    if (fromGroup) {
      const { campaignId: _scope, ...rule } = fromGroup;
      return { rule, source: 'group' };
    }
  }
  const fromCampaign = findRule(campaign.rules, event);
  return fromCampaign ? { rule: fromCampaign, source: 'campaign' } : null;
}

/** The holdback of a commission: snapshot, group, campaign, then HOLDBACK_DAYS. */
export function holdbackOf(partner: PartnerTerms, campaign: Pick<CampaignTerms, 'holdbackDays'>, defaultDays: number): number {
  return partner.snapshot?.holdbackDays ?? partner.group?.holdbackDays ?? campaign.holdbackDays ?? defaultDays;
}

/** Campaign rows by id. */
export async function loadCampaignTerms(sql: Tx, campaignIds: string[]): Promise<Map<string, CampaignTerms>> {
  const rows = await sql<{ id: string; currency: string; holdback_days: number | null; rules: Rule[] | null; recruiter_percent: string | null }[]>`
    select id, currency, holdback_days, rules, recruiter_percent from campaigns where id = any(${campaignIds})`;
  return new Map(rows.map((c) => [c.id, { id: c.id, currency: c.currency, holdbackDays: c.holdback_days, rules: c.rules ?? [], recruiterPercent: c.recruiter_percent }]));
}

/** Each partner's snapshot, group and recruiter, in one round trip. */
export async function loadPartnerTerms(sql: Tx, partnerIds: string[]): Promise<Map<string, PartnerTerms>> {
  const rows = await sql<
    { id: string; snapshot: CommissionSnapshot | null; group_rules: GroupRule[] | null; group_holdback: number | null; has_group: boolean; recruiter_id: string | null }[]
  >`
    select p.id, s.snapshot, g.rules as group_rules, g.holdback_days as group_holdback, g.id is not null as has_group,
      case when r.revoked_at is null then r.id end as recruiter_id
    from partners p
    left join partner_commission_snapshots s on s.partner_id = p.id
    left join partner_groups g on g.id = p.group_id
    left join partners r on r.id = p.referred_by
    where p.id = any(${partnerIds})`;
  return new Map(
    rows.map((r) => [
      r.id,
      {
        snapshot: r.snapshot,
        group: r.has_group ? { rules: r.group_rules ?? [], holdbackDays: r.group_holdback } : null,
        recruiterId: r.recruiter_id,
      },
    ]),
  );
}

export type MeasureRequest = { partnerId: string; campaignId: string; currency: string; periodDays?: number; at: Date };

/** The trailing window of a tiered rule: [at - periodDays, at). */
export function periodOf(periodDays: number | undefined, at: Date): { from: Date; to: Date } {
  return { from: new Date(at.getTime() - (periodDays ?? DEFAULT_PERIOD_DAYS) * DAY), to: at };
}

/**
 * The tier measures of several (partner, campaign, period) at once, in one query:
 * - revenue: the full amount of each event attributed to the partner in the campaign, in the
 *   campaign currency, that occurred in the window; an event counts once however many touches the
 *   partner had on it, and not at all once the partner's commission on it was reversed;
 * - customers: users whose referral started in the window with a touch of the partner in the campaign.
 * The window ends before the event being accrued, so it never counts itself.
 */
export async function measureTiers(sql: Tx, requests: MeasureRequest[]): Promise<TierMeasure[]> {
  if (requests.length === 0) return [];
  const windows = requests.map((r) => periodOf(r.periodDays, r.at));
  const rows = await sql<{ i: string; revenue: string; customers: number }[]>`
    select q.i,
      (select coalesce(sum(e.amount), 0)
         from (select distinct a.event_id from attributions a
               where a.partner_id = q.partner_id and a.campaign_id = q.campaign_id
                 and a.occurred_at >= q.from_at and a.occurred_at < q.to_at
                 and not exists (select 1 from commissions c where c.attribution_id = a.id and c.source_commission_id is null and c.status = 'reversed')) d
         join events e on e.id = d.event_id
         where e.currency = q.currency)::text as revenue,
      (select count(distinct t.user_id)::int
         from referral_touches t join referrals r on r.user_id = t.user_id
         where t.partner_id = q.partner_id and t.campaign_id = q.campaign_id
           and r.started_at >= q.from_at and r.started_at < q.to_at) as customers
    from unnest(${requests.map((r) => r.partnerId)}::text[], ${requests.map((r) => r.campaignId)}::text[],
                ${requests.map((r) => r.currency)}::text[], ${windows.map((w) => w.from.toISOString())}::timestamptz[],
                ${windows.map((w) => w.to.toISOString())}::timestamptz[])
      with ordinality as q(partner_id, campaign_id, currency, from_at, to_at, i)`;
  const byIndex = new Map(rows.map((r) => [Number(r.i), { revenue: BigInt(r.revenue), customers: r.customers }]));
  return requests.map((_, k) => byIndex.get(k + 1) ?? { revenue: 0n, customers: 0 });
}
