// The partner portal's pages as they are drawn from the database: the dashboard, links, codes, and
// the campaign and payout terms they show. Every reader takes the partner id from the session's page.
import type { AppContext } from '../../context';
import { paginate, readPage } from '../../lib/http';
import { listCampaigns, type Campaign } from '../../modules/campaigns/service';
import { listCommissions } from '../../modules/commissions/service';
import { listLinks } from '../../modules/links/service';
import { codeStats, listCodes } from '../../modules/codes/service';
import { getCommissionSnapshot } from '../../modules/partners/service';
import { convertDayMoney } from '../../modules/fx/service';
import { funnel } from '../../modules/reports/funnel';
import { campaignNames, partnerBalances, partnerDailyEarnings, partnerLinkLanding, partnerLinkStats, partnerPeriodTotals } from '../../modules/reports/portal';
import { payoutDue } from '../../modules/payouts/due';
import { partnerMainCurrency } from '../../modules/reports/partners';
import { type FormErrors } from '../forms';
import { parseRange } from '../range';
import { type PartnerPage } from '../session';
import { HomePage, type MoneyLine } from './home';
import { LinksPage, type BuilderValues } from './links';
import { CodesPage } from './codes';
import { type ProgramPitch } from './pages';
import { tierStanding } from '../../modules/commissions/standing';
import { findGroup } from '../../modules/groups/service';
import { campaignTerms, nextPayoutRun, payoutTermsText, type PayoutOutlook } from './terms';
import { campaignCurrencies } from '../../modules/reports/portal';


/** The campaigns a partner holds and may link to (not archived). */
export async function heldCampaigns(ctx: AppContext, partnerId: string): Promise<Campaign[]> {
  return (await listCampaigns(ctx.sql, { limit: 200, archived: false, partnerId })).slice(0, 200);
}

/** The payout sentence for these campaigns' currencies. */
export function payoutTerms(ctx: AppContext, campaigns: { currency: string }[]): string {
  const currencies = [...new Set(campaigns.map((c) => c.currency))].sort();
  return payoutTermsText(ctx.config.payoutCron, ctx.config.minPayout, currencies);
}

/** Money per currency with the next payout, worked out by the payout run's own rule (payoutDue). */
export async function payoutOutlook(ctx: AppContext, partnerId: string): Promise<{ money: MoneyLine[]; outlook: PayoutOutlook }> {
  const balances = await partnerBalances(ctx.sql, partnerId);
  const money = balances.map((b) => {
    const net = b.approved - b.clawbacks;
    return { ...b, net, due: payoutDue(net, b.currency, ctx.config.minPayout) };
  });
  const outlook = { nextRun: nextPayoutRun(ctx.config.payoutCron), due: new Set(money.filter((m) => m.due).map((m) => m.currency)), minPayout: ctx.config.minPayout };
  return { money, outlook };
}

/** The program's live campaigns and payout terms, for the signup page (the campaigns a self-signup gets). */
export async function programPitch(ctx: AppContext): Promise<ProgramPitch> {
  const campaigns = (await listCampaigns(ctx.sql, { limit: 50, archived: false })).slice(0, 50);
  return { terms: campaigns.map((c) => campaignTerms(c, null, ctx.config.holdbackDays)), payoutTerms: payoutTerms(ctx, campaigns) };
}

export async function homeView(ctx: AppContext, page: PartnerPage, query: Record<string, string>): Promise<string> {
  const partnerId = page.partner.id;
  const range = parseRange(query);
  const [campaigns, snapshot, main, outlook, linkRows, latest, group, standings] = await Promise.all([
    heldCampaigns(ctx, partnerId),
    getCommissionSnapshot(ctx.sql, partnerId),
    partnerMainCurrency(ctx.sql, partnerId),
    payoutOutlook(ctx, partnerId),
    listLinks(ctx.sql, ctx.config.baseUrl, { limit: 5, partnerId }),
    listCommissions(ctx.sql, { limit: 10, partnerId }),
    page.partner.groupId ? findGroup(ctx.sql, page.partner.groupId) : Promise.resolve(null),
    tierStanding(ctx.sql, partnerId),
  ]);
  const currency = main ?? campaigns[0]?.currency ?? 'USD';
  const links = linkRows.slice(0, 5);
  const commissions = latest.slice(0, 10);
  const to = ctx.config.reportingCurrency;
  // the range's figures are report reads: the replica's when it is current (balances, owed money,
  // stay on the primary above)
  const reads = await ctx.reads.sql();
  const [own, totals, daily, linkStats, names] = await Promise.all([
    // the session's partner only
    funnel(reads, { partnerId }, range),
    partnerPeriodTotals(reads, { partnerId, currency, start: range.start ?? new Date(0), end: range.end, previous: range.previous }),
    partnerDailyEarnings(reads, { partnerId, currency, start: range.start, end: range.end }),
    partnerLinkStats(reads, { partnerId, linkIds: links.map((l) => l.id) }),
    campaignNames(ctx.sql, [...links.map((l) => l.campaignId), ...commissions.map((c) => c.campaignId)]),
  ]);
  const converted = to ? await convertDayMoney(ctx.sql, to, own.daily) : null;
  return (
    <HomePage
      page={page}
      range={range}
      currency={currency}
      funnel={own}
      converted={converted}
      totals={totals}
      daily={daily}
      money={outlook.money}
      outlook={outlook.outlook}
      terms={campaigns.map((c) => campaignTerms(c, snapshot, ctx.config.holdbackDays, group))}
      payoutTerms={payoutTerms(ctx, campaigns)}
      links={links}
      linkStats={linkStats}
      campaignNames={names}
      commissions={commissions}
      standings={standings}
    />
  ) as string;
}

