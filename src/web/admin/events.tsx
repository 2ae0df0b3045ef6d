// Admin events: the conversion events received, newest first, with what attribution made of each
// (status, partners credited, commission), filtered by type, attribution status, user id and date
// range, sortable by time or amount, exported as CSV with the same filters; an event's page shows
// its attributions, the user's referral touches and its commissions.
import { Elysia, t } from 'elysia';
import type { AppContext } from '../../context';
import { csvResponse } from '../../lib/csv';
import {
  anyEvent,
  ATTRIBUTION_STATUSES,
  eventDetail,
  eventPage,
  eventsCsv,
  eventTypes,
  SORTS,
  type AttributionStatusName,
  type EventDetail,
  type EventFilter,
  type EventListed,
} from '../../modules/reports/money';
import { Field, SelectField } from '../forms';
import { parseRange, RangePicker, rangeQuery, type DateRange } from '../range';
import { render } from '../render';
import type { AdminPage } from '../session';
import { Badge, EmptyState, formatMoney, href, MoneyCell, Pager, parsePage, parseSort, SortHeader, Trunc, type Sort, type Tone, NumHead } from '../ui';
import { AdminLayout, NotFoundPage, type AdminKit } from './kit';
import { CommissionsTable, eventHref, totalsText } from './tables';

const LIST = '/admin/events';
const PAGE_SIZE = 50;
const DEFAULT_SORT: Sort<'time' | 'amount'> = { key: 'time', dir: 'desc' };

type View = Record<string, string | undefined>;

const ListQuery = t.Object({
  type: t.Optional(t.String({ maxLength: 200 })),
  status: t.Optional(t.String({ maxLength: 20 })),
  userId: t.Optional(t.String({ maxLength: 255 })),
  range: t.Optional(t.String({ maxLength: 10 })),
  from: t.Optional(t.String({ maxLength: 10 })),
  to: t.Optional(t.String({ maxLength: 10 })),
  sort: t.Optional(t.String({ maxLength: 20 })),
  dir: t.Optional(t.String({ maxLength: 4 })),
  page: t.Optional(t.String({ maxLength: 8 })),
});

/** What attribution made of an event, as a badge that says what it means. */
export function attributionBadge(status: string): { tone: Tone; label: string; title: string } {
  switch (status) {
    case 'attributed':
      return { tone: 'green', label: 'Attributed', title: 'Attributed: credited to the partners whose clicks led to it' };
    case 'no_identity':
      return { tone: 'grey', label: 'No identity', title: 'Not attributed: this user was never tied to a click (identify was not called)' };
    case 'no_click':
      return { tone: 'grey', label: 'No click', title: 'Not attributed: the user has no partner click' };
    case 'outside_window':
      return { tone: 'amber', label: 'Outside window', title: "Not attributed: the user's clicks are older than the attribution window" };
    default:
      return { tone: 'grey', label: status, title: status };
  }
}

/** "2026-11-23 14:05" in UTC. */
const minute = (d: Date) => d.toISOString().slice(0, 16).replace('T', ' ');

function readFilter(query: Record<string, string | undefined>): { filter: Omit<EventFilter, 'from' | 'to'>; range: DateRange } {
  const status = (ATTRIBUTION_STATUSES as readonly string[]).includes(query.status ?? '') ? (query.status as AttributionStatusName) : undefined;
  return { filter: { type: query.type?.trim() || undefined, status, userId: query.userId?.trim() || undefined }, range: parseRange(query) };
}

/** The filters a link keeps (range included), without sort or page. */
function filtersOf(query: Record<string, string | undefined>): View {
  const { filter, range } = readFilter(query);
  return { type: filter.type, status: filter.status, userId: filter.userId, ...rangeQuery(range) };
}

const rangeBounds = (range: DateRange) => ({ from: range.start ?? new Date(0), to: range.end });

