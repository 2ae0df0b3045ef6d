// Reads behind the admin events pages: conversion events in a range as a sortable, counted page and a
// CSV export, and one event with its attributions, referral touches, commissions and adjustments.
import type { Sql, Tx } from '../../db';
import { csvStream } from '../../lib/csv';
import { formatMinor } from '../../lib/money';
import { iso } from '../../lib/time';
import { commissionList, listedCommission, type CommissionListed, type CommissionListRow } from './commission-list';
import { direction, type Dir, type SORTS } from './money-shared';

export const ATTRIBUTION_STATUSES = ['attributed', 'no_identity', 'no_click', 'outside_window'] as const;
export type AttributionStatusName = (typeof ATTRIBUTION_STATUSES)[number];

export type EventFilter = { type?: string; status?: AttributionStatusName; userId?: string; from: Date; to: Date };

/** A listed event: its partners credited and its commissions per currency (reversed ones left out). */
export type EventListed = {
  id: string;
  userId: string;
  type: string;
  amount: bigint | null;
  currency: string | null;
  occurredAt: Date;
  receivedAt: Date;
  attributionStatus: string;
  attributionModel: string | null;
  partners: { id: string; name: string }[];
  commissions: { currency: string; amount: bigint }[];
};

type EventListRow = {
  id: string;
  user_id: string;
  type: string;
  amount: bigint | null;
  currency: string | null;
  occurred_at: Date;
  created_at: Date;
  attribution_status: string;
  attribution_model: string | null;
  partners: { id: string; name: string }[];
  commissions: { currency: string; amount: string }[];
};

/**
 * The events that happened in `[from, to)`: by `occurred_at`, the day the sale counts on everywhere
 * (docs/analytics.md), not the day it was received (an import or a backfill arrives today).
 */
function eventWhere(sql: Tx, f: EventFilter) {
  return sql`
    and e.occurred_at >= ${f.from} and e.occurred_at < ${f.to}
    ${f.type ? sql`and e.type = ${f.type}` : sql``}
    ${f.status ? sql`and e.attribution_status = ${f.status}` : sql``}
    ${f.userId ? sql`and e.user_id = ${f.userId}` : sql``}`;
}

/** The event columns plus its partners and commission sums, gathered per row in the same query. */
function eventSelect(sql: Tx) {
  return sql`
    select e.id, e.user_id, e.type, e.amount, e.currency, e.occurred_at, e.created_at, e.attribution_status, e.attribution_model,
      coalesce(pa.partners, '[]') as partners, coalesce(cm.commissions, '[]') as commissions
    from events e
    left join lateral (
      select jsonb_agg(jsonb_build_object('id', x.partner_id, 'name', x.name) order by x.name) as partners
      from (select distinct a.partner_id, p.name from attributions a join partners p on p.id = a.partner_id where a.event_id = e.id) x
    ) pa on true
    left join lateral (
      select jsonb_agg(jsonb_build_object('currency', s.currency, 'amount', s.total::text) order by s.currency) as commissions
      from (select c.currency, sum(c.amount) as total from commissions c where c.event_id = e.id and c.status <> 'reversed' group by c.currency) s
    ) cm on true`;
}

const listedEvent = (r: EventListRow): EventListed => ({
  id: r.id,
  userId: r.user_id,
  type: r.type,
  amount: r.amount,
  currency: r.currency,
  occurredAt: r.occurred_at,
  receivedAt: r.created_at,
  attributionStatus: r.attribution_status,
  attributionModel: r.attribution_model,
  partners: r.partners,
  commissions: r.commissions.map((c) => ({ currency: c.currency, amount: BigInt(c.amount) })),
});

/** One page of the events that happened in the range (latest first by default), and how many match. */
export async function eventPage(
  sql: Sql,
  input: { filter: EventFilter; sort: { key: (typeof SORTS.events)[number]; dir: Dir }; offset: number; limit: number },
): Promise<{ rows: EventListed[]; total: number }> {
  const dir = direction(sql, input.sort.dir);
  const order = input.sort.key === 'amount' ? sql`e.amount ${dir} nulls last, e.id ${dir}` : sql`e.occurred_at ${dir}, e.id ${dir}`;
  const [rows, [count]] = await Promise.all([
    sql<EventListRow[]>`
      ${eventSelect(sql)}
      where true ${eventWhere(sql, input.filter)}
      order by ${order}
      offset ${input.offset} limit ${input.limit}`,
    sql<{ n: number }[]>`select count(*)::int as n from events e where true ${eventWhere(sql, input.filter)}`,
  ]);
  return { rows: rows.map(listedEvent), total: count!.n };
}

export async function anyEvent(sql: Sql): Promise<boolean> {
  const [row] = await sql<{ any: boolean }[]>`select exists (select 1 from events) as any` ;
  return row!.any;
}

/** The event types seen, for the filter's choices (a program has a handful). */
export async function eventTypes(sql: Sql): Promise<string[]> {
  const rows = await sql<{ type: string }[]>`select distinct type from events order by type limit 200`;
  return rows.map((r) => r.type);
}

export const EVENT_CSV_COLUMNS = [
  'event_id', 'received_at', 'occurred_at', 'type', 'user_id', 'currency', 'amount', 'attribution_status', 'attribution_model',
  'partner_ids', 'partner_names', 'commission_currency', 'commission_amount',
] as const;

/**
 * The filtered events as CSV, latest sale first (by when it happened). Partners credited are joined by "; "; the commission
 * columns hold one value per currency (almost always one), joined by "; " in the same order.
 */
