// Reads behind the admin money pages: commissions, payouts and conversion events as sortable, counted
// pages and CSV exports; the totals a bulk action or a payout run is about to move (its preview).
// Sorting goes through fixed allow-lists (SORTS); every amount stays in minor units (bigint).
import { createHash } from 'node:crypto';
import type { Sql, Tx } from '../../db';
import { csvStream } from '../../lib/csv';
import { idFloor } from '../../lib/ids';
import { formatMinor } from '../../lib/money';
import { iso } from '../../lib/time';
import { isDue, payableGroups } from '../payouts/due';
import { byRail, splitHeld, type HeldLine } from '../payouts/preview';
import type { RailsOn } from '../payouts/routing';
import type { RailName } from '../../../plugins/payouts';
import { COMMISSION_COLUMNS, toCommission, type Commission, type CommissionRow, type CommissionStatus } from '../commissions/service';
import { PAYOUT_COLUMNS, payoutView, type PayoutRow, type PayoutStatus, type PayoutView } from '../payouts/service';

export type Dir = 'asc' | 'desc';

/** The columns each list may sort by; the URL picks a key, never a column. */
export const SORTS = {
  commissions: ['date', 'amount'],
  payouts: ['date', 'amount'],
  events: ['time', 'amount'],
} as const;

const direction = (sql: Tx, dir: Dir) => (dir === 'asc' ? sql`asc` : sql`desc`);

/** An amount per currency, minor units. */
export type CurrencyTotal = { currency: string; amount: bigint; count: number };

// ---------------------------------------------------------------------------------------------
// Commissions

export type CommissionFilter = { status?: CommissionStatus; partnerId?: string; campaignId?: string };

function commissionWhere(sql: Tx, f: CommissionFilter) {
  return sql`
    ${f.status ? sql`and c.status = ${f.status}` : sql``}
    ${f.partnerId ? sql`and c.partner_id = ${f.partnerId}` : sql``}
    ${f.campaignId ? sql`and c.campaign_id = ${f.campaignId}` : sql``}`;
}

/** A commission with its partner's and campaign's names, and its amount in minor units. */
export type CommissionListed = Commission & { partnerName: string; campaignName: string; amountMinor: bigint };

type CommissionListRow = CommissionRow & { partner_name: string; partner_email: string; campaign_name: string };

const listedCommission = (r: CommissionListRow): CommissionListed => ({ ...toCommission(r), partnerName: r.partner_name, campaignName: r.campaign_name, amountMinor: r.amount });

/** One page of the filtered commissions, sorted, and how many match in all. */
export async function commissionPage(
  sql: Sql,
  input: { filter: CommissionFilter; sort: { key: (typeof SORTS.commissions)[number]; dir: Dir }; offset: number; limit: number },
): Promise<{ rows: CommissionListed[]; total: number }> {
  const column = input.sort.key === 'amount' ? sql`c.amount` : sql`c.id`;
  const dir = direction(sql, input.sort.dir);
  const [rows, [count]] = await Promise.all([
    sql<CommissionListRow[]>`
      select ${sql(COMMISSION_COLUMNS.map((c) => `c.${c}`))}, p.name as partner_name, p.email as partner_email, k.name as campaign_name
      from commissions c join partners p on p.id = c.partner_id join campaigns k on k.id = c.campaign_id
      where true ${commissionWhere(sql, input.filter)}
      order by ${column} ${dir}, c.id ${dir}
      offset ${input.offset} limit ${input.limit}`,
    sql<{ n: number }[]>`select count(*)::int as n from commissions c where true ${commissionWhere(sql, input.filter)}`,
  ]);
  return { rows: rows.map(listedCommission), total: count!.n };
}

/** Whether any commission exists (tells "nothing yet" from "no match"). */
export async function anyCommission(sql: Sql): Promise<boolean> {
  const [row] = await sql<{ any: boolean }[]>`select exists (select 1 from commissions) as any`;
  return row!.any;
}

/** The ticked commissions, as a bulk confirmation lists them (unknown ids are simply absent). */
export async function commissionsByIds(sql: Sql, ids: string[]): Promise<CommissionListed[]> {
  if (ids.length === 0) return [];
  const rows = await sql<CommissionListRow[]>`
    select ${sql(COMMISSION_COLUMNS.map((c) => `c.${c}`))}, p.name as partner_name, p.email as partner_email, k.name as campaign_name
    from commissions c join partners p on p.id = c.partner_id join campaigns k on k.id = c.campaign_id
    where c.id = any(${ids}::text[])
    order by c.id desc`;
  return rows.map(listedCommission);
}

