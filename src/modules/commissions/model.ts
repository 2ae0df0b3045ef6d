// Request and response schemas of the commission routes (reading, approving, reversing).
import { t } from 'elysia';
import { errors, listOf, PageQuery, QueryEnum, Timestamp } from '../../lib/http';
import { FLAGS } from '../fraud/signals';

export const COMMISSION_STATUSES = ['accrued', 'approved', 'paid', 'reversed'] as const;

// ids only: anything else (a NUL, say) is a 400 rather than a database error
const IdText = t.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' });

export const ListCommissionsQuery = t.Object({
  status: QueryEnum(COMMISSION_STATUSES),
  partnerId: t.Optional(IdText),
  campaignId: t.Optional(IdText),
  from: t.Optional(t.String({ maxLength: 40, description: 'createdAt at or after (ISO 8601).' })),
  to: t.Optional(t.String({ maxLength: 40, description: 'createdAt before (ISO 8601).' })),
  occurredFrom: t.Optional(t.String({ maxLength: 40, description: 'occurredAt (when the sale happened) at or after (ISO 8601).' })),
  occurredTo: t.Optional(t.String({ maxLength: 40, description: 'occurredAt (when the sale happened) before (ISO 8601).' })),
  flagged: QueryEnum(['true', 'false'], { description: '`true`: only commissions with fraud flags; `false`: only those without.' }),
  ...PageQuery,
});

export const CommissionParams = t.Object({ id: IdText });

export const ReverseBody = t.Object({
  reason: t.String({ minLength: 1, maxLength: 500, pattern: '\\S', description: 'Why, e.g. refund, chargeback, fraud.' }),
});

// ---- answers

const Amount = t.String({ pattern: '^-?[0-9]+(\\.[0-9]+)?$', description: 'Decimal string in major units, e.g. "12.50".', examples: ['12.50'] });

/** A commission (GET /v1/commissions/:id, the list, approve and reverse). */
export const CommissionRecord = t.Object({
  id: t.String({ examples: ['com_01jd8x0000000000000000000a'] }),
  status: t.UnionEnum(COMMISSION_STATUSES),
  partnerId: t.String(),
  campaignId: t.String(),
  attributionId: t.String(),
  eventId: t.String(),
  userId: t.String(),
  amount: Amount,
  currency: t.String({ description: 'ISO 4217 code.', examples: ['USD'] }),
  eventType: t.String(),
  eventValue: t.Nullable(t.Number({ description: "The event's value in major units; null when the event had none in this currency." })),
  holdbackDays: t.Number({ multipleOf: 1, minimum: 0 }),
  occurredAt: t.String({ format: 'date-time', description: "When the sale happened: its event's occurredAt (the day it counts on in every report)." }),
  createdAt: Timestamp,
  approvedAt: t.Nullable(Timestamp),
  paidAt: t.Nullable(Timestamp),
  reversedAt: t.Nullable(Timestamp),
  reason: t.Nullable(t.String({ description: 'Why it was reversed.' })),
  payoutId: t.Nullable(t.String({ description: 'The payout that paid it.' })),
  flags: t.Array(t.UnionEnum(FLAGS), {
    description: 'Fraud signals raised at accrual; empty when clean. A flagged commission is never approved by the holdback job: approve or reverse it by hand.',
  }),
  ruleSource: t.UnionEnum(['snapshot', 'group', 'campaign'], {
    description: "Whose rule paid it: the partner's commission snapshot, its group's, or the campaign's (a recruit_override: the campaign's recruiterPercent).",
  }),
  sourceCommissionId: t.Nullable(t.String({ description: "For a recruit_override: the recruit's commission it is a share of (reversed with it); else null." })),
});

export const CommissionList = listOf('commissions', CommissionRecord);

const HistoryEntry = t.Object({
  at: Timestamp,
  change: t.UnionEnum(['status', 'amount'], { description: '`status`: a move between states; `amount`: the amount was lowered (a partial refund).' }),
  fromStatus: t.Nullable(t.String({ description: 'null for the accrual itself and for amount changes.' })),
  toStatus: t.Nullable(t.String()),
  amountBefore: t.Nullable(Amount),
  amountAfter: t.Nullable(Amount),
  actor: t.Nullable(
    t.String({ description: 'Who did it: `pipeline`, `job:approval`, `provider:stripe`, `key:…`, `admin:…`. null when a partner reads it.', examples: ['provider:stripe'] }),
  ),
  reason: t.Nullable(t.String({ examples: ['partial_refund', 'holdback elapsed'] })),
  detail: t.Nullable(t.String({ description: 'The change in words.', examples: ['25.00 of 100.00 USD refunded'] })),
});

/** GET /v1/commissions/:id/history: why a commission has the status and amount it has. */
export const CommissionHistory = t.Object({
  commissionId: t.String(),
  currency: t.String(),
  accruedAmount: t.String({ ...Amount, description: 'The amount at accrual, before any adjustment (major units).', examples: ['20.00'] }),
  amount: Amount,
  entries: t.Array(HistoryEntry),
});

export const CommissionResponses = {
  list: { 200: CommissionList, ...errors(400, 401, 403) },
  get: { 200: CommissionRecord, ...errors(400, 401, 403, 404) },
  history: { 200: CommissionHistory, ...errors(400, 401, 403, 404) },
  approve: { 200: CommissionRecord, ...errors(400, 401, 403, 404, 409, 413) },
  reverse: { 200: CommissionRecord, ...errors(400, 401, 403, 404, 409, 413) },
};
