// The admin audit log: the list with its filters and keyset pages (list.tsx), and the same filtered
// entries as a streamed CSV. Owners and admins only (the `audit:read` scope, PAGE_SECTIONS); the
// entries are written by modules/audit, read by modules/audit/list.ts.
import { Elysia } from 'elysia';
import type { AppContext } from '../../../context';
import { csvResponse } from '../../../lib/csv';
import { auditCsv } from '../../../modules/audit/csv';
import { auditActions, listAuditLog } from '../../../modules/audit/list';
import { auditNames } from '../../../modules/audit/names';
import { paginate } from '../../../lib/http';
import { render } from '../../render';
import type { AdminKit } from '../kit';
import { AUDIT } from '../kit/audit';
import { AuditQuery, PAGE_SIZE, readView, viewOf } from './filter';
import { auditView } from './list';

export function auditRoutes(ctx: AppContext, kit: AdminKit) {
  return new Elysia({ detail: { hide: true } })
    .get(
      AUDIT,
      ({ request, query }) =>
        kit.page(request, async (page) => {
          const view = viewOf(query);
          const cursor = query.cursor?.trim() || undefined;
          const { filter, errors } = readView(view, cursor);
          const [rows, actions, newest] = await Promise.all([
            filter ? listAuditLog(ctx.sql, { ...filter, limit: PAGE_SIZE }) : Promise.resolve([]),
            auditActions(ctx.sql),
            // limit 0 answers its one look-ahead row: whether the log holds anything at all
            listAuditLog(ctx.sql, { limit: 0 }),
          ]);
          const { items, nextCursor } = paginate(rows, PAGE_SIZE);
          const names = await auditNames(ctx.sql, items);
          const props = { page, entries: items, names, any: newest.length > 0, actions, view, errors, cursor: filter ? cursor : undefined, nextCursor };
          return render(auditView(props), { status: filter ? 200 : 400 });
        }),
      { query: AuditQuery },
    )
    .get(
      `${AUDIT}.csv`,
      ({ request, query }) =>
        kit.page(request, async (page) => {
          const { filter, errors } = readView(viewOf(query), undefined);
          if (!filter) {
            const props = { page, entries: [], names: new Map(), any: true, actions: await auditActions(ctx.sql), view: viewOf(query), errors, nextCursor: null };
            return render(auditView(props), { status: 400 });
          }
          return csvResponse(auditCsv(ctx.sql, filter), 'audit-log.csv');
        }),
      { query: AuditQuery },
    );
}
