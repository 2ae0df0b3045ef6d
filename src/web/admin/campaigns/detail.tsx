// One campaign: its numbers over a range, its partners, links and codes.
import { QrLink } from '../../kit/qr-link';
import type { AppContext } from '../../../context';
import type { Campaign } from '../../../modules/campaigns/service';
import { campaignLinks, campaignPartners, campaignTotals, type CampaignNumbers, type Numbers } from '../../../modules/reports/campaigns';
import { ConfirmDialog, ConfirmTrigger } from '../../confirm';
import { compare, comparePoints, parseRange, RangePicker, rangeStart, type DateRange } from '../../range';
import type { AdminPage } from '../../session';
import { describeTerms } from '../../terms';
import { TermsSummary } from '../rule-editor';
import { CodesSection, loadCodes, type CodesData } from '../codes';
import { AdminLayout, can, day, Done } from '../kit';
import { HistorySection, loadHistory, type History } from '../kit/audit';
import { trafficPath } from '../traffic';
import { attr, Badge, EmptyState, formatMoney, href, Kpi, MoneyCell, partnerBadge, Trunc, NumHead } from '../../ui';
import { archivePath, basisPoints, campaignBadge, campaignPath, count, DONE, editPath, epc, LIST, TABLE_ROWS } from './shared';
import { archiveConfirm } from './archive';
import { clickRate, filteredText } from '../../figures';
import type { Converted } from '../../../modules/fx/service';
import { convertDayMoney } from '../../../modules/fx/service';
import { funnel, type Funnel } from '../../../modules/reports/funnel';
import { ConvertedMoney } from '../../kit/converted';
import { FunnelView } from '../../kit/funnel';

export async function campaignView(ctx: AppContext, page: AdminPage, campaign: Campaign, query: Record<string, string | undefined>) {
  const range = parseRange(query);
  const span = { start: rangeStart(range), end: range.end };
  // the figures are report reads: the replica's when it is current
  const reads = await ctx.reads.sql();
  const [campaignFunnel, current, previous, partners, links, codes, history] = await Promise.all([
    funnel(reads, { campaignId: campaign.id }, span),
    campaignTotals(reads, { campaignId: campaign.id, ...span }),
    range.previous ? campaignTotals(reads, { campaignId: campaign.id, ...range.previous }) : Promise.resolve(null),
    campaignPartners(reads, { campaignId: campaign.id, currency: campaign.currency, limit: TABLE_ROWS, ...span }),
    campaignLinks(reads, { campaignId: campaign.id, currency: campaign.currency, limit: TABLE_ROWS, ...span }),
    loadCodes(ctx, { campaignId: campaign.id }),
    loadHistory(ctx, page, campaign.id),
  ]);
  const to = ctx.config.reportingCurrency;
  const converted = to ? await convertDayMoney(ctx.sql, to, campaignFunnel.daily) : null;
  return (
    <CampaignPage
      page={page}
      campaign={campaign}
      funnel={campaignFunnel}
      converted={converted}
      range={range}
      current={current}
      previous={previous}
      partners={partners}
      links={links}
      codes={codes}
      history={history}
      holdbackDefault={ctx.config.holdbackDays}
      linkBase={ctx.config.baseUrl}
      done={query.done}
    />
  ) as string;
}

