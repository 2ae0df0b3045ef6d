// The small pieces every admin and portal page shares: one money format, status badges with their
// colours and "what comes next", a truncated cell, and the "⋯" row menu (a popover, no script).
import type { Children } from '@kitajs/html';
import { EXPONENTS, formatMinor, scaleDecimal } from '../lib/money';
import { DAY } from '../lib/time';

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

type CommissionLike = { status: string; createdAt: string; holdbackDays?: number; paidAt?: string | null; reason?: string | null };

export function commissionBadge(c: CommissionLike): { tone: Tone; label: string; title: string } {
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

export function partnerBadge(p: { status: string }): { tone: Tone; label: string; title: string } {
  switch (p.status) {
    case 'pending':
      return { tone: 'grey', label: 'Invited', title: 'Invited: active once the partner opens the emailed sign-in link' };
    case 'active':
      return { tone: 'green', label: 'Active', title: 'Active: links record clicks and earn commissions' };
    case 'revoked':
      return { tone: 'red', label: 'Revoked', title: 'Revoked: links record nothing and the partner cannot sign in until reinstated' };
    default:
      return { tone: 'grey', label: p.status, title: p.status };
  }
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
