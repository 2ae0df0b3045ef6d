// The event types of SPEC section 6 that endpoints can subscribe to.

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
  'webhook.test',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** Payload (`data`) of each event type, as SPEC section 6 lists them. */
export type EventPayloads = {
  'attribution.created': {
    attributionId: string;
    eventId: string;
    partnerId: string;
    campaignId: string;
    clickId: string;
    model: string;
    weight: number;
    eventType: string;
    eventValue: number;
    commissionId: string | null;
    commissionAmount: string | null;
    commissionCurrency: string | null;
  };
  'commission.accrued': {
    commissionId: string;
    partnerId: string;
    attributionId: string;
    campaignId: string;
    amount: string;
    currency: string;
    eventType: string;
    eventValue: number;
  };
  'commission.approved': { commissionId: string; partnerId: string; amount: string; currency: string; approvedAt: string };
  'commission.paid': { commissionId: string; payoutId: string; partnerId: string; amount: string; currency: string };
  'commission.reversed': { commissionId: string; partnerId: string; amount: string; currency: string; reason: string };
  'partner.created': {
    partnerId: string;
    email: string;
    name: string;
    activatedAt: string | null;
    invited: boolean;
    campaignIds: string[];
  };
  'partner.activated': { partnerId: string; email: string; name: string; activatedAt: string };
  'partnership.approved': { partnerId: string; email: string; name: string; networkCreatorId: string; campaignIds: string[] };
  'payout.created': { payoutId: string; partnerId: string; amount: string; currency: string; commissionCount: number };
  'webhook.test': Record<string, unknown>;
};

/** What an endpoint may subscribe to: the event types, or `*` alone for all of them. */
export const WILDCARD = '*';

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}
