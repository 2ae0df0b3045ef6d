// The commissions list: filter, sort, page, the CSV export, the row menus and the bulk bar.
import { Elysia } from 'elysia';
import type { AppContext } from '../../../context';
import { csvResponse } from '../../../lib/csv';
import { canTransition } from '../../../modules/commissions/lifecycle';
import { COMMISSION_STATUSES, type Commission } from '../../../modules/commissions/service';
import { plural } from '../kit/bulk';
import { anyCommission, commissionPage, commissionsCsv, SORTS, type CommissionListed } from '../../../modules/reports/money';
import { ConfirmDialog, ConfirmTrigger } from '../../confirm';
import { CsrfInput, Field, SelectField, type FormErrors } from '../../forms';
import { Notice } from '../../layout';
import { render } from '../../render';
import type { AdminPage } from '../../session';
import { commissionBadge, EmptyState, formatMoney, href, menuId, Pager, parsePage, parseSort, type Sort } from '../../ui';
import { AdminLayout, campaignNames, can, type AdminKit } from '../kit';
import { CommissionsTable, DialogField, eventHref, RowCheck } from '../tables';
import { overrideRecruits } from '../../../modules/reports/rewards';
import { filterOnly, FilterQuery, LIST, PAGE_SIZE, DEFAULT_SORT, partnerOf, readFilter, REVERSE_TEXT, scopeOf, viewOf, type Filter, type Outcome, type View } from './view';

export async function listView(ctx: AppContext, page: AdminPage, query: Record<string, string | undefined>, outcome: Outcome = {}) {
  const view = viewOf(query);
  const filter = readFilter(query);
  const sort = parseSort(query, SORTS.commissions, DEFAULT_SORT);
  const paging = parsePage(query, PAGE_SIZE);
  const who = await partnerOf(ctx, filter);
  const { scope, errors: dateErrors } = scopeOf(filter, who.partnerId);
  const errors: FormErrors = { ...dateErrors, ...(who.error ? { partner: who.error } : {}) };
  const [{ rows, total }, campaigns, any] = await Promise.all([
    Object.keys(errors).length > 0 ? Promise.resolve({ rows: [], total: 0 }) : commissionPage(ctx.sql, { filter: scope, sort, offset: paging.offset, limit: paging.limit }),
    campaignNames(ctx),
    anyCommission(ctx.sql),
  ]);
  const overrides = await overrideRecruits(ctx.sql, rows.filter((c) => c.sourceCommissionId).map((c) => c.id));
  return (
    <CommissionsPage
      page={page}
      rows={rows}
      total={total}
      any={any}
      view={view}
      sort={sort}
      pageNumber={paging.page}
      filterErrors={errors}
      campaigns={campaigns}
      overrides={overrides}
      outcome={outcome}
    />
  ) as string;
}

export function listRoutes(ctx: AppContext, kit: AdminKit) {
  return new Elysia({ detail: { hide: true } })
    .get(
      LIST,
      ({ request, query }) =>
        kit.page(request, async (page) => {
          const outcome: Outcome = {};
          const n = (text: string | undefined) => Number.parseInt(text ?? '0', 10) || 0;
          const skipped = n(query.skipped) > 0 ? ` ${plural(n(query.skipped), 'ticked row was', 'ticked rows were')} skipped (no longer in a state that allows it).` : '';
          if (query.approved !== undefined) outcome.ok = `Approved ${plural(n(query.approved), 'commission')}.${skipped}`;
          if (query.reversed !== undefined) outcome.ok = `Reversed ${plural(n(query.reversed), 'commission')}.${skipped}`;
          if (query.done === 'reversed') outcome.ok = 'Commission reversed.';
          return render(await listView(ctx, page, query, outcome));
        }),
      { query: FilterQuery },
    )
    .get(
      `${LIST}.csv`,
      ({ request, query }) =>
        kit.page(request, async () => {
          const filter = readFilter(query);
          const who = await partnerOf(ctx, filter);
          // an unknown partner email matches nothing: the header alone
          const { scope, errors } = scopeOf(filter, who.error ? 'none' : who.partnerId);
          if (Object.keys(errors).length > 0) scope.partnerId = 'none';
          // an export is a report read: the replica's when it is current
          return csvResponse(commissionsCsv(await ctx.reads.sql(), scope), 'commissions.csv');
        }),
      { query: FilterQuery },
    );
}

