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

const rewardful: SourceSpec = {
  partners: {
    file: 'affiliates.csv',
    required: ['id', 'email'],
    read: (c) => {
      const mail = email(c, 'email');
      return {
        sourceId: need(c, 'id'),
        email: mail,
        name: fullName(optional(c, 'first_name'), optional(c, 'last_name'), mail),
        token: optional(c, 'token'),
        payoutEmail: optionalEmail(c, 'paypal_email') ?? optionalEmail(c, 'wise_email'),
        createdAt: date(c, 'created_at'),
      };
    },
  },
  customers: {
    file: 'referrals.csv',
    required: ['id', 'affiliate_id', 'stripe_customer_id'],
    read: (c) => {
      const id = need(c, 'id');
      const customer = optional(c, 'stripe_customer_id');
      return {
        sourceId: id,
        partnerSourceId: need(c, 'affiliate_id'),
        userId: customer ?? `rewardful:${id}`,
        stripeCustomerId: stripeId(customer),
        createdAt: date(c, 'became_conversion_at') ?? date(c, 'created_at'),
      };
    },
  },
  commissions: {
    file: 'commissions.csv',
    required: ['id', 'affiliate_id', 'referral_id', 'amount_cents', 'currency', 'state'],
    read: (c) => ({
      sourceId: need(c, 'id'),
      partnerSourceId: need(c, 'affiliate_id'),
      customerSourceId: optional(c, 'referral_id'),
      amount: cents(c, 'amount_cents'),
      currency: currency(c, 'currency'),
      status: state(c, 'state', { pending: 'accrued', due: 'approved', paid: 'paid', voided: 'reversed' }),
      createdAt: date(c, 'created_at'),
      paidAt: date(c, 'paid_at'),
    }),
  },
};

const firstpromoter: SourceSpec = {
  partners: {
    file: 'promoters.csv',
    required: ['id', 'email'],
    read: (c) => {
      const mail = email(c, 'email');
      return { sourceId: need(c, 'id'), email: mail, name: optional(c, 'name') ?? mail, token: optional(c, 'ref_token'), payoutEmail: null, createdAt: date(c, 'created_at') };
    },
  },
  customers: {
    file: 'referrals.csv',
    required: ['id', 'promoter_id', 'uid'],
    read: (c) => {
      const id = need(c, 'id');
      const uid = optional(c, 'uid');
      return { sourceId: id, partnerSourceId: need(c, 'promoter_id'), userId: uid ?? `firstpromoter:${id}`, stripeCustomerId: stripeId(uid), createdAt: date(c, 'created_at') };
    },
  },
  commissions: {
    file: 'commissions.csv',
    required: ['id', 'promoter_id', 'referral_id', 'amount_cents', 'currency', 'status'],
    read: (c) => {
      const status: ImportedStatus = state(c, 'status', { pending: 'accrued', approved: 'approved', denied: 'reversed' });
      return {
        sourceId: need(c, 'id'),
        partnerSourceId: need(c, 'promoter_id'),
        customerSourceId: optional(c, 'referral_id'),
        amount: cents(c, 'amount_cents'),
        currency: currency(c, 'currency'),
        // is_paid marks an approved commission that has been paid out
        status: status !== 'reversed' && flag(c, 'is_paid') ? 'paid' : status,
        createdAt: date(c, 'created_at'),
        paidAt: null,
      };
    },
  },
};

const tolt: SourceSpec = {
  partners: {
    file: 'partners.csv',
    required: ['id', 'email'],
    read: (c) => {
      const mail = email(c, 'email');
      return {
        sourceId: need(c, 'id'),
        email: mail,
        name: fullName(optional(c, 'first_name'), optional(c, 'last_name'), mail),
        token: optional(c, 'link_param_value'),
        payoutEmail: null,
        createdAt: date(c, 'created_at'),
      };
    },
  },
  customers: {
    file: 'customers.csv',
    required: ['id', 'partner_id', 'customer_id'],
    read: (c) => {
      const id = need(c, 'id');
      const customer = optional(c, 'customer_id');
      return { sourceId: id, partnerSourceId: need(c, 'partner_id'), userId: customer ?? `tolt:${id}`, stripeCustomerId: stripeId(customer), createdAt: date(c, 'created_at') };
    },
  },
  commissions: {
    file: 'commissions.csv',
    required: ['id', 'partner_id', 'customer_id', 'amount', 'currency', 'status'],
    read: (c) => ({
      sourceId: need(c, 'id'),
      partnerSourceId: need(c, 'partner_id'),
      customerSourceId: optional(c, 'customer_id'),
      amount: cents(c, 'amount'),
      currency: currency(c, 'currency'),
      status: state(c, 'status', { pending: 'accrued', approved: 'approved', paid: 'paid', rejected: 'reversed' }),
      createdAt: date(c, 'created_at'),
      paidAt: null,
    }),
  },
};

const partnerstack: SourceSpec = {
  partners: {
    file: 'partners.csv',
    required: ['partner_key', 'email'],
    read: (c) => {
      const mail = email(c, 'email');
      const key = need(c, 'partner_key');
      // PartnerStack's links carry the partner key itself (?ps_partner_key=…)
      return { sourceId: key, email: mail, name: fullName(optional(c, 'first_name'), optional(c, 'last_name'), mail), token: key, payoutEmail: null, createdAt: date(c, 'joined_at') };
    },
  },
  customers: {
    file: 'customers.csv',
    required: ['customer_key', 'partner_key'],
    read: (c) => {
      const key = need(c, 'customer_key');
      return { sourceId: key, partnerSourceId: need(c, 'partner_key'), userId: key, stripeCustomerId: stripeId(key), createdAt: date(c, 'created_at') };
    },
  },
  commissions: {
    file: 'rewards.csv',
    required: ['reward_key', 'partner_key', 'customer_key', 'amount', 'currency', 'status'],
    read: (c) => ({
      sourceId: need(c, 'reward_key'),
      partnerSourceId: need(c, 'partner_key'),
      customerSourceId: optional(c, 'customer_key'),
      amount: cents(c, 'amount'),
      currency: currency(c, 'currency'),
      status: state(c, 'status', { hold: 'accrued', pending: 'accrued', approved: 'approved', declined: 'reversed', paid: 'paid' }),
      createdAt: date(c, 'created_at'),
      paidAt: null,
    }),
  },
};

export const SOURCES: Record<ImportSource, SourceSpec> = { rewardful, firstpromoter, tolt, partnerstack };

/** The file names a source's import reads, in the order it reads them. */
export const filesOf = (source: ImportSource): string[] => {
  const spec = SOURCES[source];
  return [spec.partners.file, spec.customers.file, spec.commissions.file];
};