export function eventsCsv(sql: Sql, filter: EventFilter): ReadableStream<Uint8Array> {
  return csvStream<EventListRow>({
    header: EVENT_CSV_COLUMNS,
    page: (after, limit) => sql<EventListRow[]>`
      ${eventSelect(sql)}
      where true ${eventWhere(sql, filter)} ${after ? sql`and (e.occurred_at, e.id) < (${after.occurred_at}, ${after.id})` : sql``}
      order by e.occurred_at desc, e.id desc
      limit ${limit}`,
    cells: (r) => {
      const e = listedEvent(r);
      return [
        e.id, iso(e.receivedAt), iso(e.occurredAt), e.type, e.userId, e.currency, e.amount === null || !e.currency ? '' : formatMinor(e.amount, e.currency),
        e.attributionStatus, e.attributionModel, e.partners.map((p) => p.id).join('; '), e.partners.map((p) => p.name).join('; '),
        e.commissions.map((c) => c.currency).join('; '), e.commissions.map((c) => formatMinor(c.amount, c.currency)).join('; '),
      ];
    },
  });
}

export type EventDetail = {
  event: EventListed & { metadata: Record<string, unknown>; idempotencyKey: string | null; source: string };
  attributions: { id: string; partnerId: string; partnerName: string; campaignId: string; campaignName: string; clickId: string | null; couponCode: string | null; model: string; weight: number }[];
  touches: { position: number; clickId: string | null; couponCode: string | null; partnerId: string; partnerName: string; campaignName: string; weightNum: number; weightDen: number }[];
  commissions: CommissionListed[];
  /** The user's partner clicks that a filter kept from credit (bot_click, click_flood), newest first: why an event found no click. */
  filteredClicks: { clickId: string; reason: string; partnerName: string; at: Date }[];
  /** Amount changes of its commissions after accrual (partial refunds), oldest first. */
  adjustments: { commissionId: string; partnerName: string; at: Date; before: bigint; after: bigint; currency: string; reason: string; actor: string; detail: string | null }[];
};

/** One event with what it led to: its attributions, the user's referral touches and its commissions. */
export async function eventDetail(sql: Sql, id: string): Promise<EventDetail | null> {
  const [row] = await sql<(EventListRow & { metadata: Record<string, unknown> | null; idempotency_key: string | null; source: string })[]>`
    select x.*, e.metadata, e.idempotency_key, e.source from (${eventSelect(sql)} where e.id = ${id}) x join events e on e.id = x.id`;
  if (!row) return null;
  const [attributions, touches, commissions, filtered] = await Promise.all([
    sql<{ id: string; partner_id: string; partner_name: string; campaign_id: string; campaign_name: string; click_id: string | null; coupon_code: string | null; model: string; weight: number }[]>`
      select a.id, a.partner_id, p.name as partner_name, a.campaign_id, k.name as campaign_name, a.click_id, pc.code as coupon_code, a.model, a.weight
      from attributions a join partners p on p.id = a.partner_id join campaigns k on k.id = a.campaign_id
      left join promotion_codes pc on pc.id = a.code_id
      where a.event_id = ${id} order by a.id`,
    sql<{ position: number; click_id: string | null; coupon_code: string | null; partner_id: string; partner_name: string; campaign_name: string; weight_num: number; weight_den: number }[]>`
      select t.position, t.click_id, pc.code as coupon_code, t.partner_id, p.name as partner_name, k.name as campaign_name, t.weight_num, t.weight_den
      from referral_touches t join partners p on p.id = t.partner_id join campaigns k on k.id = t.campaign_id
      left join promotion_codes pc on pc.id = t.code_id
      where t.user_id = ${row.user_id} order by t.position`,
    sql<CommissionListRow[]>`
      ${commissionList(sql)}
      where c.event_id = ${id} order by c.id`,
    sql<{ id: string; uncredited_reason: string; partner_name: string; created_at: Date }[]>`
      select c.id, c.uncredited_reason, p.name as partner_name, c.created_at
      from identity_clicks ic join clicks c on c.id = ic.click_id join partners p on p.id = c.partner_id
      where ic.user_id = ${row.user_id} and c.uncredited_reason is not null
      order by c.created_at desc, c.id desc limit 20`,
  ]);
  return {
    event: { ...listedEvent(row), metadata: row.metadata ?? {}, idempotencyKey: row.idempotency_key, source: row.source },
    attributions: attributions.map((a) => ({
      id: a.id, partnerId: a.partner_id, partnerName: a.partner_name, campaignId: a.campaign_id, campaignName: a.campaign_name,
      clickId: a.click_id, couponCode: a.coupon_code, model: a.model, weight: a.weight,
    })),
    touches: touches.map((t) => ({
      position: t.position, clickId: t.click_id, couponCode: t.coupon_code, partnerId: t.partner_id, partnerName: t.partner_name, campaignName: t.campaign_name,
      weightNum: t.weight_num, weightDen: t.weight_den,
    })),
    commissions: commissions.map(listedCommission),
    filteredClicks: filtered.map((c) => ({ clickId: c.id, reason: c.uncredited_reason, partnerName: c.partner_name, at: c.created_at })),
    adjustments: (
      await sql<{ commission_id: string; partner_name: string; created_at: Date; amount_before: bigint; amount_after: bigint; currency: string; reason: string; actor: string; detail: string | null }[]>`
        select a.commission_id, p.name as partner_name, a.created_at, a.amount_before, a.amount_after, c.currency, a.reason, a.actor, a.detail
        from commission_adjustments a join commissions c on c.id = a.commission_id join partners p on p.id = c.partner_id
        where c.event_id = ${id} order by a.id`
    ).map((a) => ({
      commissionId: a.commission_id, partnerName: a.partner_name, at: a.created_at, before: a.amount_before, after: a.amount_after,
      currency: a.currency, reason: a.reason, actor: a.actor, detail: a.detail,
    })),
  };
}
