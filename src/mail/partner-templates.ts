// Emails to partners about their money. Each has a notification switch (and so an unsubscribe link).
import type { Tx } from '../db';
import { eventLabel } from '../lib/event-labels';
import { formatMinor } from '../lib/money';
import { button, facts, heading, p, table } from './render';
import { defineTemplate } from './template';

const money = (amount: string, currency: string) => `${amount} ${currency}`;
const day = (iso: string) => iso.slice(0, 10);

// commissionId stays in the stored data (it finds the commission); partners are shown what it was for
type Accrued = { partnerName: string; commissionId: string; amount: string; currency: string; campaignName: string; eventType?: string };
type Approved = { partnerName: string; commissionId: string; amount: string; currency: string; campaignName?: string; eventType?: string };
type PayoutLine = { commissionId: string; createdAt: string; campaignName: string; amount: string; eventType?: string };

/** The commission's event type and campaign name, read when the email is written. */
async function commissionFacts(sql: Tx, commissionId: string): Promise<{ eventType?: string; campaignName?: string }> {
  const [row] = await sql<{ event_type: string; campaign: string | null }[]>`
    select c.event_type, k.name as campaign from commissions c left join campaigns k on k.id = c.campaign_id where c.id = ${commissionId}`;
  return row ? { eventType: row.event_type, campaignName: row.campaign ?? undefined } : {};
}

/** How a payout's rail reads to the partner who receives it. */
const RAIL_WORDS: Record<string, string> = { stripe: 'Stripe', paypal: 'PayPal', wise: 'Wise', manual: 'Direct payment from the program' };

/** The "For" line: what the commission was earned on, in words. */
const earnedOn = (eventType: string | undefined): [string, string][] => (eventType ? [['For', eventLabel(eventType)]] : []);
type PayoutSent = {
  partnerName: string;
  payoutId: string;
  amount: string;
  currency: string;
  paidAt: string;
  /** The payout's rail (stripe, paypal, wise, manual). */
  rail: string;
  reference: string | null;
  commissions: PayoutLine[];
  clawbacks: string;
};
export type StatementLine = { currency: string; earned: string; approved: string; paid: string; reversed: string; count: number };
type Statement = { partnerName: string; month: string; lines: StatementLine[] };

const STATEMENT_ROWS = { earned: 'Earned', approved: 'Approved', paid: 'Paid', reversed: 'Reversed' } as const;

const monthName = (month: string) =>
  new Date(`${month}-01T00:00:00Z`).toLocaleDateString('en-US', { month: 'long', year: 'numeric', timeZone: 'UTC' });

