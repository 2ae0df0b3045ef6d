// Admin traffic (GET /admin/traffic): the program's clicks and conversions over a range by sub-ID,
// country, device, browser and referrer, for everyone or narrowed to a partner, a campaign or a link
// (the partner and campaign pages link here with theirs).
import { Elysia, t } from 'elysia';
import type { AppContext } from '../../context';
import { findCampaign, listCampaigns } from '../../modules/campaigns/service';
import { findPartner } from '../../modules/partners/service';
import { linkScope, trafficBreakdowns, type Breakdown, type TrafficScope } from '../../modules/reports/traffic';
import { TrafficBreakdowns } from '../kit/traffic';
import { convertDayMoney, type Converted } from '../../modules/fx/service';
import { funnel, type Funnel } from '../../modules/reports/funnel';
import { FunnelView } from '../kit/funnel';
import { parseRange, RangePicker, rangeQuery, type DateRange } from '../range';
import { render } from '../render';
import type { AdminPage } from '../session';
import { href } from '../ui';
import { AdminLayout, type AdminKit } from './kit';

export const TRAFFIC = '/admin/traffic';

const Query = t.Object({
  range: t.Optional(t.String({ maxLength: 16 })),
  from: t.Optional(t.String({ maxLength: 16 })),
  to: t.Optional(t.String({ maxLength: 16 })),
  partnerId: t.Optional(t.String({ maxLength: 64 })),
  campaignId: t.Optional(t.String({ maxLength: 64 })),
  linkId: t.Optional(t.String({ maxLength: 64 })),
});

/** The link to this page for a partner, a campaign or a link, keeping a range. */
export const trafficPath = (scope: TrafficScope, range?: DateRange) =>
  href(TRAFFIC, { ...(range ? rangeQuery(range) : {}), partnerId: scope.partnerId, campaignId: scope.campaignId, linkId: scope.linkId });

type Named = { kind: 'partner' | 'campaign' | 'link'; name: string; param: 'partnerId' | 'campaignId' | 'linkId'; href?: string };

function TrafficPage(props: {
  page: AdminPage;
  range: DateRange;
  query: Record<string, string | undefined>;
  named: Named[];
  campaigns: { id: string; name: string }[];
  breakdowns: Breakdown[];
  funnel: Funnel;
  converted: Converted | null;
}) {
  const q = props.query;
  const keep = { partnerId: q.partnerId, campaignId: q.campaignId, linkId: q.linkId };
  return (
    <AdminLayout page={props.page} title="Traffic" current={TRAFFIC}>
      <div class="page-head overview-head">
        <h1>Traffic</h1>
        <RangePicker action={TRAFFIC} range={props.range} keep={keep} />
      </div>
      <p class="page-intro">
        Where clicks come from and which of them became customers: by the partner's sub-ID (<code>?sub=</code> on a share link), country,
        device, browser and referring site. Clicks are credited clicks; a conversion is a customer whose first sale in the range came
        through a click of that kind.
      </p>
      <form method="get" action={TRAFFIC} class="range" aria-label="Narrow down">
        {Object.entries({ ...rangeQuery(props.range), partnerId: q.partnerId, linkId: q.linkId }).map(([name, value]) =>
          value ? <input type="hidden" name={name} value={value} /> : '',
        )}
        <div class="field">
          <label for="traffic-campaign">Campaign</label>
          <select id="traffic-campaign" name="campaignId">
            <option value="">All campaigns</option>
            {props.campaigns.map((c) => (
              <option value={c.id} selected={c.id === q.campaignId} safe>
                {c.name}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" class="secondary">
          Show
        </button>
      </form>
      {props.named.length > 0 ? (
        <p class="scope" id="scope">
          {props.named.map((n) => (
            <span data-kind={n.kind}>
              <span safe>{`${n.kind[0]!.toUpperCase()}${n.kind.slice(1)}: `}</span>
              {n.href ? (
                <a href={n.href} safe>
                  {n.name}
                </a>
              ) : (
                <strong safe>{n.name}</strong>
              )}{' '}
              <a href={href(TRAFFIC, q, { [n.param]: undefined })} aria-label={`Show every ${n.kind}`}>
                (remove)
              </a>
            </span>
          ))}
        </p>
      ) : (
        ''
      )}
      <FunnelView funnel={props.funnel} rangeLabel={props.range.label} converted={props.converted} />
      <TrafficBreakdowns breakdowns={props.breakdowns} />
    </AdminLayout>
  );
}

export function adminTrafficRoutes(ctx: AppContext, kit: AdminKit) {
  return new Elysia({ detail: { hide: true } }).get(
    TRAFFIC,
    ({ request, query }) =>
      kit.page(request, async (page) => {
        const range = parseRange(query);
        const [partner, campaign, link, campaigns] = await Promise.all([
          query.partnerId ? findPartner(ctx.sql, query.partnerId) : null,
          query.campaignId ? findCampaign(ctx.sql, query.campaignId) : null,
          query.linkId ? linkScope(ctx.sql, query.linkId) : null,
          listCampaigns(ctx.sql, { limit: 500 }),
        ]);
        // an unknown id narrows to nothing rather than being dropped: the page says whose traffic it shows
        const scope: TrafficScope = { partnerId: query.partnerId, campaignId: query.campaignId, linkId: query.linkId };
        const named: Named[] = [];
        if (query.partnerId) named.push({ kind: 'partner', param: 'partnerId', name: partner?.name ?? 'unknown partner', href: partner ? `/admin/partners/${encodeURIComponent(partner.id)}` : undefined });
        if (query.campaignId) named.push({ kind: 'campaign', param: 'campaignId', name: campaign?.name ?? 'unknown campaign', href: campaign ? `/admin/campaigns/${encodeURIComponent(campaign.id)}` : undefined });
        if (query.linkId) named.push({ kind: 'link', param: 'linkId', name: link ? `/r/${link.slug}` : 'unknown link' });
        const [breakdowns, scoped] = await Promise.all([
          ctx.reads.run((sql) => trafficBreakdowns(sql, { scope, span: range })),
          ctx.reads.run((sql) => funnel(sql, scope, range)),
        ]);
        const to = ctx.config.reportingCurrency;
        const converted = to ? (await convertDayMoney(ctx.sql, to, scoped.daily)).revenue : null;
        return render(
          <TrafficPage page={page} range={range} query={query} named={named} campaigns={campaigns.map((c) => ({ id: c.id, name: c.name }))} breakdowns={breakdowns} funnel={scoped} converted={converted} />,
        );
      }),
    { query: Query },
  );
}
