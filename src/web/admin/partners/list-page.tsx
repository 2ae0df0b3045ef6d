// Admin partners: the list page (filters, range, bulk bar, the table, the new partner form).
import { PARTNER_STATUS_FILTERS, type PartnerSortKey, type PartnerStatsRow } from '../../../modules/reports/partners';
import { CsrfInput, Field, SelectField, type FormErrors } from '../../forms';
import { Notice } from '../../layout';
import { RangePicker, rangeQuery } from '../../range';
import type { AdminPage } from '../../session';
import { Badge, EmptyState, formatMoney, href, MenuButton, menuId, MoneyCell, Pager, partnerBadge, RowMenu, SortHeader, Trunc } from '../../ui';
import { AdminLayout, Done } from '../kit';
import { ChoicesFieldset } from '../../kit/choices';
import { type CreateValues, DONE, LIST, type ListState, PAGE_SIZE, detailPath, epcText, isoDay } from './shared';
import { clickRate, FilteredNote } from '../../figures';

export function PartnersPage(props: {
  page: AdminPage;
  state: ListState;
  rows: PartnerStatsRow[];
  total: number;
  campaigns: { id: string; name: string }[];
  values?: CreateValues;
  errors?: FormErrors;
  done?: string;
  outcome: { ok?: string; error?: string };
}) {
  const s = props.state;
  const filtered = !!s.q || !!s.status || !!s.group;
  const pageQuery = { ...s.query, page: s.page > 1 ? String(s.page) : undefined };
  const back = new URLSearchParams(Object.entries(pageQuery).filter((e): e is [string, string] => !!e[1])).toString();
  const others = s.currencies.filter((c) => c !== s.currency);
  const header = (label: string, column: PartnerSortKey, num = false) => <SortHeader label={label} column={column} sort={s.sort} path={LIST} query={s.query} num={num} />;
  const detail = (id: string) => href(detailPath(id), { ...rangeQuery(s.range), currency: s.query.currency });
  return (
    <AdminLayout page={props.page} title="Partners" current={LIST}>
      <div class="page-head">
        <h1>Partners</h1>
        <div class="actions">
          <a class="button secondary" href={href(`${LIST}.csv`, s.query)} id="export">
            Export CSV
          </a>
          <a class="button" href="#new">
            New partner
          </a>
        </div>
      </div>
      <Done texts={DONE} done={props.done} />
      {!!props.outcome.ok && <Notice kind="ok" text={props.outcome.ok} />}
      {!!props.outcome.error && <Notice kind="error" text={props.outcome.error} />}
      <div class="tools-row">
        <FilterForm state={s} />
        <RangePicker action={LIST} range={s.range} keep={{ q: s.query.q, status: s.query.status, group: s.query.group, currency: s.query.currency, sort: s.query.sort, dir: s.query.dir }} />
      </div>
      <p class="caption" id="money-note" safe>
        {`Numbers for ${s.range.label.toLowerCase()}. Revenue, commissions and EPC in ${s.currency}; commissions leave reversed ones out.${
          others.length > 0 ? ` Money in ${others.join(', ')} is shown when you choose that currency.` : ''
        }`}
      </p>
      {props.rows.length === 0 ? (
        props.total > 0 ? (
          <EmptyState title="No partners on this page" text="The list is shorter than this page number." clear={href(LIST, s.query)} />
        ) : filtered ? (
          <EmptyState title="No partner matches" text="No partner matches the search and filters." clear={href(LIST, { ...rangeQuery(s.range), currency: s.query.currency })} />
        ) : (
          <EmptyState title="No partners yet" text="Invite your first partner: they get a sign-in link to the portal." action={{ href: '#new', label: 'New partner' }} />
        )
      ) : (
        <>
          <BulkBar state={s} csrf={props.page.csrf} back={back} />
          <PartnersTable rows={props.rows} state={s} header={header} detail={detail} csrf={props.page.csrf} />
          <Pager path={LIST} query={s.query} page={s.page} size={PAGE_SIZE} total={props.total} shown={props.rows.length} />
        </>
      )}
      <NewPartnerForm csrf={props.page.csrf} campaigns={props.campaigns} values={props.values} errors={props.errors} />
    </AdminLayout>
  );
}

