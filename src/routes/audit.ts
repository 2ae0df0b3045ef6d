// GET /v1/audit-log: who changed what, newest first (admin key or session, or a key with audit:read).
import { Elysia } from 'elysia';
import type { AppContext } from '../context';
import { invalidFields } from '../lib/errors';
import { paginate, readPage } from '../lib/http';
import { listAuditLog, readAuditFilter } from '../modules/audit/list';
import { AuditResponses, ListAuditQuery } from '../modules/audit/model';
import { authPlugin } from '../modules/auth/plugin';

export function auditRoutes(ctx: AppContext) {
  return new Elysia({ tags: ['Audit log'] }).use(authPlugin(ctx)).get(
    '/audit-log',
    async ({ query, request }) => {
      // strict: a misspelt filter is a 400, never a silently wider list
      const unknown = [...new URL(request.url).searchParams.keys()].filter((name) => !(name in ListAuditQuery.properties));
      if (unknown.length > 0) throw invalidFields(unknown.map((field) => ({ field, message: 'is not a filter of this list' })), 'invalid_query');
      const page = readPage(query, 'audit');
      const filter = readAuditFilter(query);
      const { items, nextCursor } = paginate(await listAuditLog(ctx.sql, { ...filter, ...page }), page.limit);
      return { entries: items, nextCursor };
    },
    {
      auth: 'audit:read',
      query: ListAuditQuery,
      response: AuditResponses.list,
      detail: { summary: 'The audit log: every change, who made it, when and from where, newest first' },
    },
  );
}
