// Commission read routes: GET /v1/commissions (filters) and GET /v1/commissions/:id.
import { Elysia, t } from 'elysia';
import type { AppContext } from '../../context';
import { invalidField } from '../../lib/errors';
import { PageQuery, paginate, QueryEnum, readPage } from '../../lib/http';
import { authPlugin, ownPartnerId, requirePartner } from '../auth/plugin';
import { COMMISSION_STATUSES, getCommission, listCommissions } from './service';

// ids only: anything else (a NUL, say) is a 400 rather than a database error
const IdText = t.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' });

const ListCommissionsQuery = t.Object({
  status: QueryEnum(COMMISSION_STATUSES),
  partnerId: t.Optional(IdText),
  campaignId: t.Optional(IdText),
  from: t.Optional(t.String({ maxLength: 40, description: 'createdAt at or after (ISO 8601).' })),
  to: t.Optional(t.String({ maxLength: 40, description: 'createdAt before (ISO 8601).' })),
  ...PageQuery,
});

function timeParam(value: string | undefined, field: string): Date | undefined {
  if (value === undefined) return undefined;
  const time = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(time)) throw invalidField(field, 'must be an ISO 8601 timestamp', 'invalid_query');
  return new Date(time);
}

export function commissionRoutes(ctx: AppContext) {
  return new Elysia({ tags: ['Commissions'] } as never)
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
        });
        const { items, nextCursor } = paginate(rows, page.limit);
        return { commissions: items, nextCursor };
      },
      { auth: { scope: 'commissions:read', partner: true }, query: ListCommissionsQuery, detail: { summary: 'List commissions, newest first' } },
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
        params: t.Object({ id: IdText }),
        detail: { summary: 'Get a commission' },
      },
    );
}