export const partnerTemplates = {
  commission_accrued: defineTemplate<Accrued>({
    title: 'Commission earned',
    audience: 'partner',
    notification: 'commissionAccrued',
    async load(sql: Tx, stored: Accrued & { campaignId?: string }) {
      const [c] = await sql<{ name: string }[]>`select name from campaigns where id = ${stored.campaignId ?? ''}`;
      const { eventType } = await commissionFacts(sql, stored.commissionId);
      return { ...stored, campaignName: c?.name ?? stored.campaignName ?? '', eventType: eventType ?? stored.eventType };
    },
    subject: (d) => `You earned ${money(d.amount, d.currency)}`,
    body: (d, b) => [
      heading(`You earned ${money(d.amount, d.currency)}`),
      p(`Hi ${d.partnerName}, a sale you referred earned you a commission. It is pending until the holdback period ends; then it is approved and paid in the next payout.`),
      facts([['Amount', money(d.amount, d.currency)], ['Campaign', d.campaignName], ...earnedOn(d.eventType)]),
      button('See your commissions', `${b.baseUrl}/portal/commissions`),
    ],
    sample: { partnerName: 'Ada Lovelace', commissionId: 'com_01jd8x0000000000000000000a', amount: '12.50', currency: 'USD', campaignName: 'Spring launch', eventType: 'invoice_paid' },
  }),

  commission_approved: defineTemplate<Approved>({
    title: 'Commission approved',
    audience: 'partner',
    notification: 'commissionApproved',
    async load(sql: Tx, stored: Approved) {
      return { ...stored, ...(await commissionFacts(sql, stored.commissionId)) };
    },
    subject: (d) => `Your commission of ${money(d.amount, d.currency)} is approved`,
    body: (d, b) => [
      heading('Commission approved'),
      p(`Hi ${d.partnerName}, your commission of ${money(d.amount, d.currency)} is approved. It will be paid in the next payout.`),
      facts([['Amount', money(d.amount, d.currency)], ...(d.campaignName ? ([['Campaign', d.campaignName]] as [string, string][]) : []), ...earnedOn(d.eventType)]),
      button('See your commissions', `${b.baseUrl}/portal/commissions`),
    ],
    sample: { partnerName: 'Ada Lovelace', commissionId: 'com_01jd8x0000000000000000000a', amount: '12.50', currency: 'USD', campaignName: 'Spring launch', eventType: 'invoice_paid' },
  }),

  payout_sent: defineTemplate<PayoutSent>({
    title: 'Payout sent',
    audience: 'partner',
    notification: 'payoutSent',
    async load(sql: Tx, stored: { partnerName: string; payoutId: string }) {
      const [payout] = await sql<{ amount: bigint; clawbacks_amount: bigint; currency: string; paid_at: Date | null; provider: string; provider_reference: string | null }[]>`
        select amount, clawbacks_amount, currency, paid_at, provider, provider_reference from payouts where id = ${stored.payoutId}`;
      if (!payout) throw new Error(`payout ${stored.payoutId} not found`);
      const lines = await sql<{ id: string; created_at: Date; amount: bigint; campaign: string | null; event_type: string }[]>`
        select c.id, c.created_at, c.amount, k.name as campaign, c.event_type
        from commissions c left join campaigns k on k.id = c.campaign_id
        where c.payout_id = ${stored.payoutId}
        order by c.id`;
      return {
        partnerName: stored.partnerName,
        payoutId: stored.payoutId,
        amount: formatMinor(payout.amount, payout.currency),
        currency: payout.currency,
        paidAt: (payout.paid_at ?? new Date()).toISOString(),
        rail: payout.provider,
        reference: payout.provider_reference,
        clawbacks: formatMinor(payout.clawbacks_amount, payout.currency),
        commissions: lines.map((l) => ({
          commissionId: l.id,
          createdAt: l.created_at.toISOString(),
          campaignName: l.campaign ?? '',
          amount: formatMinor(l.amount, payout.currency),
          eventType: l.event_type,
        })),
      };
    },
    subject: (d) => `Payout sent: ${money(d.amount, d.currency)}`,
    body: (d, b) => [
      heading(`We sent you ${money(d.amount, d.currency)}`),
      p(`Hi ${d.partnerName}, your payout is on its way. It pays the ${d.commissions.length === 1 ? 'commission' : `${d.commissions.length} commissions`} below.`),
      facts([
        ['Payout', d.payoutId],
        ['Amount', money(d.amount, d.currency)],
        ['Paid on', day(d.paidAt)],
        ['Sent by', RAIL_WORDS[d.rail] ?? d.rail],
        ...(d.reference ? ([['Reference', d.reference]] as [string, string][]) : []),
        ...(d.clawbacks !== '0' && !/^0\.0*$/.test(d.clawbacks) ? ([['Refunds netted', `-${money(d.clawbacks, d.currency)}`]] as [string, string][]) : []),
      ]),
      table(
        ['Date', 'Campaign', 'For', `Amount (${d.currency})`],
        d.commissions.map((c) => [day(c.createdAt), c.campaignName, c.eventType ? eventLabel(c.eventType) : '', c.amount]),
        [3],
      ),
      button('See your payouts', `${b.baseUrl}/portal/payouts`),
    ],
    sample: {
      partnerName: 'Ada Lovelace',
      payoutId: 'pay_01jd8x0000000000000000000a',
      amount: '37.50',
      currency: 'USD',
      paidAt: '2026-11-01T09:00:00.000Z',
      rail: 'stripe',
      reference: 'tr_1QxExample',
      clawbacks: '0.00',
      commissions: [
        { commissionId: 'com_01jd8x0000000000000000000a', createdAt: '2026-09-12T10:00:00.000Z', campaignName: 'Spring launch', amount: '12.50', eventType: 'invoice_paid' },
        { commissionId: 'com_01jd8x0000000000000000000b', createdAt: '2026-09-20T16:30:00.000Z', campaignName: 'Spring launch', amount: '25.00', eventType: 'recruit_override' },
      ],
    },
  }),

  monthly_statement: defineTemplate<Statement>({
    title: 'Monthly statement',
    audience: 'partner',
    notification: 'monthlyStatement',
    subject: (d) => `Your statement for ${monthName(d.month)}`,
    body: (d, b) => [
      heading(`Your statement for ${monthName(d.month)}`),
      d.lines.length === 0
        ? p(`Hi ${d.partnerName}, no commissions moved in ${monthName(d.month)}. Share your links to earn more.`)
        : p(`Hi ${d.partnerName}, here is what happened to your commissions in ${monthName(d.month)}.`),
      ...(d.lines.length === 0
        ? []
        : [
            // one column per currency (seldom more than two), one row per movement: fits a phone
            table(
              ['', ...d.lines.map((l) => l.currency)],
              (['earned', 'approved', 'paid', 'reversed'] as const).map((k) => [STATEMENT_ROWS[k], ...d.lines.map((l) => l[k])]),
              d.lines.map((_, i) => i + 1),
            ),
          ]),
      button('Open your dashboard', `${b.baseUrl}/portal`),
    ],
    sample: {
      partnerName: 'Ada Lovelace',
      month: '2026-10',
      lines: [{ currency: 'USD', earned: '87.50', approved: '50.00', paid: '37.50', reversed: '12.50', count: 7 }],
    },
  }),
};
