// The partner portal's home: terms in words, money per currency with the next payout, earnings over
// the chosen range with EPC, links with their numbers, and the latest commissions (UI.md "Partner
// portal home"). A view only: ./index.tsx loads the data.
import { QrLink } from '../kit/qr-link';
import type { Commission } from '../../modules/commissions/service';
import { eventLabel } from '../../lib/event-labels';
import type { Link } from '../../modules/links/service';
import type { DailyEarning, LinkStats, PartnerBalance, PeriodTotals } from '../../modules/reports/portal';
import { LineChart } from '../chart';
import { day } from '../layout';
import { compare, RangePicker, type DateRange } from '../range';
import type { PartnerPage } from '../session';
import { attr, Badge, commissionBadge, drawnToMinor, EmptyState, formatMoney, Kpi, MoneyCell, Trunc, NumHead } from '../ui';
import { PortalLayout, TaxHoldNote } from './shell';
import { LinkStatsFrame } from '../kit/link-stats';
import { TierSection } from './rewards';
import type { TierStanding } from '../../modules/commissions/standing';
import { commissionNext, type CampaignTerms, type PayoutOutlook } from './terms';
import { clickRate, filteredText } from '../figures';
import type { Converted } from '../../modules/fx/service';
import { commissionsOf, type Funnel } from '../../modules/reports/funnel';
import { ConvertedTotal, needsConversion } from '../kit/converted';
import { FunnelView } from '../kit/funnel';

/** The range's earnings in several currencies: their converted total, labelled, and each currency's. */
function EarningsConverted(props: { funnel: Funnel; converted: HomeData['converted'] }) {
  const earned = commissionsOf(props.funnel);
  const c = props.converted;
  if (!c || !needsConversion(c.commissions.currency, earned)) return <></>;
  return (
    <section aria-labelledby="earnings-all-title" class="portal-section" id="earnings-all">
      <h2 id="earnings-all-title">Earnings in every currency</h2>
      <ConvertedTotal id="converted-earnings" label="Earnings" converted={c.commissions} perCurrency={earned} />
      <p class="caption">The converted total is for comparison only: you are owed and paid in each currency as it is.</p>
    </section>
  );
}

/** One currency's line of the money table, with the next payout worked out by the payout run's rule. */
export type MoneyLine = PartnerBalance & {
  /** approved minus open clawbacks */
  net: bigint;
  /** paid in the next run (net reaches MIN_PAYOUT) */
  due: boolean;
};

export type HomeData = {
  page: PartnerPage;
  range: DateRange;
  currency: string;
  totals: { current: PeriodTotals; previous: PeriodTotals | null };
  daily: DailyEarning[];
  money: MoneyLine[];
  outlook: PayoutOutlook;
  terms: CampaignTerms[];
  payoutTerms: string;
  links: Link[];
  linkStats: Map<string, LinkStats>;
  campaignNames: Map<string, string>;
  commissions: Commission[];
  standings: TierStanding[];
  /** The partner's own funnel over the range. */
  funnel: Funnel;
  /** With REPORTING_CURRENCY: the range's revenue and earnings converted to it. */
  converted: { revenue: Converted; commissions: Converted } | null;
};

/** Earnings per click in minor units, rounded half up; null without clicks. */
export function earningsPerClick(earnings: bigint, clicks: number): bigint | null {
  if (clicks <= 0) return null;
  const n = BigInt(clicks);
  return (earnings * 2n + n) / (2n * n);
}