type ListProps = {
  page: AdminPage;
  rows: CommissionListed[];
  total: number;
  any: boolean;
  view: View;
  sort: Sort<'date' | 'amount'>;
  pageNumber: number;
  filterErrors: FormErrors;
  campaigns: Map<string, string>;
  overrides: Map<string, { id: string; name: string }>;
  outcome: Outcome;
};

function CommissionsPage(props: ListProps) {
  const v = props.view;
  const filters = filterOnly(v);
  const filtered = Object.values(filters).some(Boolean);
  const partners = new Map(props.rows.map((c) => [c.partnerId, c.partnerName]));
  return (
    <AdminLayout page={props.page} title="Commissions" current={LIST}>
      <div class="page-head">
        <h1>Commissions</h1>
        <a class="button secondary" id="csv" href={href(`${LIST}.csv`, filters)} download="commissions.csv">
          Export CSV
        </a>
      </div>
      {!!props.outcome.ok && <Notice kind="ok" text={props.outcome.ok} />}
      {!!props.outcome.error && <Notice kind="error" text={props.outcome.error} />}
      <FilterForm view={v} campaigns={props.campaigns} errors={props.filterErrors} />
      {!!v.partnerId && (
        <p>
          <span safe>{`Partner: ${partners.get(v.partnerId) ?? v.partnerId}`}</span> <a href={href(LIST, { ...filters, partnerId: undefined })}>clear</a>
        </p>
      )}
      {props.rows.length === 0 ? <NoRows filtered={filtered} any={props.any} filters={filters} /> : <CommissionList {...props} partners={partners} />}
    </AdminLayout>
  );
}

/** The filter: status, partner email, campaign, fraud flags, the sale's days (the sort rides along). */
function FilterForm(props: { view: View; campaigns: Map<string, string>; errors: FormErrors }) {
  const v = props.view;
  return (
    <form method="get" action={LIST} class="row" aria-label="Filter commissions">
      <SelectField
        name="status"
        label="Status"
        value={v.status ?? ''}
        options={[{ value: '', label: 'Any' }, ...COMMISSION_STATUSES.map((s) => ({ value: s, label: commissionBadge({ status: s, createdAt: '' }).label }))]}
      />
      <Field name="partner" label="Partner email" type="email" value={v.partner} error={props.errors.partner} />
      <SelectField
        name="campaignId"
        label="Campaign"
        value={v.campaignId ?? ''}
        options={[{ value: '', label: 'Any' }, ...[...props.campaigns].map(([value, label]) => ({ value, label }))]}
      />
      <SelectField
        name="flagged"
        label="Fraud flags"
        value={v.flagged ?? ''}
        options={[
          { value: '', label: 'Any' },
          { value: 'yes', label: 'Flagged' },
          { value: 'no', label: 'Not flagged' },
        ]}
      />
      <Field name="from" label="Sale from" type="date" value={v.from} error={props.errors.from} />
      <Field name="to" label="Sale to" type="date" value={v.to} error={props.errors.to} />
      {!!v.partnerId && <input type="hidden" name="partnerId" value={v.partnerId} />}
      {!!v.sort && <input type="hidden" name="sort" value={v.sort} />}
      {!!v.dir && <input type="hidden" name="dir" value={v.dir} />}
      <button type="submit" class="secondary">
        Filter
      </button>
    </form>
  );
}

/** Why the list is empty: nothing yet, nothing matches, or a page past the end. */
function NoRows(props: { filtered: boolean; any: boolean; filters: View }) {
  const filters = props.filters;
  return props.filtered || !props.any ? (
    props.any ? (
      <EmptyState title="No commission matches" text="No commission has this status, partner and campaign." clear={LIST} />
    ) : (
      <EmptyState
        title="No commissions yet"
        text="A commission appears when a referred customer converts on a campaign rule."
        action={{ href: '/admin/campaigns', label: 'Set up a campaign' }}
      />
    )
  ) : (
    <EmptyState title="Nothing on this page" text="There are fewer commissions than this page number." action={{ href: href(LIST, filters), label: 'First page' }} />
  );
}

