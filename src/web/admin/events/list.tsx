// The events list (GET /admin/events): conversion events by when they happened (occurredAt, the day a
// sale counts on everywhere; docs/analytics.md), latest first, filtered by type, attribution status,
// user id and a date range over that same time, sortable by it or by amount.
import { ATTRIBUTION_STATUSES, type EventListed } from '../../../modules/reports/money';
import { Field, SelectField } from '../../forms';
import { RangePicker, rangeQuery, type DateRange } from '../../range';
import type { AdminPage } from '../../session';
import { Badge, EmptyState, href, MoneyCell, Pager, SortHeader, Trunc, type Sort, NumHead } from '../../ui';
import { AdminLayout } from '../kit';
import { eventHref, totalsText } from '../tables';
import { attributionBadge } from './badge';
import { LIST, minute, PAGE_SIZE, type View } from './filter';

function Commissions(props: { list: { currency: string; amount: bigint }[] }) {
  return (
    <td class="num" data-label="Commission" safe>
      {props.list.length === 0 ? '–' : totalsText(props.list)}
    </td>
  );
}

/** The list as HTML. */
export const eventsView = (props: ListProps) => (<EventsPage {...props} />) as string;

type ListProps = {
  page: AdminPage;
  rows: EventListed[];
  total: number;
  any: boolean;
  types: string[];
  range: DateRange;
  filters: View;
  view: View;
  sort: Sort<'time' | 'amount'>;
  pageNumber: number;
};

function EventsPage(props: ListProps) {
  const f = props.filters;
  const narrowed = !!(f.type || f.status || f.userId);
  const typeOptions = [...new Set([...props.types, ...(f.type ? [f.type] : [])])];
  const sortBy = { sort: props.sort, path: LIST, query: props.view };
  return (
    <AdminLayout page={props.page} title="Events" current={LIST}>
      <div class="page-head">
        <h1>Events</h1>
        <a class="button secondary" id="csv" href={href(`${LIST}.csv`, f)} download="events.csv">
          Export CSV
        </a>
      </div>
      <RangePicker action={LIST} range={props.range} keep={{ type: f.type, status: f.status, userId: f.userId, sort: props.view.sort, dir: props.view.dir }} />
      <form method="get" action={LIST} class="row" aria-label="Filter events">
        <SelectField name="type" label="Type" value={f.type ?? ''} options={[{ value: '', label: 'Any' }, ...typeOptions.map((t) => ({ value: t, label: t }))]} />
        <SelectField
          name="status"
          label="Attribution"
          value={f.status ?? ''}
          options={[{ value: '', label: 'Any' }, ...ATTRIBUTION_STATUSES.map((s) => ({ value: s, label: attributionBadge(s).label }))]}
        />
        <Field name="userId" label="User id" value={f.userId} />
        {Object.entries({ ...rangeQuery(props.range), sort: props.view.sort, dir: props.view.dir }).map(([name, value]) => (value ? <input type="hidden" name={name} value={value} /> : ''))}
        <button type="submit" class="secondary">
          Filter
        </button>
      </form>
      {props.rows.length === 0 ? (
        !props.any ? (
          <EmptyState
            title="No events yet"
            text="Conversion events arrive from your backend (POST /v1/events) or a billing plugin."
            action={{ href: '/docs', label: 'Read the API reference' }}
          />
        ) : props.total > 0 ? (
          <EmptyState title="Nothing on this page" text="There are fewer events than this page number." action={{ href: href(LIST, f), label: 'First page' }} />
        ) : (
          <EmptyState
            title="No event matches"
            text={narrowed ? 'No event of this type, attribution and user happened in this period.' : `No event happened in this period (${props.range.label}).`}
            clear={href(LIST, { range: 'all' })}
          />
        )
      ) : (
        <>
          <EventsTable rows={props.rows} sortBy={sortBy} />
          <Pager path={LIST} query={props.view} page={props.pageNumber} size={PAGE_SIZE} total={props.total} shown={props.rows.length} />
        </>
      )}
    </AdminLayout>
  );
}

/** One row an event: when, type, user, amount, attribution, the partners credited, the commission. */
function EventsTable(props: { rows: EventListed[]; sortBy: { sort: Sort<'time' | 'amount'>; path: string; query: View } }) {
  const { sortBy } = props;
  return (
    <div class="table-wrap">
      <table id="events" class="stack">
        <caption class="vh">Conversion events by when they happened</caption>
        <thead>
          <tr>
            <SortHeader label="Happened (UTC)" column="time" {...sortBy} />
            <th scope="col">Type</th>
            <th scope="col">User</th>
            <SortHeader label="Amount" column="amount" {...sortBy} num />
            <th scope="col">Attribution</th>
            <th scope="col">Partners credited</th>
            <NumHead label="Commission" />
          </tr>
        </thead>
        <tbody>
          {props.rows.map((e) => (
            <tr data-id={e.id}>
              <td class="lead">
                <a href={eventHref(e.id)} class="nowrap" title={`Happened ${minute(e.occurredAt)} UTC, received ${minute(e.receivedAt)} UTC`} safe>
                  {minute(e.occurredAt)}
                </a>
              </td>
              <td data-label="Type">
                <Trunc text={e.type} />
              </td>
              <td data-label="User">
                <Trunc text={e.userId} />
              </td>
              {e.amount !== null && e.currency ? (
                <MoneyCell amount={e.amount} currency={e.currency} />
              ) : (
                <td class="num money" data-label="Amount">
                  –
                </td>
              )}
              <td class="badge-cell" data-label="Attribution">
                <Badge {...attributionBadge(e.attributionStatus)} />
              </td>
              <td data-label="Partners">
                <Trunc text={e.partners.map((p) => p.name).join(', ') || '–'} />
              </td>
              <Commissions list={e.commissions} />
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