export const COMMISSION_CSV_COLUMNS = [
  'commission_id', 'created_at', 'status', 'partner_id', 'partner_name', 'partner_email', 'campaign_id', 'campaign_name',
  'event_id', 'event_type', 'user_id', 'currency', 'amount', 'event_value', 'approved_at', 'paid_at', 'reversed_at',
  'reversal_reason', 'payout_id',
] as const;

/** The filtered commissions as CSV, newest first; amounts in major units beside their currency. */
export function commissionsCsv(sql: Sql, filter: CommissionFilter): ReadableStream<Uint8Array> {
  return csvStream<CommissionListRow>({
    header: COMMISSION_CSV_COLUMNS,
    page: (after, limit) => sql<CommissionListRow[]>`
      select ${sql(COMMISSION_COLUMNS.map((c) => `c.${c}`))}, p.name as partner_name, p.email as partner_email, k.name as campaign_name
      from commissions c join partners p on p.id = c.partner_id join campaigns k on k.id = c.campaign_id
      where true ${commissionWhere(sql, filter)} ${after ? sql`and c.id < ${after.id}` : sql``}
      order by c.id desc
      limit ${limit}`,
    cells: (r) => [
      r.id, iso(r.created_at), r.status, r.partner_id, r.partner_name, r.partner_email, r.campaign_id, r.campaign_name,
      r.event_id, r.event_type, r.user_id, r.currency, formatMinor(r.amount, r.currency),
      r.event_value === null ? '' : formatMinor(r.event_value, r.currency), iso(r.approved_at), iso(r.paid_at), iso(r.reversed_at),
      r.reversal_reason, r.payout_id,
    ],
  });
}

// ---------------------------------------------------------------------------------------------
// Payouts

export type PayoutFilter = { status?: PayoutStatus };

export type PayoutListed = PayoutView & { partnerName: string; amountMinor: bigint };

type PayoutListRow = PayoutRow & { partner_name: string };

/** One page of payouts, sorted, and how many match in all. */
export async function payoutPage(
  sql: Sql,
  input: { filter: PayoutFilter; sort: { key: (typeof SORTS.payouts)[number]; dir: Dir }; offset: number; limit: number },
): Promise<{ rows: PayoutListed[]; total: number }> {
  const where = input.filter.status ? sql`and p.status = ${input.filter.status}` : sql``;
  const column = input.sort.key === 'amount' ? sql`p.amount` : sql`p.id`;
  const dir = direction(sql, input.sort.dir);
  const [rows, [count]] = await Promise.all([
    sql<PayoutListRow[]>`
      select ${sql(PAYOUT_COLUMNS.map((c) => `p.${c}`))}, pt.name as partner_name
      from payouts p join partners pt on pt.id = p.partner_id
      where true ${where}
      order by ${column} ${dir}, p.id ${dir}
      offset ${input.offset} limit ${input.limit}`,
    sql<{ n: number }[]>`select count(*)::int as n from payouts p where true ${where}`,
  ]);
  return { rows: rows.map((r) => ({ ...payoutView(r), partnerName: r.partner_name, amountMinor: r.amount })), total: count!.n };
}

export async function anyPayout(sql: Sql): Promise<boolean> {
  const [row] = await sql<{ any: boolean }[]>`select exists (select 1 from payouts) as any`;
  return row!.any;
}

/** The ticked payouts, as the bulk mark-paid confirmation lists them. */
export async function payoutsByIds(sql: Sql, ids: string[]): Promise<PayoutListed[]> {
  if (ids.length === 0) return [];
  const rows = await sql<PayoutListRow[]>`
    select ${sql(PAYOUT_COLUMNS.map((c) => `p.${c}`))}, pt.name as partner_name
    from payouts p join partners pt on pt.id = p.partner_id
    where p.id = any(${ids}::text[])
    order by p.id desc`;
  return rows.map((r) => ({ ...payoutView(r), partnerName: r.partner_name, amountMinor: r.amount }));
}