export function eventRoutes(ctx: AppContext, kit: AdminKit) {
  return new Elysia({ detail: { hide: true } })
    .get(
      LIST,
      ({ request, query }) =>
        kit.page(request, async (page) => {
          const { filter, range } = readFilter(query);
          const sort = parseSort(query, SORTS.events, DEFAULT_SORT);
          const paging = parsePage(query, PAGE_SIZE);
          const [{ rows, total }, any, types] = await Promise.all([
            eventPage(ctx.sql, { filter: { ...filter, ...rangeBounds(range) }, sort, offset: paging.offset, limit: paging.limit }),
            anyEvent(ctx.sql),
            eventTypes(ctx.sql),
          ]);
          const filters = filtersOf(query);
          const view: View = { ...filters, sort: query.sort === sort.key ? sort.key : undefined, dir: query.dir === 'asc' ? 'asc' : undefined, page: paging.page > 1 ? String(paging.page) : undefined };
          return render(<EventsPage page={page} rows={rows} total={total} any={any} types={types} range={range} filters={filters} view={view} sort={sort} pageNumber={paging.page} />);
        }),
      { query: ListQuery },
    )
    .get(
      `${LIST}.csv`,
      ({ request, query }) =>
        kit.page(request, () => {
          const { filter, range } = readFilter(query);
          return csvResponse(eventsCsv(ctx.sql, { ...filter, ...rangeBounds(range) }), 'events.csv');
        }),
      { query: ListQuery },
    )
    .get(
      `${LIST}/:id`,
      ({ request, params }) =>
        kit.page(request, async (page) => {
          const detail = await eventDetail(ctx.sql, params.id);
          if (!detail) return render(<NotFoundPage page={page} what="event" back={LIST} />, { status: 404 });
          return render(<EventPage page={page} detail={detail} />);
        }),
      { params: t.Object({ id: t.String({ maxLength: 64 }) }) },
    );
}

function Commissions(props: { list: { currency: string; amount: bigint }[] }) {
  return (
    <td class="num" data-label="Commission" safe>
      {props.list.length === 0 ? '–' : totalsText(props.list)}
    </td>
  );
}

function EventsPage(props: {
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
}) {
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
            text={narrowed ? 'No event of this type, attribution and user was received in this period.' : `No event was received in this period (${props.range.label}).`}
            clear={href(LIST, { range: 'all' })}
          />
        )
      ) : (
        <>
          <div class="table-wrap">
            <table id="events" class="stack">
              <caption class="vh">Conversion events received</caption>
              <thead>
                <tr>
                  <SortHeader label="Time" column="time" {...sortBy} />
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
                      <a href={eventHref(e.id)} class="nowrap" title={`Received ${minute(e.receivedAt)} UTC, occurred ${minute(e.occurredAt)} UTC`} safe>
                        {minute(e.receivedAt)}
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
          <Pager path={LIST} query={props.view} page={props.pageNumber} size={PAGE_SIZE} total={props.total} shown={props.rows.length} />
        </>
      )}
    </AdminLayout>
  );
}

