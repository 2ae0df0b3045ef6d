// Tables several admin pages share: commissions, payouts, links. One line per row (badges, money and
// dates never wrap, long names end in an ellipsis); a payout row's lead cell opens the payout, a
// commission's event cell its event; row actions sit in a "⋯" menu after the table;
// on phones each row is a card whose labels come from data-label (style.css).
import type { Children } from '@kitajs/html';
import type { Commission } from '../../modules/commissions/service';
import type { PayoutView } from '../../modules/payouts/service';
import { attr, Badge, commissionBadge, formatMoney, MenuButton, MoneyCell, menuId, payoutBadge, RowMenu, SortHeader, Trunc, type Sort, NumHead } from '../ui';
import { day } from './kit';

/** Ids to names for the tables' partner and campaign columns. */
export type Names = {
  partners?: Map<string, string>;
  campaigns?: Map<string, string>;
  /** recruit_override commission id -> the recruit it was earned on (reports/rewards.ts overrideRecruits) */
  overrides?: Map<string, { id: string; name: string }>;
};

/** Which rules paid a commission, in words (its `ruleSource`). */
export const RULE_SOURCES: Record<string, { label: string; title: string }> = {
  campaign: { label: 'campaign rules', title: "Paid under the campaign's rules" },
  group: { label: 'group rules', title: "Paid under the rules of the partner's group, which win over the campaign's" },
  snapshot: { label: 'snapshot', title: "Paid under the partner's commission snapshot, which wins over group and campaign rules" },
};

/**
 * A commission's event in a table cell: its type and which rules paid it ("invoice_paid · group
 * rules"), or for a recruiter's share "Recruit override of Ann Archer" (linked to the recruit).
 */
