// Monthly statements: one email per partner per calendar month (UTC) that saw its commissions move,
// written in one statement. "Earned" is the commissions (not reversed) on the month's sales, counted
// on the day each sale happened as every report counts them (docs/analytics.md); approved, paid and
// reversed are what moved in the month. The dedupe key makes a second run for the same month (another replica,
// a restart, a missed tick caught up) write nothing.
import type { Tx } from '../db';
import { newId } from '../lib/ids';
import { exponentArrays } from '../lib/money';
import { EMAIL_CHANNEL } from './outbox';

/** The month before `now`, as `YYYY-MM` (UTC). */
export function previousMonth(now = new Date()): string {
  const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
  return d.toISOString().slice(0, 7);
}

/** Writes the statements of `month` (`YYYY-MM`); answers how many were written now. */
export async function enqueueMonthlyStatements(sql: Tx, month: string): Promise<number> {
  if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(month)) throw new Error(`not a month: ${month}`);
  const { codes, exps } = exponentArrays();
  // ids: the prefix of a fresh id (time and randomness) and a counter, as the bulk envelope ids are made
  const prefix = newId('email').slice(0, 22);
  const [row] = await sql<{ written: number }[]>`
    with bounds as (
      select ${`${month}-01`}::timestamptz as start, ${`${month}-01`}::timestamptz + interval '1 month' as stop
    ), moved as (
      select c.partner_id, c.currency,
        -- earned on the month's sales (occurred_at: the day the sale happened, docs/analytics.md)
        sum(c.amount) filter (where c.occurred_at >= b.start and c.occurred_at < b.stop and c.status <> 'reversed') as earned,
        sum(c.amount) filter (where c.approved_at >= b.start and c.approved_at < b.stop) as approved,
        sum(c.amount) filter (where c.paid_at >= b.start and c.paid_at < b.stop) as paid,
        sum(c.amount) filter (where c.reversed_at >= b.start and c.reversed_at < b.stop) as reversed,
        count(*)::int as n
      from commissions c, bounds b
      where (c.occurred_at >= b.start and c.occurred_at < b.stop) or (c.approved_at >= b.start and c.approved_at < b.stop)
         or (c.paid_at >= b.start and c.paid_at < b.stop) or (c.reversed_at >= b.start and c.reversed_at < b.stop)
      group by c.partner_id, c.currency
    ), lines as (
      select m.partner_id, jsonb_agg(jsonb_build_object(
          'currency', m.currency,
          'earned', partnerd_format_minor(coalesce(m.earned, 0)::bigint, coalesce(x.exp, 2)),
          'approved', partnerd_format_minor(coalesce(m.approved, 0)::bigint, coalesce(x.exp, 2)),
          'paid', partnerd_format_minor(coalesce(m.paid, 0)::bigint, coalesce(x.exp, 2)),
          'reversed', partnerd_format_minor(coalesce(m.reversed, 0)::bigint, coalesce(x.exp, 2)),
          'count', m.n) order by m.currency) as lines
      from moved m left join unnest(${codes}::text[], ${exps}::int[]) as x(code, exp) on x.code = m.currency
      group by m.partner_id
    ), written as (
      insert into email_outbox (id, template, to_address, data, partner_id, dedupe_key)
      select ${prefix} || lpad(to_hex(row_number() over (order by p.id)), 8, '0'), 'monthly_statement', p.email,
        jsonb_build_object('partnerName', p.name, 'month', ${month}::text, 'lines', l.lines), p.id,
        'monthly_statement:' || p.id || ':' || ${month}::text
      from lines l join partners p on p.id = l.partner_id
      where p.revoked_at is null and coalesce((p.notifications ->> 'monthlyStatement')::boolean, true)
      on conflict do nothing
      returning 1
    )
    select count(*)::int as written from written`;
  if (row!.written > 0) await sql`select pg_notify(${EMAIL_CHANNEL}, '')`;
  return row!.written;
}
