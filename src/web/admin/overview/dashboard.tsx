// The overview's dashboard: KPI cards against the previous period, the money chart, the to-do
// counts and the top partners.
import { earningsPerClick, type LeaderRow, type OverviewTotals, type TodoCounts } from '../../../modules/reports/overview';
import { LineChart } from '../../chart';
import { compare, comparePoints, rangeQuery, type DateRange } from '../../range';
import { drawnToMinor, EmptyState, formatMoney, href, Kpi, Trunc, NumHead } from '../../ui';
import { PATH, TOP, type Data } from './data';
import { clickRate, filteredText } from '../../figures';
import { FunnelView } from '../../kit/funnel';

export function Dashboard(props: { data: Data }) {
  const d = props.data;
  const cur = d.currency;
  const now = d.current;
  const before = d.previous;
  const money = (t: OverviewTotals | null) => (cur && t ? (t.money.find((m) => m.currency === cur) ?? { currency: cur, revenue: 0n, commissions: 0n }) : null);
  const m = money(now);
  const pm = money(before);
  const versus = d.range.previousLabel;
  // converted clicks / clicks (docs/analytics.md): never above 100%
  const rate = (t: OverviewTotals) => (t.clicks > 0 ? (Math.min(t.convertedClicks, t.clicks) * 10_000) / t.clicks : null);
  const rateChange = (() => {
    if (!before) return undefined;
    const a = rate(now);
    const b = rate(before);
    if (a === null && b === null) return { text: 'no change', good: null };
    if (b === null) return { text: 'new', good: null };
    return comparePoints(a ?? 0, b);
  })();
  const others = now.money.filter((x) => x.currency !== cur && (x.revenue !== 0n || x.commissions !== 0n));
  const keep = rangeQuery(d.range);
  return (
    <>
      <ul class="cards kpis" id="kpis">
        <Kpi id="kpi-clicks" label="Clicks" value={count(now.clicks)} note={filteredText(now.filteredClicks)} change={before ? compare(now.clicks, before.clicks) : undefined} versus={versus} href="#leaders" />
        <Kpi id="kpi-conversions" label="Conversions" value={count(now.conversions)} change={before ? compare(now.conversions, before.conversions) : undefined} versus={versus} href="#leaders" />
        <Kpi id="kpi-rate" label="Conversion rate" value={clickRate(now)} change={rateChange} versus={versus} />
        {m ? (
          <>
            <Kpi id="kpi-revenue" label="Attributed revenue" value={formatMoney(m.revenue, m.currency)} change={pm ? compare(m.revenue, pm.revenue) : undefined} versus={versus} href="#money-chart" />
            <Kpi id="kpi-commissions" label="Commissions earned" value={formatMoney(m.commissions, m.currency)} change={pm ? compare(m.commissions, pm.commissions) : undefined} versus={versus} href="/admin/commissions" />
          </>
        ) : (
          ''
        )}
        {d.converted ? (
          <>
            <Kpi id="kpi-revenue-converted" label={`Revenue, converted to ${d.converted.revenue.currency}`} value={formatMoney(d.converted.revenue.amount, d.converted.revenue.currency)} note="converted at each day's rate" href="#converted-note" />
            <Kpi id="kpi-commissions-converted" label={`Commissions, converted to ${d.converted.commissions.currency}`} value={formatMoney(d.converted.commissions.amount, d.converted.commissions.currency)} note="converted at each day's rate" href="#converted-note" />
          </>
        ) : (
          ''
        )}
        <Kpi id="kpi-partners" label="New partners" value={count(now.newPartners)} change={before ? compare(now.newPartners, before.newPartners) : undefined} versus={versus} href="/admin/partners" />
      </ul>
      {cur ? (
        <p class="caption money-note" id="money-note" safe>
          {`Money in ${cur}, the main currency (the one most commissions are in).${others.length > 0 ? ` Also in this period: ${others.map((o) => `${formatMoney(o.revenue, o.currency)} revenue and ${formatMoney(o.commissions, o.currency)} commissions`).join('; ')}.` : ''} Sales count on the day they happened; reversed commissions are left out.`}
        </p>
      ) : (
        ''
      )}
      {d.converted ? <ConvertedNote converted={d.converted} /> : ''}
      <FunnelView funnel={d.funnel} rangeLabel={d.range.label} converted={d.converted?.revenue} />
      <div class="overview-grid">
        <section class="overview-chart" aria-labelledby="chart-title">
          <h2 id="chart-title">
            {cur ? <span safe>{`Revenue and commissions per ${d.bucket} (${cur})`}</span> : 'Revenue and commissions'}
          </h2>
          <div id="money-chart">
            {d.bucket !== 'day' ? <p class="caption bucket-note" safe>{`Each point is a ${d.bucket} (${d.bucket === 'week' ? 'weeks start on Monday' : 'calendar months'}, UTC), labelled by its first day.`}</p> : ''}
            {cur ? (
              <LineChart
                title={`Attributed revenue and commissions earned per ${d.bucket} in ${cur}, ${d.range.label}`}
                days={d.series.map((p) => p.bucket)}
                series={[
                  { label: 'Revenue', className: 's1', values: d.series.map((p) => p.revenue) },
                  { label: 'Commissions', className: 's3', values: d.series.map((p) => p.commissions) },
                ]}
                format={(v) => formatMoney(drawnToMinor(v, cur), cur)}
              />
            ) : (
              <p class="empty">No money yet: the chart starts with the first sale.</p>
            )}
          </div>
        </section>
        <Todo todo={d.todo} />
      </div>
      <h2 id="leaders-title">Top partners</h2>
      <Leaders rows={d.leaders} currency={cur} range={d.range} keep={keep} />
    </>
  );
}