export function HomePage(props: HomeData) {
  const { current, previous } = props.totals;
  const cur = props.currency;
  const versus = props.range.previousLabel || undefined;
  const change = (a: bigint | number, b: bigint | number | undefined) => (previous && b !== undefined ? compare(a, b) : undefined);
  const epc = earningsPerClick(current.earnings, current.clicks);
  const epcBefore = previous ? earningsPerClick(previous.earnings, previous.clicks) : null;
  return (
    <PortalLayout page={props.page} title="Home" current="/portal" scripts={['/assets/copy.js']}>
      <div class="page-head">
        <h1>
          Welcome, <span safe>{props.page.partner.name}</span>
        </h1>
        <RangePicker action="/portal" range={props.range} />
      </div>
      <TaxHoldNote page={props.page} />

      <ul class="cards" id="kpis">
        <Kpi
          id="kpi-earnings"
          label={`Earnings, ${props.range.label.toLowerCase()}`}
          value={formatMoney(current.earnings, cur)}
          change={change(current.earnings, previous?.earnings)}
          versus={versus}
          href="/portal/commissions"
        />
        <Kpi id="kpi-clicks" label="Clicks" value={current.clicks.toLocaleString('en-US')} change={change(current.clicks, previous?.clicks)} versus={versus} href="/portal/links" />
        <Kpi
          id="kpi-conversions"
          label="Conversions"
          value={current.conversions.toLocaleString('en-US')}
          change={change(current.conversions, previous?.conversions)}
          versus={versus}
          href="/portal/links"
        />
        <Kpi
          id="kpi-epc"
          label="Earnings per click"
          value={epc === null ? '–' : formatMoney(epc, cur)}
          change={epc !== null && previous ? compare(epc, epcBefore ?? 0n) : undefined}
          versus={versus}
        />
      </ul>

      <EarningsConverted funnel={props.funnel} converted={props.converted} />

      <FunnelView funnel={props.funnel} rangeLabel={props.range.label} converted={props.converted?.revenue} />

      <section aria-labelledby="earnings-title" class="portal-section">
        <h2 id="earnings-title" safe>{`Earnings per day (${cur})`}</h2>
        <LineChart
          title={`Earnings per day in ${cur}, ${props.range.label}`}
          days={props.daily.map((d) => d.day)}
          series={[{ label: 'Earnings', className: 's1', values: props.daily.map((d) => d.amount) }]}
          format={(v) => formatMoney(drawnToMinor(v, cur), cur)}
        />
        <p class="caption" safe>
          {`Commissions in ${cur} by the day of their sale, reversed ones left out; ${current.conversions.toLocaleString('en-US')} new customer${current.conversions === 1 ? '' : 's'} from ${current.clicks.toLocaleString('en-US')} click${current.clicks === 1 ? '' : 's'} (${clickRate(current)} of the clicks became customers)${current.filteredClicks > 0 ? `, ${filteredText(current.filteredClicks)}` : ''}.`}
        </p>
      </section>

      <section aria-labelledby="money-title" class="portal-section">
        <h2 id="money-title">Your money</h2>
        <MoneyTable money={props.money} outlook={props.outlook} />
      </section>

      <section aria-labelledby="terms-title" class="portal-section">
        <h2 id="terms-title">What you earn</h2>
        <TermsList terms={props.terms} />
        <p class="payout-terms" id="payout-terms" safe>
          {props.payoutTerms}
        </p>
      </section>

      <TierSection standings={props.standings} />

      <section aria-labelledby="links-title" class="portal-section">
        <div class="section-head">
          <h2 id="links-title">Your links</h2>
          <a href="/portal/links">Build a link</a>
        </div>
        {props.links.length === 0 ? (
          <EmptyState title="No links yet" text="Make a link for a campaign, share it, and every sale through it earns you a commission." action={{ href: '/portal/links', label: 'Build a link' }} />
        ) : (
          <>
            <LinkStatsTable links={props.links} stats={props.linkStats} campaignNames={props.campaignNames} caption="Your newest links, all-time numbers" />
            <p>
              <a href="/portal/links">All links</a>
            </p>
          </>
        )}
      </section>

      <section aria-labelledby="latest-title" class="portal-section">
        <div class="section-head">
          <h2 id="latest-title">Latest commissions</h2>
          <a href="/portal/commissions">View all</a>
        </div>
        {props.commissions.length === 0 ? (
          <EmptyState title="No commissions yet" text="Share your links: each sale they bring shows up here." />
        ) : (
          <CommissionTable id="latest" commissions={props.commissions} campaignNames={props.campaignNames} outlook={props.outlook} caption="Your last 10 commissions, newest first" />
        )}
      </section>
    </PortalLayout>
  );
}