/** One partner's line of a payout run preview. */
export type PreviewLine = {
  partnerId: string;
  partnerName: string;
  currency: string;
  /** Net (commissions less clawbacks), gross and clawbacks, minor units. */
  amount: bigint;
  gross: bigint;
  claw: bigint;
  commissionCount: number;
  clawbackCount: number;
  /** The rail that pays it (the partner's payout method). */
  rail: RailName;
};

export type RunPreview = {
  /** Computed at this moment: every commission approved up to now. */
  cutoff: Date;
  lines: PreviewLine[];
  partners: number;
  commissions: number;
  clawbacks: number;
  /** Net per currency (count = payouts in that currency). */
  totals: CurrencyTotal[];
  /** Approved but below the minimum (or netted to nothing): left for a later run. */
  belowMinimum: { partners: number; totals: CurrencyTotal[] };
  /** Net per rail and currency (count = payouts). */
  byRail: (CurrencyTotal & { rail: RailName })[];
  /** Owed and due, but held by the partner's payout method (a recent change, an account not ready): left approved. */
  held: HeldLine[];
};

/**
 * What a payout run would pay now: the run's own sums (payableGroups) and its own rule (isDue), read
 * without locking anything. The run itself may differ only by what changes in between (a commission
 * approved or reversed meanwhile), which the confirm step checks with `fingerprint`.
 */
export async function previewRun(sql: Sql, minPayout: string, on: RailsOn = { stripe: false }): Promise<RunPreview> {
  const cutoff = new Date();
  const groups = await payableGroups(sql, {});
  const { routes, held } = await splitHeld(sql, groups.filter((g) => isDue(g, minPayout)), on);
  const due = groups.filter((g) => isDue(g, minPayout) && routes.has(g.partnerId));
  const short = groups.filter((g) => !isDue(g, minPayout));
  const names = new Map(
    (await sql<{ id: string; name: string }[]>`select id, name from partners where id = any(${due.map((g) => g.partnerId)}::text[])`).map((r) => [r.id, r.name]),
  );
  const lines = due
    .map((g) => ({
      partnerId: g.partnerId,
      partnerName: names.get(g.partnerId) ?? g.partnerId,
      currency: g.currency,
      amount: g.gross - g.claw,
      gross: g.gross,
      claw: g.claw,
      commissionCount: g.commissionCount,
      clawbackCount: g.clawbackCount,
      rail: routes.get(g.partnerId)!,
    }))
    .sort((a, b) => (a.amount === b.amount ? a.partnerName.localeCompare(b.partnerName) : a.amount > b.amount ? -1 : 1));
  return {
    cutoff,
    lines,
    partners: new Set(due.map((g) => g.partnerId)).size,
    commissions: due.reduce((n, g) => n + g.commissionCount, 0),
    clawbacks: due.reduce((n, g) => n + g.clawbackCount, 0),
    totals: totalsOf(lines.map((l) => ({ currency: l.currency, amount: l.amount }))),
    belowMinimum: {
      partners: new Set(short.map((g) => g.partnerId)).size,
      totals: totalsOf(short.map((g) => ({ currency: g.currency, amount: g.gross - g.claw }))),
    },
    byRail: byRail(lines),
    held,
  };
}

/** A short text that changes when what a run would pay changes: posted with the confirmation. */
export function fingerprint(preview: RunPreview): string {
  const text = preview.lines.map((l) => `${l.partnerId}:${l.currency}:${l.amount}:${l.commissionCount}:${l.clawbackCount}`).sort().join('|');
  return createHash('sha256').update(text).digest('base64url');
}

/** Sums per currency (count = how many items), by currency code. */
export function totalsOf(items: { currency: string; amount: bigint }[]): CurrencyTotal[] {
  const map = new Map<string, CurrencyTotal>();
  for (const i of items) {
    const t = map.get(i.currency) ?? { currency: i.currency, amount: 0n, count: 0 };
    t.amount += i.amount;
    t.count += 1;
    map.set(i.currency, t);
  }
  return [...map.values()].sort((a, b) => a.currency.localeCompare(b.currency));
}

// ---------------------------------------------------------------------------------------------
// Conversion events

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