function EventPage(props: { page: AdminPage; detail: EventDetail }) {
  const { event: e, attributions, touches, commissions } = props.detail;
  const metadata = JSON.stringify(e.metadata, null, 2);
  const partners = new Map(commissions.map((c) => [c.partnerId, c.partnerName]));
  const campaigns = new Map(commissions.map((c) => [c.campaignId, c.campaignName]));
  // a recruit override shares its event with the recruit's commission: the recruit is on this page
  const overrides = new Map(
    commissions.flatMap((c) => {
      const source = c.sourceCommissionId ? commissions.find((s) => s.id === c.sourceCommissionId) : undefined;
      return source ? [[c.id, { id: source.partnerId, name: source.partnerName }] as const] : [];
    }),
  );
  return (
    <AdminLayout page={props.page} title="Event" current={LIST}>
      <p class="back">
        <a href={LIST}>Events</a>
      </p>
      <h1 safe>{`${e.type} from ${e.userId}`}</h1>
      <dl class="facts">
        <dt>Attribution</dt>
        <dd>
          <Badge {...attributionBadge(e.attributionStatus)} id="event-status" />
          {!!e.attributionModel && <span class="note" safe>{e.attributionModel.replace(/_/g, ' ')}</span>}
        </dd>
        <dt>Amount</dt>
        <dd class="money">
          {e.amount !== null && e.currency ? <span safe>{formatMoney(e.amount, e.currency)}</span> : '–'}
        </dd>
        <dt>Occurred</dt>
        <dd safe>{`${minute(e.occurredAt)} UTC`}</dd>
        <dt>Received</dt>
        <dd safe>{`${minute(e.receivedAt)} UTC`}</dd>
        <dt>Source</dt>
        <dd safe>{e.source}</dd>
        <dt>Event id</dt>
        <dd>
          <code safe>{e.id}</code>
        </dd>
        {!!e.idempotencyKey && (
          <>
            <dt>Idempotency key</dt>
            <dd>
              <code safe>{e.idempotencyKey}</code>
            </dd>
          </>
        )}
      </dl>
      {metadata !== '{}' && (
        <details>
          <summary>Metadata</summary>
          <pre class="response" safe>
            {metadata}
          </pre>
        </details>
      )}
      <h2>Commissions</h2>
      {commissions.length === 0 ? (
        <p class="empty">No commission: {e.attributionStatus === 'attributed' ? 'no campaign rule matched this event for the credited partners.' : 'the event was not attributed.'}</p>
      ) : (
        <CommissionsTable commissions={commissions} names={{ partners, campaigns, overrides }} caption="Commissions this event earned" />
      )}
      {props.detail.adjustments.length > 0 && <AmountChanges changes={props.detail.adjustments} />}
      <h2>Attributions</h2>
      {attributions.length === 0 ? (
        <p class="empty" safe>{attributionBadge(e.attributionStatus).title}</p>
      ) : (
        <div class="table-wrap">
          <table id="attributions" class="stack">
            <caption class="vh">Partners credited with this event</caption>
            <thead>
              <tr>
                <th scope="col">Partner</th>
                <th scope="col">Campaign</th>
                <th scope="col">Click or code</th>
                <th scope="col">Model</th>
                <NumHead label="Share" />
              </tr>
            </thead>
            <tbody>
              {attributions.map((a) => (
                <tr>
                  <td class="lead">
                    <Trunc text={a.partnerName} href={`/admin/partners/${encodeURIComponent(a.partnerId)}`} />
                  </td>
                  <td data-label="Campaign">
                    <Trunc text={a.campaignName} />
                  </td>
                  <td data-label="Click or code">
                    <TouchSource clickId={a.clickId} couponCode={a.couponCode} />
                  </td>
                  <td data-label="Model" safe>
                    {a.model.replace(/_/g, ' ')}
                  </td>
                  <td class="num" data-label="Share" safe>
                    {`${Math.round(a.weight * 1000) / 10}%`}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {touches.length > 0 && (
        <>
          <h2>Referral touches of this user</h2>
          <p class="hint">The clicks (or the promotion code) recorded at the user's first attributed event; later events of the user are credited to them again.</p>
          <div class="table-wrap">
            <table id="touches" class="stack">
              <caption class="vh">Referral touches</caption>
              <thead>
                <tr>
                  <th scope="col">Partner</th>
                  <th scope="col">Campaign</th>
                  <th scope="col">Click or code</th>
                  <NumHead label="Weight" />
                </tr>
              </thead>
              <tbody>
                {touches.map((t) => (
                  <tr>
                    <td class="lead">
                      <Trunc text={t.partnerName} href={`/admin/partners/${encodeURIComponent(t.partnerId)}`} />
                    </td>
                    <td data-label="Campaign">
                      <Trunc text={t.campaignName} />
                    </td>
                    <td data-label="Click or code">
                      <TouchSource clickId={t.clickId} couponCode={t.couponCode} />
                    </td>
                    <td class="num" data-label="Weight" safe>
                      {`${t.weightNum}/${t.weightDen}`}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </AdminLayout>
  );
}

/** Why a commission's amount is below what it accrued: each reduction, who made it and why. */
function AmountChanges(props: { changes: EventDetail['adjustments'] }) {
  return (
    <>
      <h3>Amount changes</h3>
      <p class="hint">Money that came back on this payment lowered its commissions in proportion; a paid one owes the difference back in the next payout.</p>
      <div class="table-wrap">
        <table id="amount-changes" class="stack">
          <caption class="vh">Amount changes of these commissions</caption>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Partner</th>
              <NumHead label="Before" />
              <NumHead label="After" />
              <th scope="col">Why</th>
              <th scope="col">By</th>
            </tr>
          </thead>
          <tbody>
            {props.changes.map((c) => (
              <tr>
                <td class="lead" safe>{`${minute(c.at)} UTC`}</td>
                <td data-label="Partner">
                  <Trunc text={c.partnerName} />
                </td>
                <td class="num" data-label="Before" safe>
                  {formatMoney(c.before, c.currency)}
                </td>
                <td class="num" data-label="After" safe>
                  {formatMoney(c.after, c.currency)}
                </td>
                <td data-label="Why" safe>
                  {c.detail ? `${c.reason.replace(/_/g, ' ')}: ${c.detail}` : c.reason.replace(/_/g, ' ')}
                </td>
                <td data-label="By" safe>
                  {c.actor}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

/** What credited a touch: its click, or the promotion code the customer used. */
function TouchSource(props: { clickId: string | null; couponCode: string | null }) {
  if (props.clickId !== null) return <Trunc text={props.clickId} />;
  return (
    <span class="touch-code">
      Code{' '}
      <code class="promo-code" safe>
        {props.couponCode ?? ''}
      </code>
    </span>
  );
}
