// Emails to the admins that other code triggers by name (the database writes the rest: see
// migrations/0024_email_outbox.sql).
import type { Tx } from '../db';
import { enqueueAdminEmail } from './outbox';

/** A partner signed up (status pending or active) or applied (status applied): tell the admins. */
export function notifyAdminsOfSignup(sql: Tx, partner: { id: string; name: string; email: string; status: string }): Promise<string | null> {
  return enqueueAdminEmail(sql, {
    template: 'partner_signup',
    data: { partnerId: partner.id, name: partner.name, email: partner.email, status: partner.status },
    dedupeKey: `partner_signup:${partner.id}:${partner.status}`,
  });
}

/** A payout run created payouts: the admins get one summary (totals per currency). */
export async function notifyAdminsOfPayoutRun(sql: Tx, payouts: { partnerId: string; currency: string; amount: string }[]): Promise<string | null> {
  if (payouts.length === 0) return null;
  const byCurrency = new Map<string, { count: number; amounts: string[] }>();
  for (const p of payouts) {
    const line = byCurrency.get(p.currency) ?? { count: 0, amounts: [] };
    line.count++;
    line.amounts.push(p.amount);
    byCurrency.set(p.currency, line);
  }
  const lines = [...byCurrency.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
  return enqueueAdminEmail(sql, {
    template: 'payout_run_summary',
    data: {
      runAt: new Date().toISOString(),
      partners: new Set(payouts.map((p) => p.partnerId)).size,
      payouts: lines.map(([currency, l]) => ({ currency, count: l.count, amount: sumDecimal(l.amounts) })),
    },
  });
}

/** Adds decimal strings of one currency exactly (same number of decimals, as formatMinor writes them). */
function sumDecimal(values: string[]): string {
  const decimals = values[0]?.split('.')[1]?.length ?? 0;
  const total = values.reduce((sum, v) => sum + BigInt(v.replace('.', '')), 0n);
  const negative = total < 0n;
  const digits = (negative ? -total : total).toString().padStart(decimals + 1, '0');
  const whole = decimals === 0 ? digits : `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
  return negative ? `-${whole}` : whole;
}
