// The portal's traffic page (/portal/traffic): the partner's own clicks and conversions over a range
// by sub-ID, country, device, browser and referrer, for all its links or one. The partner is always
// the session's: a link of someone else's is not found.
import { Elysia, t } from 'elysia';
import type { AppContext } from '../../context';
import { linkScope, partnerLinkChoices, trafficBreakdowns, type Breakdown } from '../../modules/reports/traffic';
import { TrafficBreakdowns } from '../kit/traffic';
import { convertDayMoney, type Converted } from '../../modules/fx/service';
import { funnel, type Funnel } from '../../modules/reports/funnel';
import { FunnelView } from '../kit/funnel';
import { parseRange, RangePicker, rangeQuery, type DateRange } from '../range';
import { render } from '../render';
import type { PartnerPage } from '../session';
import type { PortalKit } from './kit';
import { PortalLayout } from './shell';
import { RefusedPage } from './pages';

export const PORTAL_TRAFFIC = '/portal/traffic';
/** Links offered in the filter; a partner with more narrows from the links page. */
const LINKS_OFFERED = 200;

const Query = t.Object({
  range: t.Optional(t.String({ maxLength: 16 })),
  from: t.Optional(t.String({ maxLength: 16 })),
  to: t.Optional(t.String({ maxLength: 16 })),
  linkId: t.Optional(t.String({ maxLength: 64 })),
});

function PortalTrafficPage(props: {
  page: PartnerPage;
  range: DateRange;
  links: { id: string; slug: string }[];
  linkId?: string;
  breakdowns: Breakdown[];
  funnel: Funnel;
  converted: Converted | null;
}) {
  return (
    <PortalLayout page={props.page} title="Traffic" current={PORTAL_TRAFFIC}>
      <div class="page-head overview-head">
        <h1>Traffic</h1>
        <RangePicker action={PORTAL_TRAFFIC} range={props.range} keep={{ linkId: props.linkId }} />
      </div>
      <p class="page-intro">
        Where your clicks come from and which became customers. Add <code>?sub=</code> and a name of your own to a link (for example{' '}
        <code>?sub=newsletter</code>) to compare your channels: each name gets its own line below.
      </p>
      <form method="get" action={PORTAL_TRAFFIC} class="range" aria-label="Choose a link">
        {Object.entries(rangeQuery(props.range)).map(([name, value]) => (
          <input type="hidden" name={name} value={value} />
        ))}
        <div class="field">
          <label for="traffic-link">Link</label>
          <select id="traffic-link" name="linkId">
            <option value="">All your links</option>
            {props.links.map((l) => (
              <option value={l.id} selected={l.id === props.linkId} safe>
                {`/r/${l.slug}`}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" class="secondary">
          Show
        </button>
      </form>
      <FunnelView funnel={props.funnel} rangeLabel={props.range.label} converted={props.converted} />
      <TrafficBreakdowns breakdowns={props.breakdowns} />
    </PortalLayout>
  );
}

export function portalTrafficRoutes(ctx: AppContext, kit: PortalKit) {
  return new Elysia({ detail: { hide: true } }).get(
    PORTAL_TRAFFIC,
    ({ request, query }) =>
      kit.partnerPage(request, async (page) => {
        const partnerId = page.partner.id;
        const range = parseRange(query);
        const linkId = query.linkId || undefined;
        if (linkId) {
          const link = await linkScope(ctx.sql, linkId);
          if (!link || link.partnerId !== partnerId) return render(<RefusedPage message="You have no such link." back={PORTAL_TRAFFIC} />, { status: 404 });
        }
        // the partner is the session's: its own funnel only
        const [links, breakdowns, own] = await Promise.all([
          partnerLinkChoices(ctx.sql, partnerId, LINKS_OFFERED),
          ctx.reads.run((sql) => trafficBreakdowns(sql, { scope: { partnerId, linkId }, span: range })),
          ctx.reads.run((sql) => funnel(sql, { partnerId, linkId }, range)),
        ]);
        const to = ctx.config.reportingCurrency;
        const converted = to ? (await convertDayMoney(ctx.sql, to, own.daily)).revenue : null;
        return render(<PortalTrafficPage page={page} range={range} links={links} linkId={linkId} breakdowns={breakdowns} funnel={own} converted={converted} />);
      }),
    { query: Query },
  );
}
