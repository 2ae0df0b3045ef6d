// Routes of the admin's 1099 page: /admin/tax (a year's payees) and /admin/tax.csv (the year's
// 1099-NEC file, the same export as GET /v1/tax/1099-nec.csv, written to the audit log with it).
import { Elysia } from 'elysia';
import type { AppContext } from '../../../context';
import { AppError } from '../../../lib/errors';
import { exportNecCsv, necPayees } from '../../../modules/tax/nec';
import { render } from '../../render';
import { refused, type AdminKit } from '../kit';
import { TAX, TAX_CSV, TaxPage } from './page';

const FIRST_YEAR = 2000;

/** The year asked for: a whole year from 2000 to this one; blank is this year. */
function parseYear(raw: unknown): { year: number; error?: string } {
  const now = new Date().getUTCFullYear();
  if (raw === undefined || raw === '') return { year: now };
  const text = String(raw);
  const year = /^\d{4}$/.test(text) ? Number(text) : NaN;
  if (year >= FIRST_YEAR && year <= now) return { year };
  return { year: now, error: `a year from ${FIRST_YEAR} to ${now}` };
}

export function adminTaxRoutes(ctx: AppContext, kit: AdminKit) {
  return new Elysia({ detail: { hide: true } })
    .get(TAX, ({ request, query }) =>
      kit.page(request, async (page) => {
        const { year, error } = parseYear((query as Record<string, unknown>).year);
        const now = new Date().getUTCFullYear();
        const years = Array.from({ length: now - FIRST_YEAR + 1 }, (_, i) => now - i);
        const payees = await necPayees(ctx.sql, year);
        return render(<TaxPage page={page} year={year} years={years} payees={payees} yearError={error} keyOn={ctx.config.encryption !== null} />, { status: error ? 400 : 200 });
      }),
    )
    .get(TAX_CSV, ({ request, query }) =>
      kit.page(request, async () => {
        const { year, error } = parseYear((query as Record<string, unknown>).year);
        try {
          if (error) throw new AppError('invalid_query', `year: must be ${error}`);
          if (!ctx.config.encryption) throw new AppError('conflict', "tax ids cannot be read: ENCRYPTION_KEY is not set in the service's environment");
          const { csv } = await exportNecCsv(ctx.sql, ctx.config.encryption, year);
          return new Response(csv, {
            headers: { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': `attachment; filename="1099-nec-${year}.csv"`, 'cache-control': 'no-store' },
          });
        } catch (e) {
          return refused(e, TAX);
        }
      }),
    );
}
