// Sample payloads for test sends (`POST /webhooks/:id/test?event=<type>`): one realistic `data`
// per event type of SPEC section 6, with ids of the right shapes, so receivers can exercise their
// parsing of every type before real events flow.
import { newId } from '../../lib/ids';
import type { EventPayloads, EventType } from './events';

export function samplePayload<E extends EventType>(type: E, now = new Date()): EventPayloads[E] {
  const partnerId = newId('partner');
  const commissionId = newId('commission');
  const attributionId = newId('attribution');
  const campaignId = newId('campaign');
  const payoutId = newId('payout');
  const at = now.toISOString();
  const samples: { [K in EventType]: EventPayloads[K] } = {
    'attribution.created': {
      attributionId,
      eventId: newId('event'),
      partnerId,
      campaignId,
      clickId: newId('click'),
      couponCode: null,
      model: 'last_click',
      weight: 1,
      eventType: 'invoice_paid',
      eventValue: 49.9,
      commissionId,
      commissionAmount: '9.98',
      commissionCurrency: 'USD',
    },
    'commission.accrued': {
      commissionId,
      partnerId,
      attributionId,
      campaignId,
      amount: '9.98',
      currency: 'USD',
      eventType: 'invoice_paid',
      eventValue: 49.9,
      flags: [],
      ruleSource: 'campaign',
    },
    'commission.approved': { commissionId, partnerId, amount: '9.98', currency: 'USD', approvedAt: at },
    'commission.paid': { commissionId, payoutId, partnerId, amount: '9.98', currency: 'USD' },
    'commission.reversed': { commissionId, partnerId, amount: '9.98', currency: 'USD', reason: 'refund' },
    'partner.created': {
      partnerId,
      email: 'ada.example@example.com',
      name: 'Ada Example',
      activatedAt: null,
      invited: true,
      campaignIds: [campaignId],
    },
    'partner.activated': { partnerId, email: 'ada.example@example.com', name: 'Ada Example', activatedAt: at },
    'partnership.approved': {
      partnerId,
      email: 'ada.example@example.com',
      name: 'Ada Example',
      networkCreatorId: 'crt_sample_4821',
      campaignIds: [campaignId],
    },
    'payout.created': { payoutId, partnerId, amount: '129.40', currency: 'USD', commissionCount: 13 },
    'payout.paid': { payoutId, partnerId, amount: '129.40', currency: 'USD', provider: 'stripe', providerReference: 'tr_1QabcdEFGH', paidAt: at },
    'payout.failed': { payoutId, partnerId, amount: '129.40', currency: 'USD', provider: 'paypal', reason: 'RECEIVER_UNREGISTERED', failedAt: at },
    'webhook.test': { message: 'This is a test delivery from Partnerd.', sentAt: at },
  };
  return samples[type] as EventPayloads[E];
}
