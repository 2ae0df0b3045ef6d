// Admin partners: one partner's page (GET /admin/partners/:id).
import { methodRow, methodView } from '../../../modules/payouts/methods';
import { Elysia } from 'elysia';
import type { AppContext } from '../../../context';
import { listCampaigns } from '../../../modules/campaigns/service';
import { listCommissions } from '../../../modules/commissions/service';
import { findPartner, type Partner } from '../../../modules/partners/service';
import { overrideRecruits, recruitsOf } from '../../../modules/reports/rewards';
import { listPayouts } from '../../../modules/payouts/service';
import { linkStats, moneyCurrencies, partnerCounts, partnerMainCurrency, partnerMoney, referredCustomers } from '../../../modules/reports/partners';
import { partnerFlagHistory } from '../../../modules/fraud/review';
import { convertDayMoney } from '../../../modules/fx/service';
import { funnel } from '../../../modules/reports/funnel';
import { type FormErrors } from '../../forms';
import { parseRange, rangeQuery } from '../../range';
import { render } from '../../render';
import type { AdminPage } from '../../session';
import { parsePage } from '../../ui';
import { campaignNames, NotFoundPage, type AdminKit } from '../kit';
import { loadHistory } from '../kit/audit';
import { loadCodes } from '../codes';
import { CUSTOMERS_PAGE, DetailQuery, type EditValues, LINKS_SHOWN, LIST, Params, RECRUITS_SHOWN, allGroups } from './shared';
import { PartnerDetailPage } from './detail-page';
import { applicationQuestions } from '../../../modules/settings/service';
import { taxFormStatuses } from '../../../modules/tax/service';

export async function detailView(
  ctx: AppContext,
  page: AdminPage,
  partner: Partner,
  query: Record<string, string | undefined>,
  input: { errors?: FormErrors; reason?: string; edit?: EditValues; openRevoke?: boolean } = {},
) {
  const range = parseRange(query);
  // the figures (cards, money, links, customers) are report reads: the replica's when it is current
  const reads = await ctx.reads.sql();
  const [currencies, own] = await Promise.all([moneyCurrencies(reads), partnerMainCurrency(reads, partner.id)]);
  const currency = currencies.find((c) => c === query.currency) ?? own ?? currencies[0] ?? 'USD';
  const { page: customerPage, offset } = parsePage(query, CUSTOMERS_PAGE);
  const p = { limit: 50 };
  const [partnerFunnel, counts, money, links, customers, commissions, payouts, names, live, codes, flags, groups, recruits, recruiter, questions, history] = await Promise.all([
    funnel(reads, { partnerId: partner.id }, range),
    partnerCounts(reads, { partnerId: partner.id, span: range, previous: range.previous }),
    partnerMoney(reads, { partnerId: partner.id, span: range }),
    linkStats(reads, { partnerId: partner.id, span: range, currency, limit: LINKS_SHOWN }),
    referredCustomers(reads, { partnerId: partner.id, currency, limit: CUSTOMERS_PAGE, offset }),
    listCommissions(ctx.sql, { ...p, partnerId: partner.id }),
    listPayouts(ctx.sql, { ...p, partnerId: partner.id }),
    campaignNames(ctx),
    listCampaigns(ctx.sql, { limit: 500, archived: false }),
    loadCodes(ctx, { partnerId: partner.id }),
    partnerFlagHistory(ctx.sql, partner.id),
    allGroups(ctx),
    recruitsOf(ctx.sql, { recruiterId: partner.id, limit: RECRUITS_SHOWN }),
    partner.referredBy ? findPartner(ctx.sql, partner.referredBy) : Promise.resolve(null),
    applicationQuestions(ctx.sql),
    loadHistory(ctx, page, partner.id),
  ]);
  const to = ctx.config.reportingCurrency;
  const converted = to ? await convertDayMoney(ctx.sql, to, partnerFunnel.daily) : null;
  const [method, taxForms] = await Promise.all([methodRow(ctx.sql, partner.id), taxFormStatuses(ctx.sql, [partner.id])]);
  const payoutMethod = methodView(method, true);
  const overrides = await overrideRecruits(ctx.sql, commissions.filter((c) => c.sourceCommissionId).map((c) => c.id));
  const kept = { ...rangeQuery(range), currency: query.currency && currency === query.currency ? currency : undefined };
  return (
    <PartnerDetailPage
      page={page}
      partner={partner}
      range={range}
      currency={currency}
      currencies={currencies}
      kept={kept}
      counts={counts}
      money={money}
      funnel={partnerFunnel}
      converted={converted}
      links={links}
      customers={customers}
      customerPage={customerPage}
      commissions={commissions.slice(0, p.limit)}
      payouts={payouts.slice(0, p.limit)}
      payoutMethod={payoutMethod}
      taxForm={taxForms.get(partner.id) ?? null}
      campaigns={names}
      liveCampaigns={live.slice(0, 500).map((c) => ({ id: c.id, name: c.name }))}
      baseUrl={ctx.config.baseUrl}
      done={query.done}
      errors={input.errors}
      reason={input.reason}
      edit={input.edit}
      codes={codes}
      flags={flags}
      groups={groups}
      recruits={recruits}
      recruiter={recruiter}
      overrides={overrides}
      questions={questions}
      history={history}
    />
  ) as string;
}

export function detailRoutes(ctx: AppContext, kit: AdminKit) {
  return new Elysia({ detail: { hide: true } })
    .get(
      `${LIST}/:id`,
      ({ request, params, query }) =>
        kit.page(request, async (page) => {
          const partner = await findPartner(ctx.sql, params.id);
          if (!partner) return render(<NotFoundPage page={page} what="partner" back={LIST} />, { status: 404 });
          return render(await detailView(ctx, page, partner, query));
        }),
      { params: Params, query: DetailQuery },
    );
}
