// The partner portal's numbers (issue 12): one partner's balance per currency, period totals for the
// KPI cards, earnings per day, per-link stats, and numbered pages of its commissions and payouts.
// Every function takes the partner id from the caller (the session); no query reads another's rows.
import type { Sql } from '../../db';
import { minorToNumber } from '../../lib/money';
import { COMMISSION_COLUMNS, toCommission, type Commission, type CommissionRow } from '../commissions/service';
import { PAYOUT_COLUMNS, payoutView, type PayoutRow, type PayoutView } from '../payouts/service';
import { earnedCommission, filteredClick, firstSale } from './figures';
import { partnerCounts, type PartnerFigures } from './partner';

/** Money of one currency by where it stands, in minor units. */
export type PartnerBalance = {
  currency: string;
  /** accrued: in the holdback ("Pending" on the pages) */
  pending: bigint;
  approved: bigint;
  paid: bigint;
  reversed: bigint;
  /** open clawbacks (paid commissions reversed later), netted in the next payout */
  clawbacks: bigint;
};

/** Sums per currency and status, plus open clawbacks: two queries, one per table. */
export async function partnerBalances(sql: Sql, partnerId: string): Promise<PartnerBalance[]> {
  const [sums, claws] = await Promise.all([
    sql<{ currency: string; status: string; amount: bigint }[]>`
      select currency, status, sum(amount)::bigint as amount
      from commissions where partner_id = ${partnerId}
      group by currency, status`,
    sql<{ currency: string; amount: bigint }[]>`
      select currency, sum(amount)::bigint as amount
      from clawbacks where partner_id = ${partnerId} and status = 'open'
      group by currency`,
  ]);
  const by = new Map<string, PartnerBalance>();
  const of = (currency: string) => {
    let b = by.get(currency);
    if (!b) by.set(currency, (b = { currency, pending: 0n, approved: 0n, paid: 0n, reversed: 0n, clawbacks: 0n }));
    return b;
  };
  for (const s of sums) {
    const b = of(s.currency);
    if (s.status === 'accrued') b.pending = s.amount;
    else if (s.status === 'approved') b.approved = s.amount;
    else if (s.status === 'paid') b.paid = s.amount;
    else if (s.status === 'reversed') b.reversed = s.amount;
  }
  for (const c of claws) of(c.currency).clawbacks = c.amount;
  return [...by.values()].sort((a, b) => (a.currency < b.currency ? -1 : 1));
}

export type PeriodTotals = PartnerFigures & {
  /** commissions earned (not reversed) on the period's sales, in the main currency (minor units) */
  earnings: bigint;
  commissions: number;
};

/**
 * Totals of `[start, end)` and of the period before it (`previous`), for the KPI cards: the same
 * figures as the admin partner page (partnerCounts), and the commissions earned on the period's
 * sales in `currency`, reversed ones left out, each counted on the day its sale happened.
 */
export async function partnerPeriodTotals(
  sql: Sql,
  input: { partnerId: string; currency: string; start: Date; end: Date; previous: { start: Date; end: Date } | null },
): Promise<{ current: PeriodTotals; previous: PeriodTotals | null }> {
  const from = input.previous?.start ?? input.start;
  const inCur = sql`x.occurred_at >= ${input.start} and x.occurred_at < ${input.end}`;
  const inPrev = input.previous ? sql`x.occurred_at >= ${input.previous.start} and x.occurred_at < ${input.previous.end}` : sql`false`;
  const [counts, [money]] = await Promise.all([
    partnerCounts(sql, { partnerId: input.partnerId, span: { start: input.start, end: input.end }, previous: input.previous }),
    sql<{ cur: bigint; prev: bigint; n_cur: number; n_prev: number }[]>`
      select coalesce(sum(x.amount) filter (where ${inCur} and x.currency = ${input.currency}), 0)::bigint as cur,
        coalesce(sum(x.amount) filter (where ${inPrev} and x.currency = ${input.currency}), 0)::bigint as prev,
        count(*) filter (where ${inCur})::int as n_cur,
        count(*) filter (where ${inPrev})::int as n_prev
      from commissions x
      where x.partner_id = ${input.partnerId} and ${earnedCommission(sql, 'x')} and x.occurred_at >= ${from} and x.occurred_at < ${input.end}`,
  ]);
  const { previous: before, ...now } = counts;
  const current = { ...now, earnings: money!.cur, commissions: money!.n_cur };
  const previous = before ? { ...before, earnings: money!.prev, commissions: money!.n_prev } : null;
  return { current, previous };
}

export type DailyEarning = { day: string; amount: number };

/**
 * Commission amounts (not reversed) per UTC day of their sale in `[start, end)` in one currency,
 * empty days as 0, in major units as numbers: for drawing only. `start` null (all time): from the
 * first sale a commission was earned on.
 */
export async function partnerDailyEarnings(sql: Sql, input: { partnerId: string; currency: string; start: Date | null; end: Date }): Promise<DailyEarning[]> {
  const rows = await sql<{ day: string; amount: bigint }[]>`
    with bounds as (
      select coalesce(${input.start}::timestamptz,
        (select min(occurred_at) from commissions where partner_id = ${input.partnerId}),
        ${input.end}::timestamptz - interval '1 day') as start
    ), days as (
      select generate_series((select start from bounds) at time zone 'UTC', (${input.end}::timestamptz - interval '1 day') at time zone 'UTC', interval '1 day')::date as day
    ), m as (
      select (x.occurred_at at time zone 'UTC')::date as day, sum(x.amount)::bigint as n
      from commissions x
      where x.partner_id = ${input.partnerId} and x.currency = ${input.currency} and ${earnedCommission(sql, 'x')}
        and x.occurred_at >= (select start from bounds) and x.occurred_at < ${input.end}
      group by 1
    )
    select to_char(days.day, 'YYYY-MM-DD') as day, coalesce(m.n, 0)::bigint as amount
    from days left join m using (day) order by days.day`;
  return rows.map((r) => ({ day: r.day, amount: minorToNumber(r.amount, input.currency) }));
}

