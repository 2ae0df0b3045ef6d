// Which rail pays a partner now, from their payout method: the run and its preview read it from here,
// so the preview says exactly who is held and why. A partner with no method is paid by hand (or
// through Stripe Connect when an admin set their billingConnectAccountId, as before payout methods).
import type { RailName } from '../../../plugins/payouts';
import type { Tx } from '../../db';

export type Route = { partnerId: string; rail: RailName; destination: string | null } | { partnerId: string; held: string; heldUntil: Date | null };

type MethodRow = {
  partner_id: string;
  type: RailName | null;
  email: string | null;
  stripe_account_id: string | null;
  ready: boolean | null;
  held_until: Date | null;
  billing_connect_account_id: string | null;
  /** taxForms is `require` and the partner has no valid tax form on file (modules/tax). */
  tax_form_missing: boolean;
};

/** What the run preview and the portal say about a payout held for want of a tax form. */
export const TAX_FORM_HOLD = 'no valid tax form on file (taxForms is require): the partner must submit one on the portal\'s Tax form page';

/** What the installation can pay through: Stripe Connect needs STRIPE_SECRET_KEY. */
export type RailsOn = { stripe: boolean };

export function routeOf(m: MethodRow, on: RailsOn, now: Date): Route {
  const partnerId = m.partner_id;
  if (m.tax_form_missing) return { partnerId, held: TAX_FORM_HOLD, heldUntil: null };
  if (m.held_until && m.held_until > now) {
    const until = `${m.held_until.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
    return { partnerId, held: `payout method changed; held until ${until}`, heldUntil: m.held_until };
  }
  switch (m.type) {
    case 'stripe':
      if (!on.stripe) return { partnerId, held: 'Stripe Connect is off (STRIPE_SECRET_KEY is not set)', heldUntil: null };
      if (!m.ready || !m.stripe_account_id) return { partnerId, held: 'Stripe account not ready: onboarding not finished', heldUntil: null };
      return { partnerId, rail: 'stripe', destination: m.stripe_account_id };
    case 'paypal':
    case 'wise':
      return { partnerId, rail: m.type, destination: m.email };
    case 'manual':
      return { partnerId, rail: 'manual', destination: null };
    default:
      if (m.billing_connect_account_id && on.stripe) return { partnerId, rail: 'stripe', destination: m.billing_connect_account_id };
      return { partnerId, rail: 'manual', destination: null };
  }
}

/** The route of each of these partners, by partner id. */
export async function routesOf(sql: Tx, partnerIds: string[], on: RailsOn): Promise<Map<string, Route>> {
  const rows = await sql<(MethodRow & { now: Date })[]>`
    select p.id as partner_id, m.type, m.email, m.stripe_account_id, m.ready, m.held_until, p.billing_connect_account_id, now() as now,
      (s.tax_forms = 'require' and not coalesce(tax_form_valid(t.form, t.signed_at), false)) as tax_form_missing
    from partners p left join payout_methods m on m.partner_id = p.id
      left join tax_profiles t on t.partner_id = p.id
      cross join settings s
    where p.id = any(${partnerIds}::text[])`;
  return new Map(rows.map((r) => [r.partner_id, routeOf(r, on, r.now)]));
}
