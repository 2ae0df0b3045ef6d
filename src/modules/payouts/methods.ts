// Payout methods: how each partner is paid (payout_methods), read and written here. A change holds the
// partner's payouts for PAYOUT_METHOD_HOLD_HOURS (routing.ts reads the hold); the partner is told by
// email (workflows/payout-method.ts).
import type { RailName } from '../../../plugins/payouts';
import type { Transaction, Tx } from '../../db';
import { changesOf, record } from '../audit/service';
import { iso } from '../../lib/time';
import type { PayoutMethodView } from './method-model';

export type PayoutMethod = typeof PayoutMethodView.static;

export type MethodRow = {
  partner_id: string;
  type: RailName;
  email: string | null;
  stripe_account_id: string | null;
  ready: boolean;
  changed_at: Date;
  held_until: Date | null;
};

/** a***@example.com: enough to recognise, not enough to use. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  return at <= 0 ? '***' : `${email[0]}***${email.slice(at)}`;
}

export async function methodRow(sql: Tx, partnerId: string, lock = false): Promise<MethodRow | null> {
  const [row] = await sql<MethodRow[]>`
    select partner_id, type, email, stripe_account_id, ready, changed_at, held_until from payout_methods
    where partner_id = ${partnerId} ${lock ? sql`for update` : sql``}`;
  return row ?? null;
}

/** The method as the API answers it; `own`: the partner itself is asking (the email unmasked). */
export function methodView(row: MethodRow | null, own: boolean, now = new Date()): PayoutMethod {
  if (!row) return { type: null, ready: false, changedAt: null, heldUntil: null };
  const held = row.held_until && row.held_until > now ? row.held_until : null;
  return {
    type: row.type,
    ...(row.email ? { email: own ? row.email : maskEmail(row.email) } : {}),
    ...(row.type === 'stripe' && row.stripe_account_id ? { stripeAccountId: row.stripe_account_id } : {}),
    ready: row.ready,
    changedAt: iso(row.changed_at),
    heldUntil: iso(held),
  };
}

/** Writes the partner's method, held for `holdHours` from now. */
export async function saveMethod(
  tx: Transaction,
  input: { partnerId: string; type: RailName; email: string | null; stripeAccountId: string | null; ready: boolean; holdHours: number; actor: string },
): Promise<MethodRow> {
  const before = await methodRow(tx, input.partnerId, true);
  const [row] = await tx<MethodRow[]>`
    insert into payout_methods (partner_id, type, email, stripe_account_id, ready, changed_at, held_until, changed_by)
    values (${input.partnerId}, ${input.type}, ${input.email}, ${input.stripeAccountId}, ${input.ready}, now(),
            case when ${input.holdHours}::int > 0 then now() + make_interval(hours => ${input.holdHours}::int) end, ${input.actor})
    on conflict (partner_id) do update set type = excluded.type, email = excluded.email,
      -- an Express account stays the partner's when they choose another way, for when they come back
      stripe_account_id = coalesce(excluded.stripe_account_id, payout_methods.stripe_account_id),
      ready = excluded.ready, changed_at = excluded.changed_at, held_until = excluded.held_until, changed_by = excluded.changed_by
    returning partner_id, type, email, stripe_account_id, ready, changed_at, held_until`;
  const fields = (r: MethodRow | null) => (r ? { type: r.type, email: r.email, stripeAccountId: r.stripe_account_id } : null);
  const changes = changesOf(fields(before), fields(row!)!);
  await record(tx, { action: 'payout.method_changed', target: { type: 'partner', id: input.partnerId }, changes, skipIfUnchanged: true });
  return row!;
}

/** Stripe said whether the account can receive payouts: the method is ready or not. Answers the partners it is theirs. */
/** Each partner whose readiness changed gets a `payout.account_updated` entry (ready before, after). */
export async function setAccountReady(tx: Transaction, accountId: string, ready: boolean): Promise<string[]> {
  const rows = await tx<{ partner_id: string; was: boolean }[]>`
    update payout_methods m set ready = ${ready}
    from payout_methods old
    where old.partner_id = m.partner_id and m.stripe_account_id = ${accountId} and m.type = 'stripe'
    returning m.partner_id, old.ready as was`;
  for (const row of rows) {
    if (row.was === ready) continue;
    await record(tx, { action: 'payout.account_updated', target: { type: 'partner', id: row.partner_id }, changes: { ready: [row.was, ready] } });
  }
  return rows.map((r) => r.partner_id);
}
