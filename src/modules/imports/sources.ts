// The four platforms a program moves in from: their export files, the columns each must have, and
// what a row becomes (DESIGN.md "Moving in from another platform"; docs/migrating.md for readers).
// Columns not listed are ignored; amounts are whole cents.
import {
  cents, currency, date, email, flag, fullName, need, optional, optionalEmail, state,
  type Cells, type ImportedCommission, type ImportedCustomer, type ImportedPartner, type ImportedStatus, type ImportSource,
} from './rows';

export type FileSpec<T> = { file: string; required: readonly string[]; read(cells: Cells): T };
export type SourceSpec = { partners: FileSpec<ImportedPartner>; customers: FileSpec<ImportedCustomer>; commissions: FileSpec<ImportedCommission> };

/** A Stripe customer id (`cus_…`): remembered as the customer's billing id. */
const stripeId = (value: string | null) => (value !== null && /^cus_[A-Za-z0-9]+$/.test(value) ? value : null);

/** The first of `columns` that holds a value (later columns are read only when earlier ones are empty). */
function first<T>(c: Cells, columns: readonly string[], read: (c: Cells, column: string) => T | null): T | null {
  for (const column of columns) {
    const value = read(c, column);
    if (value !== null) return value;
  }
  return null;
}

/**
 * A partners file. `name` is one column or [first, last]; `payoutEmails` are tried in order.
 * Cells are checked in this order: email, id, name, token, payout emails, created date.
 */
function partnersFile(
  file: string,
  columns: { id: string; name: string | readonly [string, string]; token: string; payoutEmails?: readonly string[]; createdAt: string },
): FileSpec<ImportedPartner> {
  return {
    file,
    required: [columns.id, 'email'],
    read: (c) => {
      const mail = email(c, 'email');
      const sourceId = need(c, columns.id);
      const name = typeof columns.name === 'string' ? optional(c, columns.name) ?? mail : fullName(optional(c, columns.name[0]), optional(c, columns.name[1]), mail);
      return {
        sourceId,
        email: mail,
        name,
        token: optional(c, columns.token),
        payoutEmail: first(c, columns.payoutEmails ?? [], optionalEmail),
        createdAt: date(c, columns.createdAt),
      };
    },
  };
}

/**
 * A customers file: the customer's user id here is the `customer` cell (a Stripe id is remembered
 * as such), or `<source>:<id>` when it is empty. `createdAt` columns are tried in order.
 */
function customersFile(
  source: ImportSource,
  file: string,
  columns: { id: string; partner: string; customer: string; createdAt: readonly string[] },
): FileSpec<ImportedCustomer> {
  return {
    file,
    required: [...new Set([columns.id, columns.partner, columns.customer])],
    read: (c) => {
      const id = need(c, columns.id);
      const customer = optional(c, columns.customer);
      return {
        sourceId: id,
        partnerSourceId: need(c, columns.partner),
        userId: customer ?? `${source}:${id}`,
        stripeCustomerId: stripeId(customer),
        createdAt: first(c, columns.createdAt, date),
      };
    },
  };
}

/** A commissions file: amounts in whole cents, the state cell mapped through `states`; `paidAt` only where the file has one. */
function commissionsFile(
  file: string,
  columns: { id: string; partner: string; customer: string; amount: string; state: string; states: Record<string, ImportedStatus>; paidAt?: string },
): FileSpec<ImportedCommission> {
  return {
    file,
    required: [columns.id, columns.partner, columns.customer, columns.amount, 'currency', columns.state],
    read: (c) => ({
      sourceId: need(c, columns.id),
      partnerSourceId: need(c, columns.partner),
      customerSourceId: optional(c, columns.customer),
      amount: cents(c, columns.amount),
      currency: currency(c, 'currency'),
      status: state(c, columns.state, columns.states),
      createdAt: date(c, 'created_at'),
      paidAt: columns.paidAt === undefined ? null : date(c, columns.paidAt),
    }),
  };
}

const rewardful: SourceSpec = {
  partners: partnersFile('affiliates.csv', { id: 'id', name: ['first_name', 'last_name'], token: 'token', payoutEmails: ['paypal_email', 'wise_email'], createdAt: 'created_at' }),
  customers: customersFile('rewardful', 'referrals.csv', { id: 'id', partner: 'affiliate_id', customer: 'stripe_customer_id', createdAt: ['became_conversion_at', 'created_at'] }),
  commissions: commissionsFile('commissions.csv', {
    id: 'id', partner: 'affiliate_id', customer: 'referral_id', amount: 'amount_cents', paidAt: 'paid_at',
    state: 'state', states: { pending: 'accrued', due: 'approved', paid: 'paid', voided: 'reversed' },
  }),
};

const PROMOTER_STATES: Record<string, ImportedStatus> = { pending: 'accrued', approved: 'approved', denied: 'reversed' };
const promoterCommissions = commissionsFile('commissions.csv', {
  id: 'id', partner: 'promoter_id', customer: 'referral_id', amount: 'amount_cents', state: 'status', states: PROMOTER_STATES,
});

const firstpromoter: SourceSpec = {
  partners: partnersFile('promoters.csv', { id: 'id', name: 'name', token: 'ref_token', createdAt: 'created_at' }),
  customers: customersFile('firstpromoter', 'referrals.csv', { id: 'id', partner: 'promoter_id', customer: 'uid', createdAt: ['created_at'] }),
  commissions: {
    ...promoterCommissions,
    read: (c) => {
      // the status cell is checked before the others; is_paid marks an approved commission that has been paid out
      const status = state(c, 'status', PROMOTER_STATES);
      const row = promoterCommissions.read(c);
      return status !== 'reversed' && flag(c, 'is_paid') ? { ...row, status: 'paid' } : row;
    },
  },
};

const tolt: SourceSpec = {
  partners: partnersFile('partners.csv', { id: 'id', name: ['first_name', 'last_name'], token: 'link_param_value', createdAt: 'created_at' }),
  customers: customersFile('tolt', 'customers.csv', { id: 'id', partner: 'partner_id', customer: 'customer_id', createdAt: ['created_at'] }),
  commissions: commissionsFile('commissions.csv', {
    id: 'id', partner: 'partner_id', customer: 'customer_id', amount: 'amount',
    state: 'status', states: { pending: 'accrued', approved: 'approved', paid: 'paid', rejected: 'reversed' },
  }),
};

// PartnerStack's links carry the partner key itself (?ps_partner_key=…), and its customer key is the user id
const partnerstack: SourceSpec = {
  partners: partnersFile('partners.csv', { id: 'partner_key', name: ['first_name', 'last_name'], token: 'partner_key', createdAt: 'joined_at' }),
  customers: customersFile('partnerstack', 'customers.csv', { id: 'customer_key', partner: 'partner_key', customer: 'customer_key', createdAt: ['created_at'] }),
  commissions: commissionsFile('rewards.csv', {
    id: 'reward_key', partner: 'partner_key', customer: 'customer_key', amount: 'amount',
    state: 'status', states: { hold: 'accrued', pending: 'accrued', approved: 'approved', declined: 'reversed', paid: 'paid' },
  }),
};

export const SOURCES: Record<ImportSource, SourceSpec> = { rewardful, firstpromoter, tolt, partnerstack };

/** The file names a source's import reads, in the order it reads them. */
export const filesOf = (source: ImportSource): string[] => {
  const spec = SOURCES[source];
  return [spec.partners.file, spec.customers.file, spec.commissions.file];
};
