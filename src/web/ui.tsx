// The small pieces every admin and portal page shares: one money format, status badges with their
// colours and "what comes next", a truncated cell, and the "⋯" row menu (a popover, no script).
import type { Children } from '@kitajs/html';
import { EXPONENTS, formatMinor, scaleDecimal } from '../lib/money';
import { DAY } from '../lib/time';
import type { PartnerStatus } from '../modules/partners/model';

// ---------------------------------------------------------------------------------------------
// Attributes

/**
 * Text for an attribute (title, aria-label). @kitajs/html escapes only `"` in attribute values;
 * < > are harmless inside quotes, but escaping them (and &) keeps markup out of the page source
 * altogether. The browser decodes the entities, so the tooltip shows the text as typed.
 */
export const attr = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

// ---------------------------------------------------------------------------------------------
// Money

/**
 * The one money format of the pages: exactly the currency's decimals, thousands grouped, the ISO
 * code after it ("1,240.00 USD", "1,250 JPY", "-5.00 EUR"). Takes integer minor units, or the
 * services' decimal text in major units ("271.4" and "271.40" both give "271.40 USD").
 */
export function formatMoney(amount: bigint | string, currency: string): string {
  const exponent = EXPONENTS[currency] ?? 2;
  const minor = typeof amount === 'bigint' ? amount : scaleDecimal(amount.trim(), exponent, 'round');
  if (minor === null) return `${amount} ${currency}`;
  const text = formatMinor(minor, currency);
  const negative = text.startsWith('-');
  const [whole, fraction] = (negative ? text.slice(1) : text).split('.');
  const grouped = whole!.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${negative ? '-' : ''}${grouped}${fraction === undefined ? '' : `.${fraction}`} ${currency}`;
}

/** A major-unit number that was only ever drawn (chart sums) back to minor units of `currency`. */
export function drawnToMinor(value: number, currency: string): bigint {
  return BigInt(Math.round(value * 10 ** (EXPONENTS[currency] ?? 2)));
}

/** A money table cell: right-aligned, tabular figures, never wraps. */
export function MoneyCell(props: { amount: bigint | string; currency: string; label?: string }): JSX.Element {
  return (
    <td class="num money" data-label={props.label ?? 'Amount'} safe>
      {formatMoney(props.amount, props.currency)}
    </td>
  );
}

// ---------------------------------------------------------------------------------------------
// Status badges

export type Tone = 'amber' | 'blue' | 'green' | 'red' | 'grey';

/** A status word on a tinted background; `title` says what comes next. */
export function Badge(props: { tone: Tone; label: string; title: string; id?: string }): JSX.Element {
  return (
    <span class={`badge ${props.tone}`} title={attr(props.title)} id={props.id} safe>
      {props.label}
    </span>
  );
}

const day = (iso: string | null) => (iso ? iso.slice(0, 10) : '');
const addDays = (iso: string, days: number) => new Date(Date.parse(iso) + days * DAY).toISOString().slice(0, 10);

type CommissionLike = { status: string; createdAt: string; holdbackDays?: number; paidAt?: string | null; reason?: string | null; flags?: readonly string[] };

/** A flagged commission still waiting for a person; partners see this and nothing of the evidence. */
export const UNDER_REVIEW = 'Under review: the program checks it before approval';

export function commissionBadge(c: CommissionLike): { tone: Tone; label: string; title: string } {
  if (c.status === 'accrued' && (c.flags?.length ?? 0) > 0) return { tone: 'amber', label: 'Under review', title: UNDER_REVIEW };
  switch (c.status) {
    case 'accrued':
      return {
        tone: 'amber',
        label: 'Pending',
        title:
          c.holdbackDays !== undefined
            ? `Pending: approved on ${addDays(c.createdAt, c.holdbackDays)} when the ${c.holdbackDays}-day holdback ends, unless reversed first`
            : 'Pending: approved when the holdback ends, unless reversed first',
      };
    case 'approved':
      return { tone: 'blue', label: 'Approved', title: 'Approved: paid in the next payout run once the balance reaches the minimum payout' };
    case 'paid':
      return { tone: 'green', label: 'Paid', title: c.paidAt ? `Paid on ${day(c.paidAt)}` : 'Paid' };
    case 'reversed':
      return { tone: 'red', label: 'Reversed', title: c.reason ? `Reversed, not paid: ${c.reason}` : 'Reversed, not paid' };
    default:
      return { tone: 'grey', label: c.status, title: c.status };
  }
}

export function payoutBadge(p: { status: string; paidAt?: string | null; failureReason?: string | null }): { tone: Tone; label: string; title: string } {
  switch (p.status) {
    case 'pending':
      return { tone: 'amber', label: 'Pending', title: 'Pending: being sent, or waiting to be marked paid' };
    case 'paid':
      return { tone: 'green', label: 'Paid', title: p.paidAt ? `Paid on ${day(p.paidAt)}` : 'Paid' };
    case 'failed':
      return { tone: 'red', label: 'Failed', title: `Failed${p.failureReason ? `: ${p.failureReason}` : ''}. Its commissions go into the next payout run` };
    default:
      return { tone: 'grey', label: p.status, title: p.status };
  }
}

const PARTNER_BADGES: Record<PartnerStatus, { tone: Tone; label: string; title: string }> = {
  applied: { tone: 'amber', label: 'Applied', title: 'Applied: waiting for review; approving sends the invite' },
  declined: { tone: 'red', label: 'Declined', title: 'Declined: the application was turned down; the partner cannot sign in' },
  pending: { tone: 'grey', label: 'Invited', title: 'Invited: active once the partner opens the emailed sign-in link' },
  active: { tone: 'green', label: 'Active', title: 'Active: links record clicks and earn commissions' },
  revoked: { tone: 'red', label: 'Revoked', title: 'Revoked: links record nothing and the partner cannot sign in until reinstated' },
};

/**
 * A partner's status badge. `status` must be typed PartnerStatus itself, all five states: a read
 * model typed with fewer (say pending | active | revoked) would show an applicant as invited, so a
 * narrower union does not compile here ("not assignable to type 'never'").
 */
export function partnerBadge<S extends PartnerStatus>(p: { status: S & ([PartnerStatus] extends [S] ? unknown : never) }): { tone: Tone; label: string; title: string } {
  return PARTNER_BADGES[p.status];
}

// ---------------------------------------------------------------------------------------------
// Table pieces

/** Text that ends in an ellipsis when long; the full text in `title`. A link when `href` is given. */
export function Trunc(props: { text: string; href?: string; wide?: boolean }): JSX.Element {
  const cls = props.wide ? 'trunc wide' : 'trunc';
  return props.href ? (
    <a class={cls} href={props.href} title={attr(props.text)} safe>
      {props.text}
    </a>
  ) : (
    <span class={cls} title={attr(props.text)} safe>
      {props.text}
    </span>
  );
}

/** The "⋯" button of a row; its menu is a RowMenu rendered after the table, outside every row. */
export function MenuButton(props: { menu: string; label: string }): JSX.Element {
  return (
    <td class="act">
      <button type="button" class="more" popovertarget={props.menu} aria-label={attr(props.label)} title={attr(props.label)}>
        ⋯
      </button>
    </td>
  );
}

/** A row's actions: a popover panel (Popover API), opened by its MenuButton, closed by Esc. */
export function RowMenu(props: { id: string; title: string; children?: Children }): JSX.Element {
  return (
    <div id={props.id} popover="auto" class="pop">
      <p class="pop-title" safe>
        {props.title}
      </p>
      {props.children}
    </div>
  );
}

/** A safe id for a row's menu from a record id. */
export const menuId = (prefix: string, id: string) => `${prefix}-${id.replace(/[^A-Za-z0-9_-]/g, '_')}`;

// ---------------------------------------------------------------------------------------------
// KPI cards

/**
 * One KPI card: label, value, and the change against the previous period ("+12% vs previous 30
 * days"), green or red only where `change.good` says which way is good. A link when `href` is given.
 */
export function Kpi(props: { label: string; value: string; change?: { text: string; good: boolean | null }; versus?: string; href?: string; id?: string; note?: string }): JSX.Element {
  const tone = props.change?.good === true ? 'up' : props.change?.good === false ? 'down' : 'flat';
  const body = (
    <>
      <span class="label" safe>
        {props.label}
      </span>
      <span class="value" safe>
        {props.value}
      </span>
      {props.note ? (
        <span class="note kpi-note" safe>
          {props.note}
        </span>
      ) : (
        ''
      )}
      {props.change ? (
        <span class={`change ${tone}`} safe>
          {props.versus ? `${props.change.text} vs ${props.versus}` : props.change.text}
        </span>
      ) : (
        ''
      )}
    </>
  );
  return (
    <li class="kpi" id={props.id}>
      {props.href ? (
        <a href={props.href} class="kpi-link">
          {body}
        </a>
      ) : (
        body
      )}
    </li>
  );
}

// ---------------------------------------------------------------------------------------------
// Sorting and paging (admin tables: offset pages, sortable columns)

export type Sort<K extends string> = { key: K; dir: 'asc' | 'desc' };

/** `?sort=amount&dir=desc` read against the columns a table can sort by; anything else: the default. */
export function parseSort<K extends string>(query: Record<string, string | undefined>, keys: readonly K[], fallback: Sort<K>): Sort<K> {
  const key = keys.find((k) => k === query.sort);
  if (!key) return fallback;
  return { key, dir: query.dir === 'asc' ? 'asc' : 'desc' };
}

/** A URL of `path` with `query` (empty values dropped) and `changes` applied. */
export function href(path: string, query: Record<string, string | undefined>, changes: Record<string, string | undefined> = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries({ ...query, ...changes })) if (value) params.set(key, value);
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

/**
 * A sortable column header: a link that sorts by this column (descending first, then toggles),
 * `aria-sort` on the current one. `query` is the page's query, kept (the page resets to 1).
 */
export function SortHeader<K extends string>(props: { label: string; column: K; sort: Sort<K>; path: string; query: Record<string, string | undefined>; num?: boolean }): JSX.Element {
  const current = props.sort.key === props.column;
  const next = current && props.sort.dir === 'desc' ? 'asc' : 'desc';
  const arrow = current ? (props.sort.dir === 'desc' ? ' ↓' : ' ↑') : '';
  return (
    <th scope="col" class={props.num ? 'num' : undefined} aria-sort={current ? (props.sort.dir === 'desc' ? 'descending' : 'ascending') : undefined}>
      <a class="sort" href={href(props.path, props.query, { sort: props.column, dir: next, page: undefined })} safe>
        {`${props.label}${arrow}`}
      </a>
    </th>
  );
}

/** `?page=N` (1-based) for a table of `size` rows a page; anything malformed is page 1. */
export function parsePage(query: Record<string, string | undefined>, size: number): { page: number; offset: number; limit: number } {
  const n = /^\d{1,6}$/.test(query.page ?? '') ? Math.max(1, Number(query.page)) : 1;
  return { page: n, offset: (n - 1) * size, limit: size };
}

const count = (n: number) => n.toLocaleString('en-US');

/** The table footer: "1–50 of 1,234", Previous / Next (links keeping the query). */
export function Pager(props: { path: string; query: Record<string, string | undefined>; page: number; size: number; total: number; shown: number }): JSX.Element {
  if (props.total === 0) return '';
  const first = (props.page - 1) * props.size + 1;
  const last = first + props.shown - 1;
  const more = last < props.total;
  return (
    <nav class="pager" aria-label="Pages">
      <span class="range-count" safe>
        {props.shown === 0 ? `0 of ${count(props.total)}` : `${count(first)}–${count(last)} of ${count(props.total)}`}
      </span>
      {props.page > 1 ? (
        <a href={href(props.path, props.query, { page: props.page === 2 ? undefined : String(props.page - 1) })} rel="prev">
          Previous
        </a>
      ) : (
        ''
      )}
      {more ? (
        <a href={href(props.path, props.query, { page: String(props.page + 1) })} rel="next">
          Next
        </a>
      ) : (
        ''
      )}
    </nav>
  );
}

// ---------------------------------------------------------------------------------------------
// Empty states

/**
 * "Nothing yet" (title, one sentence, one action) or, when filters are on, "no match" with a
 * Clear filters link.
 */
export function EmptyState(props: { title: string; text: string; action?: { href: string; label: string }; clear?: string }): JSX.Element {
  return (
    <div class="empty-state" role="status">
      <p class="empty-title" safe>
        {props.title}
      </p>
      <p safe>{props.text}</p>
      {props.clear ? (
        <a class="button secondary" href={props.clear}>
          Clear filters
        </a>
      ) : props.action ? (
        <a class="button" href={props.action.href} safe>
          {props.action.label}
        </a>
      ) : (
        ''
      )}
    </div>
  );
}

/** A rate in basis points (conversions per click) as "12.5%"; "–" when there is nothing to divide by. */
export function formatRate(numerator: number, denominator: number): string {
  if (denominator <= 0) return '–';
  const tenths = Math.round((numerator * 1000) / denominator);
  return `${Math.floor(tenths / 10)}.${tenths % 10}%`;
}

/** A column header over numbers: right-aligned like its cells. */
export function NumHead(props: { label: string; title?: string }): JSX.Element {
  return (
    <th scope="col" class="num" title={props.title ? attr(props.title) : undefined} safe>
      {props.label}
    </th>
  );
}