/** The notice after a link was made: its address and where it lands (the partner's own links only). */
export async function createdNotice(ctx: AppContext, page: PartnerPage, linkId: string): Promise<{ slug: string; url: string; landing: string } | null> {
  const link = await partnerLinkLanding(ctx.sql, { partnerId: page.partner.id, linkId });
  return link ? { slug: link.slug, url: `${ctx.config.baseUrl}/r/${link.slug}`, landing: link.landing } : null;
}

/**
 * The partner's codes (newest 200) with their numbers, and the campaigns it may make codes for.
 * `created`: the id of a code just made; the notice names it only if it is one of the partner's.
 */
export async function codesView(ctx: AppContext, page: PartnerPage, input: { created?: string; values?: { code: string; campaignId: string }; errors?: FormErrors }): Promise<string> {
  const partnerId = page.partner.id;
  const [rows, campaigns] = await Promise.all([listCodes(ctx.sql, { limit: 200, partnerId }), heldCampaigns(ctx, partnerId)]);
  const codes = rows.slice(0, 200);
  const [stats, names] = await Promise.all([codeStats(ctx.sql, codes.map((c) => c.id)), campaignNames(ctx.sql, codes.map((c) => c.campaignId))]);
  const currencies = await campaignCurrencies(ctx.sql, codes.map((c) => c.campaignId));
  return (
    <CodesPage
      page={page}
      codes={codes.map((c) => ({ ...c, campaignName: names.get(c.campaignId) ?? c.campaignId, currency: currencies.get(c.campaignId) ?? 'USD', stats: stats.get(c.id)! }))}
      campaigns={campaigns.map((c) => ({ id: c.id, name: c.name }))}
      created={codes.find((c) => c.id === input.created)?.code ?? null}
      values={input.values}
      errors={input.errors}
    />
  ) as string;
}

export async function linksView(
  ctx: AppContext,
  page: PartnerPage,
  input: {
    cursor?: string;
    created?: { slug: string; url: string; landing: string } | null;
    values?: BuilderValues;
    errors?: FormErrors;
    preview?: { url: string | null; share: string };
  },
): Promise<string> {
  const p = readPage({ cursor: input.cursor && /^lnk_[0-9a-z]{26}$/.test(input.cursor) ? input.cursor : undefined }, 'link');
  const [rows, campaigns, codes] = await Promise.all([
    listLinks(ctx.sql, ctx.config.baseUrl, { ...p, partnerId: page.partner.id }),
    heldCampaigns(ctx, page.partner.id),
    listCodes(ctx.sql, { limit: 50, partnerId: page.partner.id }),
  ]);
  const { items, nextCursor } = paginate(rows, p.limit);
  const stats = await partnerLinkStats(ctx.sql, { partnerId: page.partner.id, linkIds: items.map((l) => l.id) });
  return (
    <LinksPage
      page={page}
      baseUrl={ctx.config.baseUrl}
      links={items}
      stats={stats}
      campaigns={campaigns.map((c) => ({ id: c.id, name: c.name, destinationUrl: c.destinationUrl }))}
      codes={codes.filter((c) => c.archivedAt === null).map((c) => c.code)}
      nextCursor={nextCursor}
      values={input.values}
      errors={input.errors}
      preview={input.preview}
      created={input.created}
    />
  ) as string;
}