const count = (n: number) => n.toLocaleString('en-US');

function Leaders(props: { rows: LeaderRow[]; currency: string | null; range: DateRange; keep: Record<string, string> }) {
  if (props.rows.length === 0 || !props.currency) {
    return props.range.key === 'all' ? (
      <EmptyState title="No partner activity yet" text="Partners show here with their first click or sale." action={{ href: '/admin/partners', label: 'Invite a partner' }} />
    ) : (
      <EmptyState title="No partner activity in this period" text="No partner had a click or a sale in this date range." action={{ href: href(PATH, {}, { range: 'all' }), label: 'Show all time' }} />
    );
  }
  const cur = props.currency;
  return (
    <div class="table-wrap" id="leaders">
      <table class="stack leaders">
        <caption class="vh" safe>{`Top ${TOP} partners by commissions earned, ${props.range.label}, money in ${cur}`}</caption>
        <thead>
          <tr>
            <th scope="col">Partner</th>
            <NumHead label="Clicks" />
            <NumHead label="Conversions" />
            <NumHead label="Revenue" />
            <NumHead label="Commissions" />
            <NumHead label="EPC" title="Earnings per click: commissions divided by clicks" />
          </tr>
        </thead>
        <tbody>
          {props.rows.map((r) => {
            const epc = earningsPerClick(r.commissions, r.clicks);
            return (
              <tr data-id={r.partnerId}>
                <td class="lead">
                  <Trunc text={r.name || r.email} href={`/admin/partners/${encodeURIComponent(r.partnerId)}`} />
                </td>
                <td class="num" data-label="Clicks" safe>
                  {count(r.clicks)}
                </td>
                <td class="num" data-label="Conversions" safe>
                  {count(r.conversions)}
                </td>
                <td class="num" data-label="Revenue" safe>
                  {formatMoney(r.revenue, cur)}
                </td>
                <td class="num money" data-label="Commissions" safe>
                  {formatMoney(r.commissions, cur)}
                </td>
                <td class="num" data-label="EPC" safe>
                  {epc === null ? '–' : formatMoney(epc, cur)}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

export function Todo(props: { todo: TodoCounts }) {
  const t = props.todo;
  const items = [
    { id: 'todo-payouts', n: t.payoutsPending, one: 'payout to confirm', many: 'payouts to confirm', href: '/admin/payouts?status=pending' },
    { id: 'todo-applications', n: t.applicationsWaiting, one: 'application waiting', many: 'applications waiting', href: '/admin/applications' },
    { id: 'todo-review', n: t.reviewWaiting, one: 'flagged commission to review', many: 'flagged commissions to review', href: '/admin/review' },
    { id: 'todo-invites', n: t.invitesPending, one: 'invite pending', many: 'invites pending', href: '/admin/partners?status=invited' },
    { id: 'todo-commissions', n: t.commissionsAccrued, one: 'commission waiting for approval', many: 'commissions waiting for approval', href: '/admin/commissions?status=accrued' },
    { id: 'todo-webhooks', n: t.webhooksFailing, one: 'webhook endpoint failing', many: 'webhook endpoints failing', href: '/admin/webhooks' },
  ];
  const open = items.filter((i) => i.n > 0);
  return (
    <section class="todo" id="todo" aria-labelledby="todo-title">
      <h2 id="todo-title">To do</h2>
      {open.length === 0 ? (
        <p class="todo-clear">Nothing waits for you.</p>
      ) : (
        <ul>
          {open.map((i) => (
            <li id={i.id}>
              <a href={i.href}>
                <span class="todo-n" safe>
                  {count(i.n)}
                </span>
                <span safe>{` ${i.n === 1 ? i.one : i.many}`}</span>
              </a>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** What the converted figures are, and any money no rate was found for (left out of them, shown as it is). */
function ConvertedNote(props: { converted: NonNullable<Data['converted']> }) {
  const { revenue, commissions } = props.converted;
  const left = [...revenue.unconverted.map((u) => `${formatMoney(u.amount, u.currency)} revenue`), ...commissions.unconverted.map((u) => `${formatMoney(u.amount, u.currency)} commissions`)];
  return (
    <p class="caption money-note" id="converted-note" safe>
      {`Converted figures: every currency's revenue and commissions in ${revenue.currency} at the exchange rate of the day each sale happened (the latest earlier rate on days without one). They are for reporting only: commissions owed and payouts stay in their own currency.${left.length > 0 ? ` No rate was found for ${left.join(', ')}: left out of the converted figures.` : ''}`}
    </p>
  );
}
