// POST /webhooks/<provider>: the inbound webhook of each billing plugin with a configured secret
// (SPEC section 4). A provider without one has no route: 404.
import { setActor } from '../lib/audit-context';
import { Elysia } from 'elysia';
import { SignatureError, type BillingPlugin } from '../../plugins/billing';
import type { AppContext } from '../context';
import { AppError } from '../lib/errors';
import { ingestProviderEvent } from '../workflows/ingest-provider-event';
import { BillingResponses } from '../modules/billing/model';

export function billingRoutes(ctx: AppContext) {
  const app = new Elysia();
  for (const plugin of ctx.billingPlugins.filter((p) => p.receivesWebhooks)) {
    app.post(`/webhooks/${plugin.name}`, ({ request }) => receive(ctx, plugin, request), {
      // the signature covers the exact bytes: no parsing before verify()
      parse: 'none',
      response: BillingResponses.receive,
      detail: { summary: `Inbound ${plugin.name} webhook`, tags: ['Billing'] },
    });
  }
  return app;
}

async function receive(ctx: AppContext, plugin: BillingPlugin, request: Request) {
  // what the event changes (a refund's reversal) is the provider's doing in the audit log
  setActor({ type: 'provider', id: plugin.name });
  const raw = await request.text();
  let event;
  try {
    event = await plugin.verify(raw, request.headers);
  } catch (error) {
    if (error instanceof SignatureError) throw new AppError('invalid_body', `signature verification failed: ${error.message}`);
    throw error;
  }
  if (typeof event.id !== 'string' || event.id === '' || typeof event.type !== 'string' || event.type === '') {
    throw new AppError('invalid_body', `a ${plugin.name} event needs an id and a type`);
  }
  let actions;
  try {
    actions = plugin.map(event);
  } catch (error) {
    // a signed body that is not what the provider documents: refused whole, nothing recorded
    ctx.log.warn('billing event not understood', { provider: plugin.name, eventId: event.id, type: event.type, error: String(error) });
    throw new AppError('invalid_body', `the ${event.type} event does not have the shape ${plugin.name} documents`);
  }
  const outcome = await ingestProviderEvent(ctx, plugin, event, actions);
  ctx.log.info('billing event', { provider: plugin.name, ...outcome });
  return { received: true as const, ...outcome };
}
