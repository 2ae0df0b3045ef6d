// Request and response schemas of GET/PUT /v1/partners/:id/payout-method.
import { t } from 'elysia';
import { errors, Timestamp } from '../../lib/http';
import { RAIL_NAMES } from '../../../plugins/payouts';

export const PayoutMethodView = t.Object({
  type: t.Union([t.Literal('stripe'), t.Literal('paypal'), t.Literal('wise'), t.Literal('manual'), t.Null()], { description: 'How the partner is paid; null: never chosen (paid by hand).' }),
  email: t.Optional(
    t.String({ description: 'paypal, wise: the receiving account. Masked (a***@example.com) for anyone but the partner.', examples: ['ada@example.com'] }),
  ),
  stripeAccountId: t.Optional(t.String({ description: 'stripe: the Express account.', examples: ['acct_1QabcdEFGH'] })),
  ready: t.Boolean({ description: 'Whether payouts can go out this way now (stripe: the account reports payouts_enabled).' }),
  changedAt: t.Nullable(Timestamp),
  heldUntil: t.Nullable(t.String({ format: 'date-time', description: 'Payouts wait until then after a change (PAYOUT_METHOD_HOLD_HOURS); null: not held.' })),
});

export const PutPayoutMethodBody = t.Object({
  type: t.UnionEnum(RAIL_NAMES, { description: 'stripe answers an onboarding URL; paypal and wise need `email`.' }),
  email: t.Optional(t.String({ format: 'email', maxLength: 254, description: 'paypal, wise: the receiving account.' })),
});

/** The method as set; for stripe with the onboarding link to send the partner to. */
export const PayoutMethodSet = t.Object({
  onboardingUrl: t.Optional(
    t.String({ description: "type stripe: Stripe's Express onboarding for the partner; it comes back to /portal/payouts/stripe/return (or /refresh when the link expired)." }),
  ),
  ...PayoutMethodView.properties,
});

export const PayoutMethodResponses = {
  get: { 200: PayoutMethodView, ...errors(400, 401, 403, 404) },
  put: { 200: PayoutMethodSet, ...errors(400, 401, 403, 404, 409, 413, 502) },
};