function CampaignPage(props: {
  page: AdminPage;
  campaign: Campaign;
  range: DateRange;
  current: CampaignNumbers;
  previous: CampaignNumbers | null;
  funnel: Funnel;
  converted: { revenue: Converted; commissions: Converted } | null;
  partners: Awaited<ReturnType<typeof campaignPartners>>;
  links: Awaited<ReturnType<typeof campaignLinks>>;
  codes: CodesData;
  history: History | null;
  holdbackDefault: number;
  linkBase: string;
  done?: string;
}) {
  const c = props.campaign;
  const terms = describeTerms({ rules: c.rules, currency: c.currency, holdbackDays: c.holdbackDays ?? props.holdbackDefault });
  const confirm = archiveConfirm(c, props.page.csrf);
  const write = can(props.page, 'POST', `${LIST}/:id`);
  return (
    <AdminLayout page={props.page} title={c.name} current={LIST} scripts={['/assets/copy.js']}>
      <p class="back">
        <a href={LIST}>All campaigns</a>
      </p>
      <div class="page-head">
        <h1 safe>{c.name}</h1>
        {write && (
          <div class="actions own-actions">
            <a class="button" href={editPath(c.id)}>
              Edit campaign
            </a>
            <ConfirmTrigger href={archivePath(c.id)} dialog="archive-dialog" label={c.archivedAt ? 'Unarchive' : 'Archive'} secondary />
          </div>
        )}
      </div>
      <Done texts={DONE} done={props.done} />
      <dl class="facts">
        <dt>Status</dt>
        <dd>
          <Badge {...campaignBadge(c)} id="campaign-status" />
        </dd>
        <dt>Links land on</dt>
        <dd safe>{c.destinationUrl}</dd>
        <dt>Currency</dt>
        <dd safe>{c.currency}</dd>
      </dl>

      <StatsSection campaign={c} range={props.range} current={props.current} previous={props.previous} converted={props.converted} />
      <FunnelView funnel={props.funnel} rangeLabel={props.range.label} converted={props.converted?.revenue} />
      <p>
        <a href={trafficPath({ campaignId: c.id }, props.range)} id="campaign-traffic">
          Traffic of this campaign by sub-ID, country, device, browser and referrer
        </a>
      </p>

      <h2 id="terms-title">Commission terms</h2>
      <TermsSummary rules={c.rules} terms={terms} id="terms" />

      <PartnersSection currency={c.currency} range={props.range} partners={props.partners} />

      <LinksSection currency={c.currency} range={props.range} links={props.links} linkBase={props.linkBase} />
      <CodesSection page={props.page} from={{ kind: 'campaign', id: c.id }} data={props.codes} done={props.done} />
      <p class="hint">
        <a href={href('/admin/commissions', { campaignId: c.id })}>All commissions of this campaign</a>
        {' · '}
        <span safe>{`Created ${day(c.createdAt)} · ${c.id}`}</span>
      </p>
      <HistorySection history={props.history} what="campaign" />
      {write && <ConfirmDialog id="archive-dialog" {...confirm} />}
    </AdminLayout>
  );
}

/** The numbers over the range picked, each against the period before. */
function StatsSection(props: {
  campaign: Campaign;
  range: DateRange;
  current: CampaignNumbers;
  previous: CampaignNumbers | null;
  converted: { revenue: Converted; commissions: Converted } | null;
}) {
  const c = props.campaign;
  const cur = props.current;
  const prev = props.previous;
  const versus = props.range.previousLabel || undefined;
  const change = (now: bigint | number, before: bigint | number | undefined) => (prev && before !== undefined ? compare(now, before) : undefined);
  const prevEpc = prev && prev.clicks > 0 ? prev.commissions / BigInt(prev.clicks) : 0n;
  const curEpc = cur.clicks > 0 ? cur.commissions / BigInt(cur.clicks) : 0n;
  const others = cur.money.filter((m) => m.currency !== c.currency);
  return (
    <section aria-labelledby="stats-title">
      <h2 id="stats-title" class="vh">
        Numbers
      </h2>
      <RangePicker action={campaignPath(c.id)} range={props.range} />
      <ul class="cards" id="stats">
        <Kpi id="kpi-clicks" label="Clicks" value={count(cur.clicks)} note={filteredText(cur.filteredClicks)} change={change(cur.clicks, prev?.clicks)} versus={versus} />
        <Kpi id="kpi-conversions" label="Conversions" value={count(cur.conversions)} change={change(cur.conversions, prev?.conversions)} versus={versus} />
        <Kpi
          id="kpi-rate"
          label="Conversion rate"
          value={clickRate(cur)}
          change={prev ? comparePoints(basisPoints(cur.convertedClicks, cur.clicks), basisPoints(prev.convertedClicks, prev.clicks)) : undefined}
          versus={versus}
        />
        <Kpi id="kpi-revenue" label="Revenue" value={formatMoney(cur.revenue, c.currency)} change={change(cur.revenue, prev?.revenue)} versus={versus} />
        <Kpi
          id="kpi-commissions"
          label="Commissions"
          value={formatMoney(cur.commissions, c.currency)}
          change={change(cur.commissions, prev?.commissions)}
          versus={versus}
          href={href('/admin/commissions', { campaignId: c.id })}
        />
        <Kpi id="kpi-epc" label="Earnings per click" value={epc(cur, c.currency)} change={change(curEpc, prev ? prevEpc : undefined)} versus={versus} />
      </ul>
      {others.length > 0 && (
        <p class="hint" safe>
          {`Also in other currencies: ${others.map((m) => `revenue ${formatMoney(m.revenue, m.currency)}, commissions ${formatMoney(m.commissions, m.currency)}`).join('; ')}.`}
        </p>
      )}
      <ConvertedMoney converted={props.converted} money={cur.money} owed="partners are" />
    </section>
  );
}