/** Search, status, group and currency, keeping the range and the sort. */
function FilterForm(props: { state: ListState }) {
  const s = props.state;
  return (
    <form method="get" action={LIST} role="search" class="row partner-filter" aria-label="Filter partners">
      <Field name="q" label="Search by email or name" type="search" value={s.q} />
      <SelectField
        name="status"
        label="Status"
        value={s.status ?? ''}
        options={[{ value: '', label: 'Any' }, ...PARTNER_STATUS_FILTERS.map((v) => ({ value: v, label: `${v[0]!.toUpperCase()}${v.slice(1)}` }))]}
      />
      {s.groups.length > 0 && (
        <SelectField
          name="group"
          label="Group"
          value={s.group ?? ''}
          options={[{ value: '', label: 'Any' }, { value: 'none', label: 'No group' }, ...s.groups.map((g) => ({ value: g.id, label: g.name }))]}
        />
      )}
      {s.currencies.length > 1 && <SelectField name="currency" label="Money in" value={s.currency} options={s.currencies.map((c) => ({ value: c, label: c }))} />}
      {Object.entries({ ...rangeQuery(s.range), sort: s.query.sort, dir: s.query.dir }).map(([name, value]) => (value ? <input type="hidden" name={name} value={value} /> : ''))}
      <button type="submit" class="secondary">
        Filter
      </button>
    </form>
  );
}

/** The ticked partners' form and its bar: invite again, move to a group, revoke. */
function BulkBar(props: { state: ListState; csrf: string; back: string }) {
  const s = props.state;
  return (
    <>
      <form method="post" action={`${LIST}/bulk-invite`} id="bulk" class="bulk">
        <CsrfInput token={props.csrf} />
        <input type="hidden" name="back" value={props.back} />
      </form>
      <div class="bulk-bar" data-bulk-bar="bulk" id="bulk-bar">
        <span data-bulk-count>Tick partners for bulk actions</span>
        <button type="submit" form="bulk" formaction={`${LIST}/bulk-invite`} class="secondary">
          Send invite again
        </button>
        {s.groups.length > 0 && (
          <span class="bulk-move">
            <label for="bulk-group" class="vh">
              Group to move the ticked partners to
            </label>
            <select id="bulk-group" name="groupId" form="bulk">
              {s.groups.map((g) => (
                <option value={g.id} safe>
                  {g.name}
                </option>
              ))}
              <option value="">No group (leave their group)</option>
            </select>
            <button type="submit" form="bulk" formaction={`${LIST}/bulk-move`} class="secondary">
              Move to group…
            </button>
          </span>
        )}
        <button type="submit" form="bulk" formaction={`${LIST}/bulk-revoke`} class="danger">
          Revoke…
        </button>
      </div>
    </>
  );
}

/** Name, email, the invite box and the campaigns the partner may promote. */
function NewPartnerForm(props: { csrf: string; campaigns: { id: string; name: string }[]; values?: CreateValues; errors?: FormErrors }) {
  const sendInvite = props.values ? props.values.sendInvite === 'on' : true;
  // every live campaign is ticked until the admin says otherwise
  const ticked = new Set(props.values?.campaignIds ?? props.campaigns.map((c) => c.id));
  return (
    <>
      <h2 id="new">New partner</h2>
      <form method="post" action={LIST} novalidate class="narrow">
        <CsrfInput token={props.csrf} />
        {!!props.errors?._form && <Notice kind="error" text={props.errors._form} />}
        <Field name="name" label="Name" value={props.values?.name} error={props.errors?.name} required />
        <Field name="email" label="Email" type="email" value={props.values?.email} error={props.errors?.email} required />
        <div class="field check">
          <label>
            <input type="checkbox" name="sendInvite" checked={sendInvite} /> Email an invite (a sign-in link to the portal)
          </label>
        </div>
        {props.campaigns.length > 0 && <CampaignChoices campaigns={props.campaigns} ticked={ticked} error={props.errors?.campaignIds} legend="Campaigns the partner may promote" />}
        <button type="submit">Create partner</button>
      </form>
    </>
  );
}