/** The rows: the bulk bar, the table with its row menus, the pager and each row's reverse dialog. */
function CommissionList(props: ListProps & { partners: Map<string, string> }) {
  const v = props.view;
  const csrf = props.page.csrf;
  const partners = props.partners;
  // approving and reversing are money actions: roles without them see the rows only
  const money = can(props.page, 'POST', `${LIST}/approve`);
  const selectable = (c: Commission) => money && (canTransition('approve', c.status) || canTransition('reverse', c.status));
  const action = (path: string) => href(path, v);
  return (
    <>
      {money && (
      <form method="get" action={`${LIST}/bulk`} id="bulk" class="bulk" aria-label="Act on the ticked commissions">
        {Object.entries(v).map(([name, value]) => (value ? <input type="hidden" name={name} value={value} /> : ''))}
        <div class="bulk-bar" data-bulk-bar="bulk">
          <span data-bulk-count>Tick rows to approve or reverse them</span>
          <button type="submit" name="action" value="approve" class="secondary">
            Approve…
          </button>
          <button type="submit" name="action" value="reverse" class="danger">
            Reverse…
          </button>
        </div>
      </form>
      )}
      <CommissionsTable
        commissions={props.rows}
        names={{ partners, campaigns: props.campaigns, overrides: props.overrides }}
        caption={`Commissions, ${props.sort.key === 'amount' ? 'by amount' : props.sort.dir === 'asc' ? 'oldest first' : 'newest first'}`}
        sorting={{ sort: props.sort, path: LIST, query: v }}
        selectAll={money ? 'bulk' : undefined}
        select={(c) => (selectable(c) ? <RowCheck id={c.id} form="bulk" label={`Select ${formatMoney(c.amount, c.currency)} for ${partners.get(c.partnerId) ?? c.partnerId}`} /> : '')}
        actions={(c) => {
          const approve = money && canTransition('approve', c.status);
          const reverse = money && canTransition('reverse', c.status);
          const amount = formatMoney(c.amount, c.currency);
          const partner = partners.get(c.partnerId) ?? c.partnerId;
          return {
            title: `${amount} for ${partner}`,
            items: (
              <>
                <a href={`${LIST}/${encodeURIComponent(c.id)}`}>Open the commission</a>
                <a href={eventHref(c.eventId)}>Open the event</a>
                {approve && (
                  <form method="post" action={action(`${LIST}/${encodeURIComponent(c.id)}/approve`)}>
                    <CsrfInput token={csrf} />
                    <button type="submit">Approve</button>
                  </form>
                )}
                {reverse && (
                  <ConfirmTrigger href={action(`${LIST}/${encodeURIComponent(c.id)}/reverse`)} dialog={menuId('rev', c.id)} label="Reverse…" secondary />
                )}
              </>
            ),
          };
        }}
      />
      <Pager path={LIST} query={v} page={props.pageNumber} size={PAGE_SIZE} total={props.total} shown={props.rows.length} />
      {props.rows
        .filter((c) => money && canTransition('reverse', c.status))
        .map((c) => {
          const amount = formatMoney(c.amount, c.currency);
          const partner = partners.get(c.partnerId) ?? c.partnerId;
          const id = menuId('rev', c.id);
          return (
            <ConfirmDialog
              id={id}
              title={`Reverse ${amount} for ${partner}`}
              action={action(`${LIST}/${encodeURIComponent(c.id)}/reverse`)}
              button={`Reverse ${amount}`}
              csrf={csrf}
              danger
            >
              <p>{REVERSE_TEXT}</p>
              <DialogField id={`${id}-reason`} name="reason" label="Reason" hint="Refund, chargeback, fraud…" required />
            </ConfirmDialog>
          );
        })}
    </>
  );
}
