// GET/PUT /v1/partners/:id/payout-method: how a partner is paid. A partner (key or session) reads and
// sets its own; the admin key or partners:write sets anyone's, partners:read reads anyone's with the
// email masked.
import { Elysia } from 'elysia';
import type { AppContext } from '../context';
import { notFound } from '../lib/errors';
import { authPlugin, requirePartner } from '../modules/auth/plugin';
import { actorOf } from '../modules/commissions/lifecycle';
import { PartnerParams } from '../modules/partners/model';
import { PayoutMethodResponses, PutPayoutMethodBody } from '../modules/payouts/method-model';
import { methodRow, methodView } from '../modules/payouts/methods';
import { setPayoutMethod } from '../workflows/payout-method';

export function payoutMethodRoutes(ctx: AppContext) {
  return new Elysia({ tags: ['Partners'] })
    .use(authPlugin(ctx))
    .get(
      '/partners/:id/payout-method',
      async ({ params, principal }) => {
        requirePartner(principal, params.id);
        const [partner] = await ctx.sql`select 1 from partners where id = ${params.id}`;
        if (!partner) throw notFound('partner');
        return methodView(await methodRow(ctx.sql, params.id), principal.kind === 'partner');
      },
      {
        auth: { scope: 'partners:read', partner: true },
        params: PartnerParams,
        response: PayoutMethodResponses.get,
        detail: { summary: "How a partner is paid", description: 'The email is masked for anyone but the partner itself.' },
      },
    )
    .put(
      '/partners/:id/payout-method',
      async ({ params, body, principal }) => {
        requirePartner(principal, params.id);
        return setPayoutMethod(ctx, { partnerId: params.id, choice: body, actor: actorOf(principal), own: principal.kind === 'partner' });
      },
      {
        auth: { scope: 'partners:write', partner: true },
        params: PartnerParams,
        body: PutPayoutMethodBody,
        response: PayoutMethodResponses.put,
        detail: {
          summary: "Set how a partner is paid",
          description:
            '`{type: "paypal"|"wise", email}`, `{type: "manual"}` or `{type: "stripe"}` (answers `{onboardingUrl}`: Stripe Express onboarding). ' +
            "A change emails the partner (and the address the money used to go to) and holds the partner's payouts for PAYOUT_METHOD_HOLD_HOURS.",
        },
      },
    );
}