export function PartnersTable(props: {
  rows: PartnerStatsRow[];
  state: ListState;
  header: (label: string, column: PartnerSortKey, num?: boolean) => JSX.Element;
  detail: (id: string) => string;
  csrf: string;
}) {
  const cur = props.state.currency;
  return (
    <>
      <div class="table-wrap">
        <table id="partners" class="stack partners-table">
          <caption class="vh" safe>
            {`Partners with their numbers for ${props.state.range.label.toLowerCase()}`}
          </caption>
          <thead>
            <tr>
              <th scope="col" class="pick">
                <input type="checkbox" data-select-all="ids" form="bulk" aria-label="Select every partner on this page" />
              </th>
              {props.header('Name', 'name')}
              {props.header('Status', 'status')}
              {props.state.groups.length > 0 && <th scope="col">Group</th>}
              {props.header('Clicks', 'clicks', true)}
              {props.header('Conversions', 'conversions', true)}
              {props.header('Rate', 'rate', true)}
              {props.header('Revenue', 'revenue', true)}
              {props.header('Commissions', 'commissions', true)}
              {props.header('EPC', 'epc', true)}
              {props.header('Created', 'created')}
              <th scope="col" class="act">
                <span class="vh">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {props.rows.map((p) => (
              <tr data-id={p.id} class="linked">
                <td class="pick" data-label="Select">
                  <label class="check">
                    <input type="checkbox" name="ids" value={p.id} form="bulk" />
                    <span class="vh" safe>{`Select ${p.name}`}</span>
                  </label>
                </td>
                {/* the email under the name (one column fewer: the table fits 1366 px) */}
                <td class="lead">
                  <Trunc text={p.name} href={props.detail(p.id)} />
                  <span class="email sub">
                    <Trunc text={p.email} />
                  </span>
                </td>
                <td class="badge-cell" data-label="Status">
                  <Badge {...partnerBadge(p)} />
                </td>
                {props.state.groups.length > 0 && (
                  <td data-label="Group" class="group-cell" data-stat="group">
                    {p.groupId ? <Trunc text={props.state.groups.find((g) => g.id === p.groupId)?.name ?? p.groupId} /> : <span class="muted">–</span>}
                  </td>
                )}
                <td class="num" data-label="Clicks">
                  <span safe>{p.clicks.toLocaleString('en-US')}</span>
                  <FilteredNote n={p.filteredClicks} />
                </td>
                <td class="num" data-label="Conversions" safe>
                  {p.conversions.toLocaleString('en-US')}
                </td>
                <td class="num" data-label="Conversion rate" safe>
                  {clickRate(p)}
                </td>
                <MoneyCell amount={p.revenue} currency={cur} label="Revenue" />
                <td class="num figure" data-label="Commissions" safe>
                  {formatMoney(p.commissions, cur)}
                </td>
                <td class="num figure" data-label="EPC" safe>
                  {epcText(p.commissions, p.clicks, cur)}
                </td>
                <td data-label="Created" safe>
                  {isoDay(p.createdAt)}
                </td>
                <MenuButton menu={menuId('pm', p.id)} label={`Actions for ${p.name}`} />
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {props.rows.map((p) => (
        <RowMenu id={menuId('pm', p.id)} title={p.name}>
          <a href={props.detail(p.id)}>Open</a>
          <a href={`/admin/commissions?partnerId=${encodeURIComponent(p.id)}`}>Commissions</a>
          {p.status === 'pending' && (
            <form method="post" action={`${detailPath(p.id)}/invite`}>
              <CsrfInput token={props.csrf} />
              <button type="submit">Send invite again</button>
            </form>
          )}
          {p.status === 'revoked' ? (
            <form method="post" action={`${detailPath(p.id)}/reinstate`}>
              <CsrfInput token={props.csrf} />
              <button type="submit">Reinstate</button>
            </form>
          ) : (
            <a href={`${detailPath(p.id)}/revoke`} class="danger-link">
              Revoke…
            </a>
          )}
        </RowMenu>
      ))}
    </>
  );
}

export function CampaignChoices(props: { campaigns: { id: string; name: string }[]; ticked: Set<string>; error?: string; legend: string; hint?: string }) {
  return (
    <ChoicesFieldset
      name="campaignIds"
      legend={props.legend}
      choices={props.campaigns.map((c) => ({ value: c.id, label: c.name }))}
      ticked={(id) => props.ticked.has(id)}
      error={props.error}
      hint={props.hint}
    >
      <input type="hidden" name="campaignsShown" value="1" />
    </ChoicesFieldset>
  );
}
