// Commission read routes: GET /v1/commissions (filters), GET /v1/commissions/:id and its history.
import { Elysia } from 'elysia';
import type { AppContext } from '../context';
import { invalidField } from '../lib/errors';
import { paginate, readPage } from '../lib/http';
import { authPlugin, ownPartnerId, requirePartner } from '../modules/auth/plugin';
import { CommissionParams, CommissionResponses, ListCommissionsQuery } from '../modules/commissions/model';
import { commissionHistories } from '../modules/commissions/history';
import { getCommission, listCommissions } from '../modules/commissions/service';

function timeParam(value: string | undefined, field: string): Date | undefined {
  if (value === undefined) return undefined;
  const time = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(time)) throw invalidField(field, 'must be an ISO 8601 timestamp', 'invalid_query');
  return new Date(time);
}

export function commissionRoutes(ctx: AppContext) {
  return new Elysia({ tags: ['Commissions'] })
    .use(authPlugin(ctx))
    .get(
      '/commissions',
      async ({ query, principal }) => {
        const page = readPage(query, 'commission');
        // partner keys see their own commissions only; naming another partner is a 403
        if (query.partnerId !== undefined) requirePartner(principal, query.partnerId);
        const partnerId = ownPartnerId(principal) ?? query.partnerId;
        const rows = await listCommissions(ctx.sql, {
          ...page,
          status: query.status,
          partnerId,
          campaignId: query.campaignId,
          from: timeParam(query.from, 'from'),
          to: timeParam(query.to, 'to'),
          occurredFrom: timeParam(query.occurredFrom, 'occurredFrom'),
          occurredTo: timeParam(query.occurredTo, 'occurredTo'),
          flagged: query.flagged === undefined ? undefined : query.flagged === 'true',
        });
        const { items, nextCursor } = paginate(rows, page.limit);
        return { commissions: items, nextCursor };
      },
      {
        auth: { scope: 'commissions:read', partner: true },
        query: ListCommissionsQuery,
        response: CommissionResponses.list,
        detail: { summary: 'List commissions, newest first' },
      },
    )
    .get(
      '/commissions/:id',
      async ({ params, principal }) => {
        const commission = await getCommission(ctx.sql, params.id);
        requirePartner(principal, commission.partnerId);
        return commission;
      },
      {
        auth: { scope: 'commissions:read', partner: true },
        params: CommissionParams,
        response: CommissionResponses.get,
        detail: { summary: 'Get a commission' },
      },
    )
    .get(
      '/commissions/:id/history',
      async ({ params, principal }) => {
        const commission = await getCommission(ctx.sql, params.id);
        requirePartner(principal, commission.partnerId);
        const entries = (await commissionHistories(ctx.sql, [commission.id], () => commission.currency)).get(commission.id)!;
        const accrued = entries.find((e) => e.change === 'amount')?.amountBefore ?? commission.amount;
        // partners see what happened, not which admin or key did it
        const shown = principal.kind === 'partner' ? entries.map((e) => ({ ...e, actor: null })) : entries;
        return { commissionId: commission.id, currency: commission.currency, accruedAmount: accrued, amount: commission.amount, entries: shown };
      },
      {
        auth: { scope: 'commissions:read', partner: true },
        params: CommissionParams,
        response: CommissionResponses.history,
        detail: { summary: "A commission's history: status moves and amount changes (partial refunds), oldest first" },
      },
    );
}
