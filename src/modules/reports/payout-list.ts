// Reads behind the admin payouts pages: a sortable, counted page, the ticked rows, what a payout run
// would pay now (its preview and fingerprint) and what one payout paid (its lines).
import { createHash } from 'node:crypto';
import type { Sql } from '../../db';
import { isDue, payableGroups } from '../payouts/due';
import { PAYOUT_COLUMNS, payoutView, type PayoutRow, type PayoutStatus, type PayoutView } from '../payouts/service';
import { commissionList, commissionsByIds, listedCommission, type CommissionListed, type CommissionListRow } from './commission-list';
import { direction, totalsOf, type CurrencyTotal, type Dir, type SORTS } from './money-shared';

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
};

/**
 * What a payout run would pay now: the run's own sums (payableGroups) and its own rule (isDue), read
 * without locking anything. The run itself may differ only by what changes in between (a commission
 * approved or reversed meanwhile), which the confirm step checks with `fingerprint`.
 */
export async function previewRun(sql: Sql, minPayout: string): Promise<RunPreview> {
  const cutoff = new Date();
  const groups = await payableGroups(sql, {});
  const due = groups.filter((g) => isDue(g, minPayout));
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
  };
}

/** A short text that changes when what a run would pay changes: posted with the confirmation. */
export function fingerprint(preview: RunPreview): string {
  const text = preview.lines.map((l) => `${l.partnerId}:${l.currency}:${l.amount}:${l.commissionCount}:${l.clawbackCount}`).sort().join('|');
  return createHash('sha256').update(text).digest('base64url');
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
      ${commissionList(sql)}
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
