// What the payouts pages share: the list's address, its view in the URL, the run's title, the notices.
import { t } from 'elysia';
import type { AppContext } from '../../../context';
import { PAYOUT_STATUSES, type PayoutStatus } from '../../../modules/payouts/service';
import { SORTS, type RunPreview } from '../../../modules/reports/money';
import type { Sort } from '../../ui';
import { plural } from '../kit/bulk';
import { totalsText } from '../tables';

export const LIST = '/admin/payouts';
export const PAGE_SIZE = 50;
export const MAX_BULK = 100;
export const DEFAULT_SORT: Sort<'date' | 'amount'> = { key: 'date', dir: 'desc' };
/** Lines of a run preview shown in full; the rest are summed. */
export const PREVIEW_LINES = 20;

export type Outcome = { ok?: string; error?: string };
export type View = Record<string, string | undefined>;

export const ListQuery = t.Object({
  status: t.Optional(t.String({ maxLength: 20 })),
  sort: t.Optional(t.String({ maxLength: 20 })),
  dir: t.Optional(t.String({ maxLength: 4 })),
  page: t.Optional(t.String({ maxLength: 8 })),
  created: t.Optional(t.String({ maxLength: 6 })),
  paid: t.Optional(t.String({ maxLength: 6 })),
  skipped: t.Optional(t.String({ maxLength: 6 })),
  done: t.Optional(t.String({ maxLength: 20 })),
});
export const IdParams = t.Object({ id: t.String({ maxLength: 64 }) });

export const readStatus = (s: string | undefined) => ((PAYOUT_STATUSES as readonly string[]).includes(s ?? '') ? (s as PayoutStatus) : undefined);
export const viewOf = (query: Record<string, string | undefined>): View => ({
  status: readStatus(query.status),
  sort: (SORTS.payouts as readonly string[]).includes(query.sort ?? '') ? query.sort : undefined,
  dir: query.dir === 'asc' || query.dir === 'desc' ? query.dir : undefined,
  page: /^\d{1,6}$/.test(query.page ?? '') ? query.page : undefined,
});

/** "Pay 1,240.00 USD to 12 partners": the run's title, and its button. */
export const runTitle = (p: RunPreview) => `Pay ${totalsText(p.totals)} to ${plural(p.partners, 'partner')}`;

export const DONE: Record<string, string> = {
  paid: 'Payout marked paid.',
  failed: 'Payout marked failed: its commissions are payable again in the next run.',
};

/** How each rail reads on the admin pages. */
export const RAIL_LABELS: Record<string, string> = { stripe: 'Stripe', paypal: 'PayPal', wise: 'Wise', manual: 'By hand' };

/**
 * Whether the program settles this payout by hand (bulk "Mark paid"): pending or processing on a rail
 * the service does not call (by hand, Wise, PayPal without its API: paid from an upload file).
 */
export function handSettled(ctx: AppContext): (p: { provider: string; status: string }) => boolean {
  const rails = new Set(['manual', 'wise', ...(ctx.payoutProvider.paypalApi ? [] : ['paypal'])]);
  return (p) => (p.status === 'pending' || p.status === 'processing') && rails.has(p.provider);
}
