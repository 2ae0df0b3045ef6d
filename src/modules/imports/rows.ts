// What an export's row becomes, whatever the platform: the shapes the importer writes, and the
// checks every source's cells go through (a bad cell throws a RowProblem: the row is reported
// with its file and line and skipped, the rest imports).
import { isKnownCurrency } from '../../lib/money';
import { storableText } from '../../lib/storable';

export const IMPORT_SOURCES = ['rewardful', 'firstpromoter', 'tolt', 'partnerstack'] as const;
export type ImportSource = (typeof IMPORT_SOURCES)[number];
export const isImportSource = (value: unknown): value is ImportSource => (IMPORT_SOURCES as readonly unknown[]).includes(value);

/** Our commission states (DESIGN.md "Moving in": pending/hold -> accrued, due/approved -> approved, ...). */
export type ImportedStatus = 'accrued' | 'approved' | 'paid' | 'reversed';

export type ImportedPartner = {
  sourceId: string;
  email: string;
  name: string;
  /** The referral token of the partner's old links: it becomes a share-link slug. */
  token: string | null;
  payoutEmail: string | null;
  createdAt: Date | null;
};

export type ImportedCustomer = {
  sourceId: string;
  partnerSourceId: string;
  /** The user id the customer gets here: the id the operator's product or billing knows them by. */
  userId: string;
  /** A Stripe customer id, remembered so Stripe's next invoice finds the customer. */
  stripeCustomerId: string | null;
  createdAt: Date | null;
};

export type ImportedCommission = {
  sourceId: string;
  partnerSourceId: string;
  customerSourceId: string | null;
  amount: bigint;
  currency: string;
  status: ImportedStatus;
  createdAt: Date | null;
  paidAt: Date | null;
};

/** Why one row cannot be imported (reported with its file and line; the row is skipped). */
export class RowProblem extends Error {}

export type Cells = Record<string, string>;

/** A cell that must not be empty. */
export function need(cells: Cells, column: string): string {
  const value = cells[column] ?? '';
  if (value === '') throw new RowProblem(`${column} is empty`);
  if (!storableText(value) || value.length > 255) throw new RowProblem(`${column} must be 1-255 characters of text`);
  return value;
}

/** A cell that may be empty (null then). */
export function optional(cells: Cells, column: string): string | null {
  const value = cells[column] ?? '';
  if (value === '') return null;
  if (!storableText(value) || value.length > 255) throw new RowProblem(`${column} must be at most 255 characters of text`);
  return value;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function email(cells: Cells, column: string): string {
  const value = need(cells, column).toLowerCase();
  if (!EMAIL.test(value) || value.length > 254) throw new RowProblem(`${column} is not an email address ("${value}")`);
  return value;
}

export function optionalEmail(cells: Cells, column: string): string | null {
  return (cells[column] ?? '') === '' ? null : email(cells, column);
}

/** A date or timestamp as exports write them (ISO 8601; a time without a zone is UTC), or null. */
export function date(cells: Cells, column: string): Date | null {
  const value = cells[column] ?? '';
  if (value === '') return null;
  const zoned = /[zZ]|[+-]\d\d:?\d\d$/.test(value) || /^\d{4}-\d\d-\d\d$/.test(value) ? value : `${value.replace(' ', 'T')}Z`;
  const when = new Date(zoned);
  if (!/^\d{4}-\d\d-\d\d/.test(value) || Number.isNaN(when.getTime())) throw new RowProblem(`${column} is not a date ("${value}")`);
  return when;
}

/** Whole minor units (cents): digits only. */
export function cents(cells: Cells, column: string): bigint {
  const value = need(cells, column);
  if (!/^\d{1,15}$/.test(value)) throw new RowProblem(`${column} must be a whole number of cents (got "${value}")`);
  return BigInt(value);
}

export function currency(cells: Cells, column: string): string {
  const value = need(cells, column).toUpperCase();
  if (!isKnownCurrency(value)) throw new RowProblem(`${column} is not an ISO 4217 currency ("${value}")`);
  return value;
}

/** A state cell mapped through `states`, or a problem naming the states the file may hold. */
export function state(cells: Cells, column: string, states: Record<string, ImportedStatus>): ImportedStatus {
  const value = need(cells, column).toLowerCase();
  const mapped = states[value];
  if (!mapped) throw new RowProblem(`${column} "${value}" is not one of ${Object.keys(states).join(', ')}`);
  return mapped;
}

/** "Ada", "Lovelace" -> "Ada Lovelace"; nothing -> the email. */
export function fullName(first: string | null, last: string | null, fallback: string): string {
  return [first, last].filter((p) => p !== null && p !== '').join(' ') || fallback;
}

/** True-ish cells of exports: true, yes, 1. */
export function flag(cells: Cells, column: string): boolean {
  return ['true', 'yes', '1', 't'].includes((cells[column] ?? '').toLowerCase());
}
