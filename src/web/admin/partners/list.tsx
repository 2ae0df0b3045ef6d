// Admin partners: the list (GET /admin/partners), its CSV export and the create form's post.
import { Elysia, t } from 'elysia';
import type { AppContext } from '../../../context';
import { AppError } from '../../../lib/errors';
import { formatMinor } from '../../../lib/money';
import { listCampaigns } from '../../../modules/campaigns/service';
import { Email, Name } from '../../../lib/fields';
import { createPartner } from '../../../workflows/invite-partner';
import { moneyCurrencies, partnerStats, type PartnerStatsRow } from '../../../modules/reports/partners';
import { csvResponse, csvStream } from '../../../lib/csv';
import { formErrors, formList, schemaErrors, type FormErrors } from '../../forms';
import { render, seeOther } from '../../render';
import type { AdminPage } from '../../session';
import { type AdminKit } from '../kit';
import { type CreateValues, LIST, ListQuery, PAGE_SIZE, allGroups, bulkOutcome, detailPath, readList } from './shared';
import { PartnersPage } from './list-page';

export async function listView(ctx: AppContext, page: AdminPage, query: Record<string, string | undefined>, input: { values?: CreateValues; errors?: FormErrors; outcome?: { ok?: string; error?: string } } = {}) {
  // the partners' figures are report reads: the replica's when it is current
  const reads = await ctx.reads.sql();
  const [currencies, groups] = await Promise.all([moneyCurrencies(reads), allGroups(ctx)]);
  const state = readList(query, currencies, groups);
  const [stats, campaigns] = await Promise.all([
    partnerStats(reads, {
      search: state.q || undefined,
      status: state.status,
      group: state.group,
      span: state.range,
      currency: state.currency,
      sort: state.sort,
      limit: PAGE_SIZE,
      offset: (state.page - 1) * PAGE_SIZE,
    }),
    listCampaigns(ctx.sql, { limit: 500, archived: false }),
  ]);
  return (
    <PartnersPage
      page={page}
      state={state}
      rows={stats.rows}
      total={stats.total}
      campaigns={campaigns.slice(0, 500).map((c) => ({ id: c.id, name: c.name }))}
      values={input.values}
      errors={input.errors}
      done={query.done}
      outcome={input.outcome ?? bulkOutcome(query)}
    />
  ) as string;
}

export function listRoutes(ctx: AppContext, kit: AdminKit) {
  return new Elysia({ detail: { hide: true } })
    .get(LIST, ({ request, query }) => kit.page(request, async (page) => render(await listView(ctx, page, query))), { query: ListQuery })
    .get(
      `${LIST}.csv`,
      ({ request, query }) =>
        kit.page(request, async () => {
          const state = readList(query, await ctx.reads.run(moneyCurrencies), await allGroups(ctx));
          let offset = 0;
          const stream = csvStream<PartnerStatsRow>({
            header: CSV_HEADER,
            pageSize: 500,
            page: async (_after, limit) => {
              // each page a report read of its own: a replica gone since its last check costs a retry on the primary, not the export
              const { rows } = await ctx.reads.run((reads) => partnerStats(reads, { search: state.q || undefined, status: state.status, group: state.group, span: state.range, currency: state.currency, sort: state.sort, limit, offset }));
              offset += rows.length;
              return rows;
            },
            cells: (r) => [
              r.id,
              r.name,
              r.email,
              r.status,
              r.createdAt.toISOString(),
              r.activatedAt?.toISOString() ?? '',
              r.revokedAt?.toISOString() ?? '',
              r.billingConnectAccountId ?? '',
              state.range.start?.toISOString() ?? '',
              state.range.end.toISOString(),
              r.clicks,
              r.filteredClicks,
              r.convertedClicks,
              r.conversions,
              state.currency,
              formatMinor(r.revenue, state.currency),
              formatMinor(r.commissions, state.currency),
            ],
          });
          return csvResponse(stream, 'partners.csv');
        }),
      { query: ListQuery },
    )
    .post(LIST, ({ request, body }) =>
      kit.form(request, body, LIST, async (page, form) => {
        const values: CreateValues = {
          name: (form.name ?? '').trim(),
          email: (form.email ?? '').trim(),
          sendInvite: form.sendInvite === 'on' ? 'on' : '',
          campaignIds: form.campaignsShown === '1' ? formList(body, 'campaignIds') : undefined,
        };
        const errors = schemaErrors(t.Object({ email: Email, name: Name }), { email: values.email, name: values.name });
        if (Object.keys(errors).length > 0) return render(await listView(ctx, page, {}, { values, errors }), { status: 400 });
        try {
          const partner = await createPartner(ctx, { email: values.email, name: values.name, sendInvite: values.sendInvite === 'on', campaignIds: values.campaignIds });
          return seeOther(`${detailPath(partner.id)}?done=created`);
        } catch (error) {
          const problems = formErrors(error, ['email', 'name', 'campaignIds']);
          if (!problems) throw error;
          // the one conflict here is an email already taken: say it beside the email field
          if (problems._form && error instanceof AppError && error.code === 'conflict') {
            problems.email = problems._form;
            delete problems._form;
          }
          return render(await listView(ctx, page, {}, { values, errors: problems }), { status: (error as AppError).status });
        }
      }),
    );
}

const CSV_HEADER = [
  'id',
  'name',
  'email',
  'status',
  'createdAt',
  'activatedAt',
  'revokedAt',
  'billingConnectAccountId',
  'rangeStart',
  'rangeEnd',
  'clicks',
  'filteredClicks',
  'convertedClicks',
  'conversions',
  'currency',
  'revenue',
  'commissions',
] as const;
