// Choosing how a partner is paid (PUT /v1/partners/:id/payout-method, the portal's Payouts page):
// checks the choice, opens a Stripe Express account when it is Stripe, writes the method with its
// hold, and emails the partner (and the address the money used to go to) in the same transaction.
import type { RailName, StripeConnect } from '../../plugins/payouts';
import type { AppContext } from '../context';
import { AppError, notFound } from '../lib/errors';
import { enqueueEmail } from '../mail/outbox';
import { methodRow, methodView, saveMethod, setAccountReady, type MethodRow, type PayoutMethod } from '../modules/payouts/methods';

export type MethodChoice = { type: RailName; email?: string };

const LABELS: Record<RailName, string> = { stripe: 'Stripe', paypal: 'PayPal', wise: 'Wise', manual: 'By hand (bank transfer from the program)' };

/** How a method reads in the change email. */
function describe(row: Pick<MethodRow, 'type' | 'email' | 'stripe_account_id'> | null): string {
  if (!row) return 'Not chosen (paid by hand)';
  if (row.email) return `${LABELS[row.type]} (${row.email})`;
  if (row.type === 'stripe' && row.stripe_account_id) return `Stripe (account ${row.stripe_account_id})`;
  return LABELS[row.type];
}

function refuse(field: string, message: string): never {
  throw new AppError('invalid_body', `${field}: ${message}`, [{ field, message }]);
}

function connectOf(ctx: AppContext): StripeConnect {
  const connect = ctx.payoutProvider.connect;
  if (!connect) {
    throw new AppError('conflict', 'Stripe payouts are off: STRIPE_SECRET_KEY is not set', { variable: 'STRIPE_SECRET_KEY' });
  }
  return connect;
}

/** Stripe's refusal, as a 502 saying what Stripe answered (nothing was written). */
async function atStripe<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw new AppError('bad_gateway', `Stripe refused to ${what}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

export const stripePages = (baseUrl: string) => ({
  returnUrl: `${baseUrl}/portal/payouts/stripe/return`,
  refreshUrl: `${baseUrl}/portal/payouts/stripe/refresh`,
});

/**
 * Sets the partner's payout method. Answers the method, for Stripe with `onboardingUrl`. Choosing
 * what is already chosen changes nothing (no hold, no email); Stripe then answers a fresh link.
 */
export async function setPayoutMethod(
  ctx: AppContext,
  input: { partnerId: string; choice: MethodChoice; actor: string; own: boolean },
): Promise<PayoutMethod & { onboardingUrl?: string }> {
  const { choice } = input;
  const needsEmail = choice.type === 'paypal' || choice.type === 'wise';
  if (needsEmail && !choice.email) refuse('email', `required for ${choice.type}: the ${LABELS[choice.type]} account to pay`);
  if (!needsEmail && choice.email !== undefined) refuse('email', `only paypal and wise take an email (type is ${choice.type})`);
  const email = needsEmail ? choice.email!.trim().toLowerCase() : null;

  const [partner] = await ctx.sql<{ id: string; name: string; email: string }[]>`select id, name, email from partners where id = ${input.partnerId}`;
  if (!partner) throw notFound('partner');
  const before = await methodRow(ctx.sql, partner.id);

  let accountId: string | null = null;
  let ready = true;
  let onboardingUrl: string | null = null;
  if (choice.type === 'stripe') {
    const connect = connectOf(ctx);
    accountId = before?.stripe_account_id ?? (await atStripe('open an Express account', () => connect.createAccount({ partnerId: partner.id, email: partner.email })));
    ready = before?.stripe_account_id ? await atStripe('read the account', () => connect.payoutsEnabled(accountId!)) : false;
    onboardingUrl = await atStripe('make an onboarding link', () => connect.onboardingLink({ accountId: accountId!, ...stripePages(ctx.config.baseUrl) }));
  }

  const row = await ctx.sql.begin(async (tx) => {
    const current = await methodRow(tx, partner.id, true);
    const same = current && current.type === choice.type && current.email === email && (choice.type !== 'stripe' || current.stripe_account_id === accountId);
    if (same) {
      if (choice.type === 'stripe' && current.ready !== ready) await setAccountReady(tx, accountId!, ready);
      return { ...current, ready: choice.type === 'stripe' ? ready : current.ready };
    }
    const saved = await saveMethod(tx, {
      partnerId: partner.id,
      type: choice.type,
      email,
      stripeAccountId: accountId,
      ready,
      holdHours: ctx.config.payoutMethodHoldHours,
      actor: input.actor,
    });
    const data = { partnerName: partner.name, before: describe(current), after: describe(saved), heldUntil: saved.held_until?.toISOString() ?? null };
    const to = new Set([partner.email.toLowerCase()]);
    if (current?.email) to.add(current.email.toLowerCase());
    for (const address of to) await enqueueEmail(tx, { template: 'payout_method_changed', to: address, data, partnerId: partner.id });
    return saved;
  });
  const view = methodView(row, input.own);
  return onboardingUrl ? { onboardingUrl, ...view } : view;
}

/** Asks Stripe whether the partner's account can receive payouts now (the onboarding return page). */
export async function refreshStripeReadiness(ctx: AppContext, partnerId: string): Promise<PayoutMethod> {
  const row = await methodRow(ctx.sql, partnerId);
  if (!row || row.type !== 'stripe' || !row.stripe_account_id) return methodView(row, true);
  const ready = await atStripe('read the account', () => connectOf(ctx).payoutsEnabled(row.stripe_account_id!));
  await ctx.sql.begin((tx) => setAccountReady(tx, row.stripe_account_id!, ready));
  return methodView({ ...row, ready }, true);
}

/** A fresh onboarding link for the partner's account (the refresh page: Stripe's links expire). */
export async function stripeOnboardingLink(ctx: AppContext, partnerId: string): Promise<string | null> {
  const row = await methodRow(ctx.sql, partnerId);
  if (!row || row.type !== 'stripe' || !row.stripe_account_id) return null;
  return atStripe('make an onboarding link', () => connectOf(ctx).onboardingLink({ accountId: row.stripe_account_id!, ...stripePages(ctx.config.baseUrl) }));
}
