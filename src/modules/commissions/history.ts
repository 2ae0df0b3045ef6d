// A commission's history: every status move (commission_transitions) and every change of its amount
// (commission_adjustments, e.g. partial refunds), oldest first, so its amount can be explained.
import type { Tx } from '../../db';
import { formatMinor } from '../../lib/money';
import { iso } from '../../lib/time';
import type { CommissionHistory } from './model';

type Row = {
  kind: 'status' | 'amount';
  id: string;
  commission_id: string;
  from_status: string | null;
  to_status: string | null;
  amount_before: bigint | null;
  amount_after: bigint | null;
  actor: string;
  reason: string | null;
  detail: string | null;
  created_at: Date;
};

export type HistoryEntry = (typeof CommissionHistory.static)['entries'][number];

/** The history of each commission in `ids`, keyed by commission id (oldest entry first). */
export async function commissionHistories(sql: Tx, ids: string[], currencyOf: (id: string) => string): Promise<Map<string, HistoryEntry[]>> {
  const rows = await sql<Row[]>`
    select 'status' as kind, id::text, commission_id, from_status, to_status, null::bigint as amount_before, null::bigint as amount_after,
           actor, reason, null as detail, created_at
    from commission_transitions where commission_id = any(${ids}::text[])
    union all
    select 'amount', id::text, commission_id, null, null, amount_before, amount_after, actor, reason, detail, created_at
    from commission_adjustments where commission_id = any(${ids}::text[])
    order by created_at, kind desc, id`;
  const out = new Map<string, HistoryEntry[]>(ids.map((id) => [id, []]));
  for (const r of rows) {
    const currency = currencyOf(r.commission_id);
    out.get(r.commission_id)!.push({
      at: iso(r.created_at)!,
      change: r.kind,
      fromStatus: r.from_status,
      toStatus: r.to_status,
      amountBefore: r.amount_before === null ? null : formatMinor(r.amount_before, currency),
      amountAfter: r.amount_after === null ? null : formatMinor(r.amount_after, currency),
      actor: r.actor,
      reason: r.reason,
      detail: r.detail,
    });
  }
  return out;
}
