// Answer schemas of the inbound provider webhooks (the body is the provider's raw bytes: no schema).
import { t } from 'elysia';
import { ErrorResponse, errors } from '../../lib/http';

/** What a delivery of a provider event did (also logged as `billing event`). */
export const ProviderEventReceived = t.Object({
  received: t.Literal(true),
  eventId: t.String({ description: "The provider's event id.", examples: ['evt_1QzXk2LkdIwHu7ix'] }),
  type: t.String({ description: "The provider's event type.", examples: ['invoice.paid'] }),
  actions: t.Array(t.String(), {
    description: 'What the event caused, one line each (customer links, conversions and their attribution, reversals); empty when the event type is ignored.',
    examples: [['invoice_paid evt_01jd8x0000000000000000000a attributed']],
  }),
});

/** The answer where a provider's webhook is not configured: the route is not there. */
const NotConfigured = {
  ...ErrorResponse,
  description: "Not found (`not_found`): this provider's webhook is not configured on this service (its secret variable, such as STRIPE_WEBHOOK_SECRET, is unset), so the route does not exist.",
};

export const BillingResponses = {
  // 400: a bad or missing signature (nothing is recorded); 404: the provider is not configured (no
  // route; documented here, where the route is); 409: a conversion's idempotency key already used
  // with a different request (record-event)
  receive: { 200: ProviderEventReceived, ...errors(400, 409, 413), 404: NotConfigured },
};