/** The events received in `[from, to)` (by id: the id carries the time, so the primary key serves it). */
function eventWhere(sql: Tx, f: EventFilter) {
  return sql`
    and e.id >= ${idFloor('event', f.from)} and e.id < ${idFloor('event', f.to)}
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

/** One page of the events received in the range (newest first by default), and how many match. */
export async function eventPage(
  sql: Sql,
  input: { filter: EventFilter; sort: { key: (typeof SORTS.events)[number]; dir: Dir }; offset: number; limit: number },
): Promise<{ rows: EventListed[]; total: number }> {
  const dir = direction(sql, input.sort.dir);
  const order = input.sort.key === 'amount' ? sql`e.amount ${dir} nulls last, e.id ${dir}` : sql`e.id ${dir}`;
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
 * The filtered events as CSV, newest first. Partners credited are joined by "; "; the commission
 * columns hold one value per currency (almost always one), joined by "; " in the same order.
 */
export function eventsCsv(sql: Sql, filter: EventFilter): ReadableStream<Uint8Array> {
  return csvStream<EventListRow>({
    header: EVENT_CSV_COLUMNS,
    page: (after, limit) => sql<EventListRow[]>`
      ${eventSelect(sql)}
      where true ${eventWhere(sql, filter)} ${after ? sql`and e.id < ${after.id}` : sql``}
      order by e.id desc
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
  /** Amount changes of its commissions after accrual (partial refunds), oldest first. */
  adjustments: { commissionId: string; partnerName: string; at: Date; before: bigint; after: bigint; currency: string; reason: string; actor: string; detail: string | null }[];
};

/** One event with what it led to: its attributions, the user's referral touches and its commissions. */
export async function eventDetail(sql: Sql, id: string): Promise<EventDetail | null> {
  const [row] = await sql<(EventListRow & { metadata: Record<string, unknown> | null; idempotency_key: string | null; source: string })[]>`
    select x.*, e.metadata, e.idempotency_key, e.source from (${eventSelect(sql)} where e.id = ${id}) x join events e on e.id = x.id`;
  if (!row) return null;
  const [attributions, touches, commissions] = await Promise.all([
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
      select ${sql(COMMISSION_COLUMNS.map((c) => `c.${c}`))}, p.name as partner_name, p.email as partner_email, k.name as campaign_name
      from commissions c join partners p on p.id = c.partner_id join campaigns k on k.id = c.campaign_id
      where c.event_id = ${id} order by c.id`,
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

export type ClawbackLine = { commissionId: string; eventId: string | null; amount: bigint; reason: string };

/**
 * What a payout paid: its commissions and the clawbacks it netted. A failed payout released them,
 * so they are read from the lines it kept when it failed (the commissions as they are now).
 */
export async function payoutLines(sql: Sql, row: PayoutRow): Promise<{ commissions: CommissionListed[]; clawbacks: ClawbackLine[] }> {
  if (row.status === 'failed' && row.failed_lines) {
    const lines = row.failed_lines;
    const commissions = await commissionsByIds(sql, lines.commissions.map((c) => c.id));
    const events = new Map(
      (await commissionsByIds(sql, lines.clawbacks.map((k) => k.commissionId))).map((c) => [c.id, c.eventId]),
    );
    return {
      commissions,
      clawbacks: lines.clawbacks.map((k) => ({ commissionId: k.commissionId, eventId: events.get(k.commissionId) ?? null, amount: BigInt(k.amount), reason: k.reason })),
    };
  }
  const [commissions, clawbacks] = await Promise.all([
    sql<CommissionListRow[]>`
      select ${sql(COMMISSION_COLUMNS.map((c) => `c.${c}`))}, p.name as partner_name, p.email as partner_email, k.name as campaign_name
      from commissions c join partners p on p.id = c.partner_id join campaigns k on k.id = c.campaign_id
      where c.payout_id = ${row.id} order by c.id desc`,
    sql<{ commission_id: string; event_id: string; amount: bigint; reason: string }[]>`
      select k.commission_id, c.event_id, k.amount, k.reason
      from clawbacks k join commissions c on c.id = k.commission_id
      where k.payout_id = ${row.id} order by k.commission_id`,
  ]);
  return {
    commissions: commissions.map(listedCommission),
    clawbacks: clawbacks.map((k) => ({ commissionId: k.commission_id, eventId: k.event_id, amount: k.amount, reason: k.reason })),
  };
}
