// The event types of SPEC section 6 that endpoints can subscribe to, and the schema of each payload.
import { t, type Static, type TSchema } from 'elysia';
import { FLAGS } from '../fraud/signals';

export const EVENT_TYPES = [
  'attribution.created',
  'commission.accrued',
  'commission.approved',
  'commission.paid',
  'commission.reversed',
  'partner.created',
  'partner.activated',
  'partnership.approved',
  'payout.created',
  'payout.paid',
  'payout.failed',
  'webhook.test',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** When each event fires (SPEC section 6). */
export const EVENT_FIRES_WHEN: Record<EventType, string> = {
  'attribution.created': 'A conversion event is attributed to a partner (after identity stitching).',
  'commission.accrued': 'A commission enters the accrued state.',
  'commission.approved': 'A commission is approved (manually or automatically after the holdback).',
  'commission.paid': 'A commission is paid by the payout runner.',
  'commission.reversed': 'A commission is reversed (refund, chargeback, fraud), or lowered by a partial refund (reason partial_refund).',
  'partner.created': 'A partner is inserted (admin invite, self-signup, or network federation).',
  'partner.activated': 'An invited partner uses the magic link.',
  'partnership.approved': "A network creator's partnership request is approved and the local partner is provisioned by federation.",
  'payout.created': 'A payout batch is created (per partner, once per payout run).',
  'payout.paid': 'A payout is paid: its rail confirmed it (a Stripe transfer, a PayPal item) or it was settled as paid (mark-paid, bulk settle).',
  'payout.failed': 'A payout failed: its rail refused it or reported it failed, or it was settled as failed (mark-failed, bulk settle); its commissions are payable again.',
  'webhook.test': 'Sent only by the test call.',
};

const Id = (example: string) => t.String({ examples: [example] });
const Amount = t.String({ pattern: '^-?[0-9]+(\\.[0-9]+)?$', description: 'Decimal string in major units, e.g. "12.50".', examples: ['12.50'] });
const Currency = t.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 code.', examples: ['USD'] });
const Time = t.String({ format: 'date-time' });

/** Payload (`data`) of each event type, as SPEC section 6 lists them: the schema of record. */
export const EVENT_DATA = {
  'attribution.created': t.Object({
    attributionId: Id('att_01jd8x0000000000000000000a'),
    eventId: Id('evt_01jd8x0000000000000000000a'),
    partnerId: Id('ptn_01jd8x0000000000000000000a'),
    campaignId: Id('cmp_01jd8x0000000000000000000a'),
    clickId: t.Nullable(Id('clk_01jd8x0000000000000000000a'), { description: 'The click credited; null when a promotion code credited the partner.' }),
    couponCode: t.Nullable(t.String({ examples: ['PODCAST20'] }), { description: 'The promotion code credited (as stored); null for a click.' }),
    model: t.UnionEnum(['last_click', 'linear', 'position']),
    weight: t.Number({ minimum: 0, maximum: 1, description: '1 for a single touch, fractional for multi-touch.' }),
    eventType: t.String(),
    eventValue: t.Number({ description: 'The event value in major units.' }),
    commissionId: t.Nullable(t.String(), { description: 'Null when the rules yield no commission for this touch.' }),
    commissionAmount: t.Nullable(Amount),
    commissionCurrency: t.Nullable(Currency),
  }),
  'commission.accrued': t.Object({
    commissionId: Id('com_01jd8x0000000000000000000a'),
    partnerId: t.String(),
    attributionId: t.String(),
    campaignId: t.String(),
    amount: Amount,
    currency: Currency,
    eventType: t.String(),
    eventValue: t.Number(),
    flags: t.Array(t.UnionEnum(FLAGS), {
      description: 'Fraud signals raised at accrual; empty when clean. A flagged commission waits for a person (never approved by the holdback job).',
    }),
    ruleSource: t.UnionEnum(['snapshot', 'group', 'campaign'], {
      description: "Whose rule paid it: the partner's commission snapshot, its group's, or the campaign's (a recruit_override: the campaign's recruiterPercent).",
    }),
  }),
  'commission.approved': t.Object({ commissionId: t.String(), partnerId: t.String(), amount: Amount, currency: Currency, approvedAt: Time }),
  'commission.paid': t.Object({ commissionId: t.String(), payoutId: Id('pay_01jd8x0000000000000000000a'), partnerId: t.String(), amount: Amount, currency: Currency }),
  'commission.reversed': t.Object({
    commissionId: t.String(),
    partnerId: t.String(),
    amount: t.String({
      ...Amount,
      description:
        'The commission\'s amount: all of it reversed, or, with reason partial_refund, what it is worth now that part of the payment came back (it stays in its status; GET /v1/commissions/:id/history has the amount before).',
    }),
    currency: Currency,
    reason: t.String({
      description: 'Why: refund, chargeback, partial_refund (lowered in proportion, not reversed), or what an admin gave.',
      examples: ['refund', 'chargeback', 'partial_refund', 'fraud'],
    }),
  }),
  'partner.created': t.Object({
    partnerId: t.String(),
    email: t.String(),
    name: t.String(),
    activatedAt: t.Nullable(Time),
    invited: t.Boolean({ description: 'Whether an invite email was sent.' }),
    campaignIds: t.Array(t.String()),
  }),
  'partner.activated': t.Object({ partnerId: t.String(), email: t.String(), name: t.String(), activatedAt: Time }),
  'partnership.approved': t.Object({
    partnerId: t.String(),
    email: t.String(),
    name: t.String(),
    networkCreatorId: t.String(),
    campaignIds: t.Array(t.String()),
  }),
  'payout.created': t.Object({
    payoutId: t.String(),
    partnerId: t.String(),
    amount: Amount,
    currency: Currency,
    commissionCount: t.Integer({ minimum: 0 }),
  }),
  'payout.paid': t.Object({
    payoutId: Id('pay_01jd8x0000000000000000000a'),
    partnerId: t.String(),
    amount: Amount,
    currency: Currency,
    provider: t.String({ description: 'The rail: stripe, paypal, wise or manual.', examples: ['stripe'] }),
    providerReference: t.Nullable(t.String({ description: 'A Stripe transfer id, a PayPal batch id, or the reference given when settled by hand.' })),
    paidAt: Time,
  }),
  'payout.failed': t.Object({
    payoutId: Id('pay_01jd8x0000000000000000000a'),
    partnerId: t.String(),
    amount: Amount,
    currency: Currency,
    provider: t.String({ description: 'The rail: stripe, paypal, wise or manual.', examples: ['paypal'] }),
    reason: t.String({ description: "Why, in the rail's words or the operator's." }),
    failedAt: Time,
  }),
  'webhook.test': t.Record(t.String(), t.Unknown(), { description: 'A reachability check; its content is not part of the contract.' }),
} satisfies Record<EventType, TSchema>;

export type EventPayloads = { [K in EventType]: Static<(typeof EVENT_DATA)[K]> };

/** The JSON body of every delivery. */
export function envelopeOf<K extends EventType>(type: K) {
  return t.Object({
    id: t.String({ description: 'evt_<id>: the same for every delivery of this event (dedupe on it).' }),
    event: t.Literal(type),
    created: t.String({ format: 'date-time', description: 'ISO 8601 with milliseconds.' }),
    data: EVENT_DATA[type],
  });
}

/** What an endpoint may subscribe to: the event types, or `*` alone for all of them. */
export const WILDCARD = '*';

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}
