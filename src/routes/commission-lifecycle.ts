// POST /v1/commissions/:id/approve and /reverse (commissions:write or admin).
import { Elysia } from 'elysia';
import type { AppContext } from '../context';
import { authPlugin } from '../modules/auth/plugin';
import { actorOf, approveCommission, reverseCommission } from '../modules/commissions/lifecycle';
import { CommissionParams, CommissionResponses, ReverseBody } from '../modules/commissions/model';


export function commissionLifecycleRoutes(ctx: AppContext) {
  return new Elysia({ tags: ['Commissions'] })
    .use(authPlugin(ctx))
    .post('/commissions/:id/approve', ({ params, principal }) => approveCommission(ctx.sql, { id: params.id, actor: actorOf(principal) }), {
      auth: 'commissions:write',
      params: CommissionParams,
      response: CommissionResponses.approve,
      detail: { summary: 'Approve an accrued commission before its holdback ends' },
    })
    .post(
      '/commissions/:id/reverse',
      ({ params, body, principal }) =>
        reverseCommission(ctx.sql, { id: params.id, actor: actorOf(principal), reason: body.reason.trim() }),
      {
        auth: 'commissions:write',
        params: CommissionParams,
        body: ReverseBody,
        response: CommissionResponses.reverse,
        detail: { summary: 'Reverse a commission (a paid one opens a clawback netted in the next payout)' },
      },
    );
}