export type LinkStats = {
  linkId: string;
  /** credited clicks */
  clicks: number;
  filteredClicks: number;
  convertedClicks: number;
  /** first conversions through this link */
  conversions: number;
  /** commissions not reversed that came through this link's clicks, per currency (minor units) */
  earnings: { currency: string; amount: bigint }[];
};

/** All-time figures of the partner's links named (one query per table; docs/analytics.md). */
export async function partnerLinkStats(sql: Sql, input: { partnerId: string; linkIds: string[] }): Promise<Map<string, LinkStats>> {
  const out = new Map<string, LinkStats>(input.linkIds.map((id) => [id, { linkId: id, clicks: 0, filteredClicks: 0, convertedClicks: 0, conversions: 0, earnings: [] }]));
  if (input.linkIds.length === 0) return out;
  const [clicks, conversions, earnings] = await Promise.all([
    sql<{ link_id: string; n: number; filtered: number; converted: number }[]>`
      select c.link_id, count(*)::int as n, (count(*) filter (where ${filteredClick(sql, 'c')}))::int as filtered,
        (count(*) filter (where exists (select 1 from referral_touches t where t.click_id = c.id)))::int as converted
      from clicks c
      where c.partner_id = ${input.partnerId} and c.link_id = any(${input.linkIds}::text[])
      group by c.link_id`,
    sql<{ link_id: string; n: number }[]>`
      select k.link_id, (count(distinct s.user_id) filter (where s.first))::int as n
      from (select distinct a.event_id, a.user_id, a.click_id, ${firstSale(sql, 'a.user_id', 'a.occurred_at')} as first
            from attributions a where a.partner_id = ${input.partnerId}) s
      join clicks k on k.id = s.click_id
      where k.link_id = any(${input.linkIds}::text[])
      group by k.link_id`,
    sql<{ link_id: string; currency: string; amount: bigint }[]>`
      select k.link_id, c.currency, sum(c.amount)::bigint as amount
      from commissions c join attributions a on a.id = c.attribution_id join clicks k on k.id = a.click_id
      where c.partner_id = ${input.partnerId} and ${earnedCommission(sql, 'c')} and k.link_id = any(${input.linkIds}::text[])
      group by k.link_id, c.currency
      order by k.link_id, c.currency`,
  ]);
  for (const r of clicks) Object.assign(out.get(r.link_id)!, { clicks: r.n - r.filtered, filteredClicks: r.filtered, convertedClicks: r.converted });
  for (const r of conversions) out.get(r.link_id)!.conversions = r.n;
  for (const r of earnings) out.get(r.link_id)!.earnings.push({ currency: r.currency, amount: r.amount });
  return out;
}

/** One numbered page of the partner's commissions, newest first, and how many there are. */
export async function partnerCommissionPage(sql: Sql, input: { partnerId: string; offset: number; limit: number }): Promise<{ items: Commission[]; total: number }> {
  const [rows, [count]] = await Promise.all([
    sql<CommissionRow[]>`
      select ${sql([...COMMISSION_COLUMNS])} from commissions where partner_id = ${input.partnerId}
      order by id desc offset ${input.offset} limit ${input.limit}`,
    sql<{ n: number }[]>`select count(*)::int as n from commissions where partner_id = ${input.partnerId}`,
  ]);
  return { items: rows.map(toCommission), total: count!.n };
}

/** One numbered page of the partner's payouts, newest first, and how many there are. */
export async function partnerPayoutPage(sql: Sql, input: { partnerId: string; offset: number; limit: number }): Promise<{ items: PayoutView[]; total: number }> {
  const [rows, [count]] = await Promise.all([
    sql<PayoutRow[]>`
      select ${sql(PAYOUT_COLUMNS.filter((c) => c !== 'failed_lines'))} from payouts where partner_id = ${input.partnerId}
      order by id desc offset ${input.offset} limit ${input.limit}`,
    sql<{ n: number }[]>`select count(*)::int as n from payouts where partner_id = ${input.partnerId}`,
  ]);
  return { items: rows.map(payoutView), total: count!.n };
}

/** Names of the campaigns named (rows of several campaigns, archived ones too). */
export async function campaignNames(sql: Sql, ids: string[]): Promise<Map<string, string>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const rows = await sql<{ id: string; name: string }[]>`select id, name from campaigns where id = any(${unique}::text[])`;
  return new Map(rows.map((r) => [r.id, r.name]));
}

/** Each named campaign's currency, by id (unknown ids are left out). */
export async function campaignCurrencies(sql: Sql, ids: string[]): Promise<Map<string, string>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const rows = await sql<{ id: string; currency: string }[]>`select id, currency from campaigns where id = any(${unique}::text[])`;
  return new Map(rows.map((r) => [r.id, r.currency]));
}

/** One of the partner's links with the page it lands on (its own, else its campaign's); null if not the partner's. */
export async function partnerLinkLanding(sql: Sql, input: { partnerId: string; linkId: string }): Promise<{ slug: string; landing: string } | null> {
  const [row] = await sql<{ slug: string; landing: string }[]>`
    select l.slug, coalesce(l.destination_url, c.destination_url) as landing
    from links l join campaigns c on c.id = l.campaign_id
    where l.id = ${input.linkId} and l.partner_id = ${input.partnerId}`;
  return row ?? null;
}