export function CommissionEvent(props: { c: Commission; names: Names }) {
  const c = props.c;
  if (c.eventType === 'recruit_override') {
    const recruit = props.names.overrides?.get(c.id);
    return (
      <span class="trunc override" title={attr(`Recruit override: this partner's share of ${recruit ? `${recruit.name}'s` : "a recruit's"} commission, reversed with it`)}>
        {'Recruit override of '}
        {recruit ? (
          <a href={partnerHref(recruit.id)} safe>
            {recruit.name}
          </a>
        ) : (
          'a recruit'
        )}
      </span>
    );
  }
  const source = c.ruleSource ? RULE_SOURCES[c.ruleSource] : undefined;
  return (
    <span class="event-cell">
      <Trunc text={c.eventType} href={eventHref(c.eventId)} />
      {!!source && (
        <span class="rule-source" title={attr(source.title)} data-rule-source={c.ruleSource} safe>
          {source.label}
        </span>
      )}
    </span>
  );
}

const partnerHref = (id: string) => `/admin/partners/${encodeURIComponent(id)}`;
export const eventHref = (id: string) => `/admin/events/${encodeURIComponent(id)}`;
export const payoutHref = (id: string) => `/admin/payouts/${encodeURIComponent(id)}`;

/** Sortable headers of a list page: the current sort, the page's path and its query (kept in links). */
export type Sorting<K extends string> = { sort: Sort<K>; path: string; query: Record<string, string | undefined> };

/** A header that sorts when the table has `sorting`, a plain header otherwise. */
function Head<K extends string>(props: { label: string; column: K; sorting?: Sorting<K>; num?: boolean }) {
  if (props.sorting) return <SortHeader label={props.label} column={props.column} sort={props.sorting.sort} path={props.sorting.path} query={props.sorting.query} num={props.num} />;
  return (
    <th scope="col" class={props.num ? 'num' : undefined} safe>
      {props.label}
    </th>
  );
}

/** The select-all checkbox of a bulk form's table (assets/ui.js ticks the rows' boxes). */
function SelectAllHead(props: { form: string }) {
  return (
    <th scope="col" class="pick">
      <label class="check">
        <input type="checkbox" data-select-all="ids" form={props.form} />
        <span class="vh">Select all rows</span>
      </label>
    </th>
  );
}

/** A row's checkbox for the bulk form `form`. */
export function RowCheck(props: { id: string; form: string; label: string }) {
  return (
    <label class="check">
      <input type="checkbox" name="ids" value={props.id} form={props.form} />
      <span class="vh" safe>
        {props.label}
      </span>
    </label>
  );
}

/** Sums per currency in the one money format: "1,240.00 USD + 12.00 EUR"; "nothing" when empty. */
export function totalsText(totals: { currency: string; amount: bigint }[]): string {
  return totals.length === 0 ? 'nothing' : totals.map((t) => formatMoney(t.amount, t.currency)).join(' + ');
}

/** A text input with its own id (several dialogs on one page each ask for a reason). */
export function DialogField(props: { id: string; name: string; label: string; hint?: string; value?: string; error?: string; required?: boolean }) {
  const described = [props.hint ? `${props.id}-hint` : '', props.error ? `${props.id}-error` : ''].filter(Boolean).join(' ');
  return (
    <div class={props.error ? 'field invalid' : 'field'}>
      <label for={props.id} safe>
        {props.label}
      </label>
      {!!props.hint && (
        <small id={`${props.id}-hint`} safe>
          {props.hint}
        </small>
      )}
      <input
        id={props.id}
        name={props.name}
        type="text"
        value={props.value}
        required={props.required}
        maxlength="500"
        aria-invalid={props.error ? 'true' : undefined}
        aria-describedby={described || undefined}
      />
      {!!props.error && (
        <p class="error" id={`${props.id}-error`} safe>
          {props.error}
        </p>
      )}
    </div>
  );
}

/** A row's menu: its title and entries; null when the row has no action. */
export type RowActions = { title: string; items: Children } | null;

/**
 * The skeleton of a list of rows (commissions, payouts): the optional checkbox column and its
 * select-all, the columns a caller gives (headers and cells), the optional "⋯" menu per row.
 */
function ListTable<T extends { id: string; partnerId: string }>(props: {
  id: string;
  rows: T[];
  caption: string;
  /** Names the row in its menu button: "Actions for Ann's commission". */
  noun: string;
  /** The prefix of the rows' menu ids. */
  menu: string;
  names: Names;
  head: Children;
  cells: (row: T, partner: string) => Children;
  select?: (row: T) => Children;
  selectAll?: string;
  actions?: (row: T) => RowActions;
}) {
  const menus = props.rows.map((row) => ({ row, menu: props.actions?.(row) ?? null }));
  return (
    <>
      <div class="table-wrap">
        <table id={props.id} class="stack">
          <caption class="vh" safe>
            {props.caption}
          </caption>
          <thead>
            <tr>
              {!!props.select &&
                (props.selectAll ? (
                  <SelectAllHead form={props.selectAll} />
                ) : (
                  <th scope="col" class="pick">
                    <span class="vh">Select</span>
                  </th>
                ))}
              {props.head}
              {!!props.actions && (
                <th scope="col" class="act">
                  <span class="vh">Actions</span>
                </th>
              )}
            </tr>
          </thead>
          <tbody>
            {menus.map(({ row, menu }) => {
              const partner = props.names.partners?.get(row.partnerId) ?? row.partnerId;
              return (
                <tr data-id={row.id}>
                  {!!props.select && (
                    <td class="pick" data-label="Select">
                      {props.select(row)}
                    </td>
                  )}
                  {props.cells(row, partner)}
                  {!!props.actions && (menu ? <MenuButton menu={menuId(props.menu, row.id)} label={`Actions for ${partner}'s ${props.noun}`} /> : <td class="act"></td>)}
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {menus.map(({ row, menu }) =>
        menu ? (
          <RowMenu id={menuId(props.menu, row.id)} title={menu.title}>
            {menu.items}
          </RowMenu>
        ) : (
          ''
        ),
      )}
    </>
  );
}

/** What the commissions and payouts tables take besides their rows. */
type MoneyTableProps<T> = {
  names: Names;
  caption: string;
  /** Without the partner column (on the partner's own page). */
  onePartner?: boolean;
  /** A leading cell per row (the bulk form's checkbox). */
  select?: (row: T) => Children;
  /** The bulk form the select-all box of the header ticks for. */
  selectAll?: string;
  /** Sortable date and amount headers. */
  sorting?: Sorting<'date' | 'amount'>;
  /** The row's "⋯" menu. */
  actions?: (row: T) => RowActions;
};

/** The props a money table hands on to ListTable as they are. */
const handedOn = <T,>(props: MoneyTableProps<T>) => ({ caption: props.caption, names: props.names, select: props.select, selectAll: props.selectAll, actions: props.actions });

/** Commissions; with `onePartner` the event leads the row. */
export function CommissionsTable(props: MoneyTableProps<Commission> & { commissions: Commission[] }) {
  return (
    <ListTable
      id="commissions"
      rows={props.commissions}
      noun="commission"
      menu="cm"
      {...handedOn(props)}
      head={
        <>
          <th scope="col">{props.onePartner ? 'Event' : 'Partner'}</th>
          <Head label="Date" column="date" sorting={props.sorting} />
          <th scope="col" title="When the sale happened (the event's occurredAt): the day it counts on">
            Sale
          </th>
          <th scope="col">Campaign</th>
          {!props.onePartner && <th scope="col">Event</th>}
          <Head label="Amount" column="amount" sorting={props.sorting} num />
          <th scope="col">Status</th>
        </>
      }
      cells={(c, partner) => (
        <>
          <td class="lead">
            {props.onePartner ? <CommissionEvent c={c} names={props.names} /> : <Trunc text={partner} href={partnerHref(c.partnerId)} />}
          </td>
          <td data-label="Date" safe>
            {day(c.createdAt)}
          </td>
          <td data-label="Sale" safe>
            {day(c.occurredAt)}
          </td>
          <td data-label="Campaign">
            <Trunc text={props.names.campaigns?.get(c.campaignId) ?? c.campaignId} />
          </td>
          {!props.onePartner && (
            <td data-label="Event">
              <CommissionEvent c={c} names={props.names} />
            </td>
          )}
          <MoneyCell amount={c.amount} currency={c.currency} />
          <td class="badge-cell" data-label="Status">
            <Badge {...commissionBadge(c)} />
          </td>
        </>
      )}
    />
  );
}

export function PayoutsTable(props: MoneyTableProps<PayoutView> & { payouts: PayoutView[] }) {
  return (
    <ListTable
      id="payouts"
      rows={props.payouts}
      noun="payout"
      menu="po"
      {...handedOn(props)}
      head={
        <>
          {!props.onePartner && <th scope="col">Partner</th>}
          <Head label="Date" column="date" sorting={props.sorting} />
          <Head label="Amount" column="amount" sorting={props.sorting} num />
          <NumHead label="Commissions" />
          <th scope="col">Status</th>
          <th scope="col">Paid</th>
          <th scope="col">Reference</th>
        </>
      }
      cells={(p, partner) => (
        <>
          {!props.onePartner && (
            <td class="lead">
              <Trunc text={partner} href={payoutHref(p.id)} />
            </td>
          )}
          {props.onePartner ? (
            <td class="lead">
              <a href={payoutHref(p.id)} title="Open the payout" safe>
                {day(p.createdAt)}
              </a>
            </td>
          ) : (
            <td data-label="Date" safe>
              {day(p.createdAt)}
            </td>
          )}
          <MoneyCell amount={p.amount} currency={p.currency} />
          <td class="num" data-label="Commissions">
            {p.commissionCount}
          </td>
          <td class="badge-cell" data-label="Status">
            <Badge {...payoutBadge(p)} />
          </td>
          <td data-label="Paid" safe>
            {day(p.paidAt)}
          </td>
          <td data-label="Reference">{p.providerReference ? <Trunc text={p.providerReference} /> : ''}</td>
        </>
      )}
    />
  );
}