/** The partners holding the campaign, most commissions first. */
function PartnersSection(props: { currency: string; range: DateRange; partners: Awaited<ReturnType<typeof campaignPartners>> }) {
  return (
    <>
      <h2 id="partners-title">Partners</h2>
      {props.partners.total === 0 ? (
        <EmptyState title="No partners in this campaign yet" text="Partners holding a campaign can create share links for it." action={{ href: '/admin/partners', label: 'Add partners' }} />
      ) : (
        <>
          <div class="table-wrap">
            <table id="campaign-partners" class="stack">
              <caption class="vh" safe>
                {`Partners holding this campaign, ${props.range.label}`}
              </caption>
              <thead>
                <tr>
                  <th scope="col">Partner</th>
                  <th scope="col">Status</th>
                  <NumHeads />
                </tr>
              </thead>
              <tbody>
                {props.partners.partners.map((p) => (
                  <tr data-id={p.id}>
                    <td class="lead fill">
                      <Trunc text={p.name} href={`/admin/partners/${encodeURIComponent(p.id)}`} />
                    </td>
                    <td class="badge-cell" data-label="Status">
                      <Badge {...partnerBadge(p)} />
                    </td>
                    <NumCells n={p} currency={props.currency} />
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <TableNote shown={props.partners.partners.length} total={props.partners.total} what="partners" order="most commissions first" />
        </>
      )}
    </>
  );
}

/** The campaign's share links, most clicks first, each with a copy button. */
function LinksSection(props: { currency: string; range: DateRange; links: Awaited<ReturnType<typeof campaignLinks>>; linkBase: string }) {
  return (
    <>
      <h2 id="links-title">Links</h2>
      {props.links.total === 0 ? (
        <EmptyState title="No links yet" text="Partners create share links for the campaigns they hold, in their portal." />
      ) : (
        <>
          <div class="table-wrap">
            <table id="campaign-links" class="stack">
              <caption class="vh" safe>
                {`Share links of this campaign, ${props.range.label}`}
              </caption>
              <thead>
                <tr>
                  <th scope="col">Link</th>
                  <th scope="col">Partner</th>
                  <NumHeads />
                </tr>
              </thead>
              <tbody>
                {props.links.links.map((l) => {
                  return (
                    <tr data-slug={l.slug}>
                      <td class="lead fill">
                        <div class="copy">
                          <label class="vh" for={`url-${l.id}`} safe>
                            {`Link ${l.slug}`}
                          </label>
                          <input id={`url-${l.id}`} value={`${props.linkBase}/r/${l.slug}`} readonly />
                          <button type="button" class="secondary" data-copy={`#url-${l.id}`} aria-label={attr(`Copy link ${l.slug}`)}>
                            Copy
                          </button>
                          <QrLink id={l.id} slug={l.slug} />
                        </div>
                      </td>
                      <td data-label="Partner">
                        <Trunc text={l.partnerName} href={`/admin/partners/${encodeURIComponent(l.partnerId)}`} />
                      </td>
                      <NumCells n={l} currency={props.currency} />
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          <TableNote shown={props.links.links.length} total={props.links.total} what="links" order="most clicks first" />
        </>
      )}
    </>
  );
}

function NumHeads() {
  return (
    <>
      <NumHead label="Clicks" />
      <NumHead label="Conversions" />
      <NumHead label="Revenue" />
      <NumHead label="Commissions" />
    </>
  );
}

function NumCells(props: { n: Numbers; currency: string }) {
  return (
    <>
      <td class="num" data-label="Clicks" data-stat="clicks" safe>
        {count(props.n.clicks)}
      </td>
      <td class="num" data-label="Conversions" data-stat="conversions" safe>
        {count(props.n.conversions)}
      </td>
      <td class="num" data-label="Revenue" data-stat="revenue" safe>
        {formatMoney(props.n.revenue, props.currency)}
      </td>
      <MoneyCell amount={props.n.commissions} currency={props.currency} label="Commissions" />
    </>
  );
}

function TableNote(props: { shown: number; total: number; what: string; order: string }) {
  return props.total > props.shown ? (
    <p class="hint" safe>
      {`The ${props.shown} with ${props.order.replace(' first', '')} of ${count(props.total)} ${props.what}.`}
    </p>
  ) : (
    ''
  );
}