/** Pending, approved, paid per currency and the next payout (date and amount, or what is missing). */
export function MoneyTable(props: { money: MoneyLine[]; outlook: PayoutOutlook }) {
  if (props.money.length === 0) {
    return (
      <p class="empty" id="money-empty">
        No money yet. Commissions show here as pending first, approved after the holdback, then paid.
      </p>
    );
  }
  const when = props.outlook.nextRun ? props.outlook.nextRun.toISOString().slice(0, 10) : null;
  return (
    <div class="table-wrap">
      <table id="money" class="stack">
        <caption class="vh">Your commissions by status and currency, all time, and the next payout</caption>
        <thead>
          <tr>
            <th scope="col">Currency</th>
            <NumHead label="Pending" />
            <NumHead label="Approved" />
            <NumHead label="Paid" />
            <th scope="col">Next payout</th>
          </tr>
        </thead>
        <tbody>
          {props.money.map((m) => {
            const next = m.due
              ? when
                ? `${formatMoney(m.net, m.currency)} on ${when}`
                : `${formatMoney(m.net, m.currency)} at the next payout run`
              : m.net > 0n
                ? `Waiting: ${formatMoney(m.net, m.currency)} of the ${formatMoney(props.outlook.minPayout, m.currency)} minimum`
                : 'Nothing approved to pay yet';
            return (
              <tr data-currency={m.currency}>
                <td class="lead" safe>
                  {m.currency}
                </td>
                <td class="num money-plain" data-label="Pending" data-pending safe>
                  {formatMoney(m.pending, m.currency)}
                </td>
                <td class="num money-plain" data-label="Approved" data-approved safe>
                  {formatMoney(m.approved, m.currency)}
                </td>
                <td class="num money-plain" data-label="Paid" data-paid safe>
                  {formatMoney(m.paid, m.currency)}
                </td>
                <td data-label="Next payout" class={m.due ? 'next-payout due' : 'next-payout'}>
                  <span class="trunc wide" title={attr(next + (m.clawbacks > 0n ? ` (after ${formatMoney(m.clawbacks, m.currency)} of reversed paid commissions)` : ''))} safe>
                    {next}
                  </span>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/** Each held campaign's terms in words. */
export function TermsList(props: { terms: CampaignTerms[]; empty?: string }) {
  if (props.terms.length === 0) {
    return (
      <p class="empty" safe>
        {props.empty ?? 'You hold no campaign yet. Ask the program for one to start earning.'}
      </p>
    );
  }
  return (
    <ul class="terms" id="terms">
      {props.terms.map((t) => (
        <li data-campaign={t.campaignId}>
          <h3 safe>{t.name}</h3>
          {t.source === 'snapshot' ? <p class="note">Your own terms, agreed when you joined, replace this campaign's standard rules.</p> : ''}
          {t.source === 'group' ? <p class="note">Your partner group's rates come first; the campaign's standard rules cover the rest.</p> : ''}
          {t.rules.length === 0 ? (
            <p class="empty">No commission rules yet.</p>
          ) : (
            <ul class="rules">
              {t.rules.map((r) => (
                <li safe>{`${r.charAt(0).toUpperCase()}${r.slice(1)}.`}</li>
              ))}
            </ul>
          )}
          <p class="holdback" safe>
            {t.holdback}
          </p>
        </li>
      ))}
    </ul>
  );
}

/** Links with Copy and their clicks, conversions, conversion rate and earnings. */
export function LinkStatsTable(props: { links: Link[]; stats: Map<string, LinkStats>; campaignNames: Map<string, string>; caption: string }) {
  return (
    <LinkStatsFrame
      links={props.links}
      caption={props.caption}
      rowIds
      heads={
        <>
          <th scope="col">Lands on</th>
          <NumHead label="Clicks" />
          <NumHead label="Conversions" />
          <NumHead label="Rate" />
          <NumHead label="Earnings" />
        </>
      }
      copy={(l) => (
        <div class="copy">
          <label class="vh" for={`url-${l.id}`}>
            Link address
          </label>
          <input id={`url-${l.id}`} value={l.url} readonly />
          <button type="button" class="secondary" data-copy={`#url-${l.id}`}>
            Copy
          </button>
          <QrLink id={l.id} slug={l.slug} />
        </div>
      )}
      cells={(l) => {
        const s = props.stats.get(l.id) ?? { clicks: 0, filteredClicks: 0, convertedClicks: 0, conversions: 0, earnings: [] };
        const earned = s.earnings.length === 0 ? '–' : s.earnings.map((e) => formatMoney(e.amount, e.currency)).join(' · ');
        const campaign = props.campaignNames.get(l.campaignId) ?? l.campaignId;
        return (
          <>
            <td data-label="Lands on" class="lands">
              <Trunc text={l.destinationUrl ? `${campaign}: ${shortUrl(l.destinationUrl)}` : `${campaign}: its main page`} />
            </td>
            <td class="num" data-label="Clicks" data-clicks safe>
              {s.clicks.toLocaleString('en-US')}
            </td>
            <td class="num" data-label="Conversions" data-conversions safe>
              {s.conversions.toLocaleString('en-US')}
            </td>
            <td class="num" data-label="Rate" safe>
              {clickRate(s)}
            </td>
            <td class="num nowrap" data-label="Earnings" data-earnings safe>
              {earned}
            </td>
          </>
        );
      }}
    />
  );
}

/** A URL without its scheme, for narrow cells ("shop.example/pricing?utm_source=…"). */
const shortUrl = (url: string) => url.replace(/^https?:\/\//, '');

/** Commissions, one line each: event, campaign, date, amount, status and what comes next. */
export function CommissionTable(props: { id: string; commissions: Commission[]; campaignNames: Map<string, string>; outlook: PayoutOutlook; caption: string }) {
  return (
    <div class="table-wrap">
      <table id={props.id} class="stack">
        <caption class="vh" safe>
          {props.caption}
        </caption>
        <thead>
          <tr>
            <th scope="col">Event</th>
            <th scope="col">Campaign</th>
            <th scope="col">Date</th>
            <NumHead label="Amount" />
            <th scope="col">Status</th>
            <th scope="col">Next</th>
          </tr>
        </thead>
        <tbody>
          {props.commissions.map((c) => {
            const next = commissionNext(c, props.outlook);
            return (
              <tr data-id={c.id}>
                <td class="lead">
                  <Trunc text={eventLabel(c.eventType)} />
                </td>
                <td data-label="Campaign">
                  <Trunc text={props.campaignNames.get(c.campaignId) ?? c.campaignId} />
                </td>
                <td data-label="Date" class="nowrap" safe>
                  {day(c.createdAt)}
                </td>
                <MoneyCell amount={c.amount} currency={c.currency} />
                <td class="badge-cell" data-label="Status">
                  <Badge {...commissionBadge(c)} title={next} />
                </td>
                <td data-label="Next" class="next">
                  <Trunc text={next} wide />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
