// GET /v1/tax/1099-nec.csv?year=YYYY: the year's 1099-NEC figures with full TINs (admin key or the
// tax:read scope). The one place a TIN leaves the service; every download is logged.
import { Elysia } from 'elysia';
import type { AppContext } from '../context';
import { csvCell } from '../lib/csv';
import { AppError, invalidField } from '../lib/errors';
import { authPlugin } from '../modules/auth/plugin';
import { actorOf } from '../modules/commissions/lifecycle';
import { NecCsvAnswer, NecQuery } from '../modules/tax/model';
import { NEC_COLUMNS, necRows } from '../modules/tax/nec';
import { recordTaxExport } from '../modules/tax/service';

export function taxExportRoutes(ctx: AppContext) {
  return new Elysia({ tags: ['Tax'] })
    .use(authPlugin(ctx))
    .get(
      '/tax/1099-nec.csv',
      async ({ query, principal }) => {
        const year = Number(query.year);
        if (year < 2000 || year > new Date().getUTCFullYear()) throw invalidField('year', `must be a year from 2000 to ${new Date().getUTCFullYear()}`, 'invalid_query');
        if (!ctx.config.encryption) throw new AppError('conflict', 'tax ids cannot be read: ENCRYPTION_KEY is not set in the service\'s environment');
        const rows = await necRows(ctx.sql, ctx.config.encryption, year);
        ctx.log.info('tax.exported', { actor: actorOf(principal), form: '1099-nec', year, rows: rows.length });
        await recordTaxExport(ctx.sql, { form: '1099-nec', year, rows: rows.length });
        const body = [NEC_COLUMNS, ...rows].map((r) => r.map(csvCell).join(',')).join('\r\n') + '\r\n';
        return new Response(body, {
          headers: {
            'content-type': 'text/csv; charset=utf-8',
            'content-disposition': `attachment; filename="1099-nec-${year}.csv"`,
            'cache-control': 'no-store',
          },
        });
      },
      { auth: 'tax:read', query: NecQuery, detail: { summary: 'The 1099-NEC figures of a calendar year, as CSV', responses: NecCsvAnswer } },
    );
}
