// POST /webhooks/paypal: PayPal's payout item events, mounted when PayPal's API and PAYPAL_WEBHOOK_ID
// are set. Each delivery is verified through PayPal's verify-webhook-signature before anything is
// read from it; one PayPal does not vouch for is a 400 and changes nothing.
import { setActor } from '../lib/audit-context';
import { Elysia, t } from 'elysia';
import { RailSignatureError } from '../../plugins/payouts';
import type { AppContext } from '../context';
import { AppError } from '../lib/errors';
import { errors } from '../lib/http';
import { applyPayPalItems } from '../workflows/paypal-items';

const Received = t.Object({
  received: t.Literal(true),
  eventId: t.String(),
  type: t.String(),
  actions: t.Array(t.String(), { description: 'What the event did to each payout it names.' }),
});

export function paypalWebhookRoutes(ctx: AppContext) {
  const app = new Elysia();
  const api = ctx.payoutProvider.paypalApi;
  if (!api || !ctx.config.paypal.webhookId) return app;
  return app.post(
    '/webhooks/paypal',
    async ({ request }) => {
      const raw = await request.text();
      setActor({ type: 'provider', id: 'paypal' });
      let event;
      try {
        event = await api.verifyWebhook(raw, request.headers);
      } catch (error) {
        if (error instanceof RailSignatureError) throw new AppError('invalid_body', `signature verification failed: ${error.message}`);
        throw new AppError('bad_gateway', `PayPal could not verify the webhook: ${error instanceof Error ? error.message : String(error)}`);
      }
      const actions = event.item ? await applyPayPalItems(ctx, [event.item]) : [];
      ctx.log.info('paypal webhook', { eventId: event.id, type: event.type, actions });
      return { received: true as const, eventId: event.id, type: event.type, actions };
    },
    {
      parse: 'none',
      response: { 200: Received, ...errors(400, 413, 502) },
      detail: { summary: 'Inbound PayPal webhook (payout item events)', tags: ['Billing'] },
    },
  );
}
