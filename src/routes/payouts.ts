// Payout routes: run, list, detail, mark-paid / mark-failed, CSV export. Partner keys see their own.
import { Elysia } from 'elysia';
import type { AppContext } from '../context';
import { AppError, forbidden, notFound } from '../lib/errors';
import { paginate, readPage } from '../lib/http';
import { runPayouts, throwIfLocked } from '../workflows/run-payouts';
import { authPlugin, ownPartnerId, requirePartner } from '../modules/auth/plugin';
import type { Principal } from '../modules/auth/scopes';
import { actorOf } from '../modules/commissions/lifecycle';
import { CsvAnswer, CsvQuery, FailBody, ListPayoutsQuery, PaidBody, PayoutParams, PayoutResponses, SettleBody } from '../modules/payouts/model';
import { findPayoutRow, listPayouts, payoutDetail, payoutsCsv, type PayoutFilter } from '../modules/payouts/service';
import { markPayoutFailed, markPayoutPaid, settlePayouts } from '../modules/payouts/settle';
import { uploadCsv } from '../modules/payouts/uploads';

/** The filter as asked, narrowed to the caller's own partner for partner principals. */
function scopedFilter(principal: Principal, query: { partnerId?: string; status?: PayoutFilter['status']; currency?: string }): PayoutFilter {
  const own = ownPartnerId(principal);
  if (own && query.partnerId && query.partnerId !== own) throw forbidden('partners may only access their own data');
  return { partnerId: own ?? query.partnerId, status: query.status, currency: query.currency?.toUpperCase() };
}

export function payoutRoutes(ctx: AppContext) {
  return new Elysia({ tags: ['Payouts'] })
    .use(authPlugin(ctx))
    .post(
      '/payouts/run',
      async ({ principal }) => {
        const created = throwIfLocked(await runPayouts(ctx, { actor: actorOf(principal) }));
        return { payouts: created };
      },
      { auth: 'payouts:write', response: PayoutResponses.run, detail: { summary: 'Run payouts now; answers the payouts this run created' } },
    )
    .get(
      '/payouts',
      async ({ query, principal }) => {
        const page = readPage(query, 'payout');
        const filter = scopedFilter(principal, query);
        const { items, nextCursor } = paginate(await listPayouts(ctx.sql, { ...filter, ...page }), page.limit);
        return { payouts: items, nextCursor };
      },
      {
        auth: { scope: 'payouts:read', partner: true },
        query: ListPayoutsQuery,
        response: PayoutResponses.list,
        detail: { summary: 'List payouts, newest first' },
      },
    )
    .get(
      '/payouts.csv',
      async ({ query, principal }) => {
        const filter = scopedFilter(principal, query);
        // the history export is a report read (the replica's when it is current); the upload files a
        // payout is paid from read the primary, so a payout made a moment ago is in them
        const body = query.format ? uploadCsv(ctx.sql, query.format, filter) : payoutsCsv(await ctx.reads.sql(), filter);
        return new Response(body, {
          headers: {
            'content-type': 'text/csv; charset=utf-8',
            'content-disposition': `attachment; filename="${query.format ? `payouts-${query.format}` : 'payouts'}.csv"`,
          },
        });
      },
      {
        auth: { scope: 'payouts:read', partner: true },
        query: CsvQuery,
        // a Response (a stream) passes by the answer schemas: its answers are written out by hand
        detail: { summary: 'Payouts as CSV, one row per payout', responses: CsvAnswer },
      },
    )
    .get(
      '/payouts/:id',
      async ({ params, principal }) => {
        const row = await findPayoutRow(ctx.sql, params.id);
        if (!row) throw notFound('payout');
        requirePartner(principal, row.partner_id);
        return payoutDetail(ctx.sql, row);
      },
      {
        auth: { scope: 'payouts:read', partner: true },
        params: PayoutParams,
        response: PayoutResponses.get,
        detail: { summary: 'A payout with its commissions and clawback lines' },
      },
    )
    .post(
      '/payouts/:id/mark-paid',
      ({ params, body, principal }) => markPayoutPaid(ctx.sql, { id: params.id, actor: actorOf(principal), reference: body?.reference, invoicePrefix: ctx.config.invoicePrefix }),
      {
        auth: 'payouts:write',
        params: PayoutParams,
        body: PaidBody,
        response: PayoutResponses.markPaid,
        detail: { summary: 'Record that a pending payout was paid' },
      },
    )
    .post(
      '/payouts/settle',
      async ({ body, principal }) => {
        const settlements = body.payouts.map((p, i) => {
          if (p.status === 'paid') {
            if (p.reason !== undefined) throw new AppError('invalid_body', `payouts/${i}/reason: only a failed payout has a reason`, [{ field: `payouts/${i}/reason`, message: 'only for status failed' }]);
            return { id: p.id, status: 'paid' as const, reference: p.reference, invoicePrefix: ctx.config.invoicePrefix };
          }
          if (!p.reason) throw new AppError('invalid_body', `payouts/${i}/reason: required when status is failed`, [{ field: `payouts/${i}/reason`, message: 'required when status is failed' }]);
          return { id: p.id, status: 'failed' as const, reason: p.reason.trim() };
        });
        return { payouts: await settlePayouts(ctx.sql, settlements, actorOf(principal)) };
      },
      {
        auth: 'payouts:write',
        body: SettleBody,
        response: PayoutResponses.settle,
        detail: {
          summary: 'Settle many payouts at once (all or nothing)',
          description:
            'Each pending or processing payout becomes paid (optional `reference`) or failed (`reason` required; its commissions become payable again). ' +
            'One that is not pending or processing is a 409 naming the first such payout; an unknown id a 404; then nothing changes.',
        },
      },
    )
    .post(
      '/payouts/:id/mark-failed',
      ({ params, body, principal }) => markPayoutFailed(ctx.sql, { id: params.id, actor: actorOf(principal), reason: body.reason.trim() }),
      {
        auth: 'payouts:write',
        params: PayoutParams,
        body: FailBody,
        response: PayoutResponses.markFailed,
        detail: { summary: 'Record that a pending payout failed; its commissions become payable again' },
      },
    );
}
