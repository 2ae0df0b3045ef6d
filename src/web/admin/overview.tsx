// Admin overview: head counts, commission totals, and charts of conversions, revenue and
// commissions over the last 30 days.
import { Elysia } from 'elysia';
import type { AppContext } from '../../context';
import {
  commissionTotals,
  dailyActivity,
  dailyMoney,
  mainCurrency,
  programCounts,
  type CommissionTotal,
  type DailyActivity,
  type DailyMoney,
  type ProgramCounts,
} from '../../modules/reports/service';
import { LineChart } from '../chart';
import { CommissionTotals } from '../totals';
import { drawnToMinor, formatMoney } from '../ui';
import { render } from '../render';
import type { AdminPage } from '../session';
import { AdminLayout, type AdminKit } from './kit';

const DAYS = 30;

export function overviewRoutes(ctx: AppContext, kit: AdminKit) {
  return new Elysia({ detail: { hide: true } }).get('/admin', ({ request }) =>
    kit.page(request, async (page) => {
      const currency = await mainCurrency(ctx.sql);
      const [counts, totals, activity, money] = await Promise.all([
        programCounts(ctx.sql),
        commissionTotals(ctx.sql, {}),
        dailyActivity(ctx.sql, { days: DAYS }),
        currency ? dailyMoney(ctx.sql, { currency, days: DAYS }) : Promise.resolve(null),
      ]);
      return render(<OverviewPage page={page} counts={counts} totals={totals} activity={activity} money={money} currency={currency} />);
    }),
  );
}

function OverviewPage(props: {
  page: AdminPage;
  counts: ProgramCounts;
  totals: CommissionTotal[];
  activity: DailyActivity[];
  money: DailyMoney[] | null;
  currency: string | null;
}) {
  const sum = (k: 'clicks' | 'conversions' | 'commissions') => props.activity.reduce((a, d) => a + d[k], 0);
  const c = props.counts;
  return (
    <AdminLayout page={props.page} title="Overview" current="/admin">
      <h1>Overview</h1>
      <ul class="cards" id="counts">
        <li>
          <span class="value">{c.partnersActive}</span>
          <span class="label">Active partners</span>
        </li>
        <li>
          <span class="value">{c.partnersPending}</span>
          <span class="label">Invited, not yet signed in</span>
        </li>
        <li>
          <span class="value">{c.partnersRevoked}</span>
          <span class="label">Revoked partners</span>
        </li>
        <li>
          <span class="value">{c.campaigns}</span>
          <span class="label">Campaigns</span>
        </li>
        <li>
          <span class="value">{c.payoutsPending}</span>
          <span class="label">Payouts to settle</span>
        </li>
        <li>
          <span class="value">{sum('conversions')}</span>
          <span class="label">Conversions, last 30 days</span>
        </li>
      </ul>
      <h2>Activity per day</h2>
      <LineChart
        title="Clicks, conversions and commissions per day"
        days={props.activity.map((d) => d.day)}
        series={[
          { label: 'Clicks', className: 's1', values: props.activity.map((d) => d.clicks) },
          { label: 'Conversions', className: 's2', values: props.activity.map((d) => d.conversions) },
          { label: 'Commissions', className: 's3', values: props.activity.map((d) => d.commissions) },
        ]}
      />
      {props.money && props.currency ? (
        <>
          <h2 safe>{`Revenue and commissions per day (${props.currency})`}</h2>
          <div id="money-chart">
            <LineChart
              title={`Attributed revenue and commission amounts per day in ${props.currency}`}
              days={props.money.map((d) => d.day)}
              series={[
                { label: 'Revenue', className: 's1', values: props.money.map((d) => d.revenue) },
                { label: 'Commissions', className: 's3', values: props.money.map((d) => d.commissions) },
              ]}
              format={(v) => formatMoney(drawnToMinor(v, props.currency!), props.currency!)}
            />
          </div>
        </>
      ) : (
        <p class="empty">No revenue yet: the money chart appears with the first commission.</p>
      )}
      <h2>Commission totals</h2>
      <CommissionTotals totals={props.totals} empty="No commissions yet." />
    </AdminLayout>
  );
}
