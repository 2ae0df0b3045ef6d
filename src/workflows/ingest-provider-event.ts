// Applies what a billing plugin made of a provider event: customer links, conversions through the
// same pipeline as POST /v1/events, and reversals. Every step is idempotent on the provider's event
// id, so redeliveries and out-of-order arrival never double or lose a commission.
import type { BillingAction, BillingPlugin, ProviderEvent } from '../../plugins/billing';
import type { AppContext } from '../context';
import { reverseCommissionIn } from '../modules/commissions/lifecycle';
import { recordEvent } from './record-event';

type Conversion = Extract<BillingAction, { kind: 'conversion' }>;
type Reversal = Extract<BillingAction, { kind: 'reversal' }>;

export type IngestOutcome = { eventId: string; type: string; actions: string[] };

export async function ingestProviderEvent(ctx: AppContext, plugin: BillingPlugin, event: ProviderEvent): Promise<IngestOutcome> {
  const done: string[] = [];
  for (const action of plugin.map(event)) {
    switch (action.kind) {
      case 'link-customer':
        done.push(...(await linkCustomer(ctx, plugin.name, action.customerId, action.userId)));
        break;
      case 'conversion':
        done.push(await convert(ctx, plugin.name, `${plugin.name}:${event.id}`, action));
        break;
      case 'reversal':
        done.push(await reverse(ctx, plugin.name, event.id, action));
        break;
    }
  }
  return { eventId: event.id, type: event.type, actions: done };
}

/** The stand-in user id of a conversion whose customer nobody has linked yet. */
const unlinkedUser = (provider: string, customerId: string) => `${provider}:${customerId}`;

async function userFor(ctx: AppContext, provider: string, customerId: string): Promise<string | null> {
  const [row] = await ctx.sql`select user_id from billing_customers where provider = ${provider} and customer_id = ${customerId}`;
  return (row?.user_id as string | undefined) ?? null;
}

/**
 * Remembers customer -> user. Conversions that arrived before the link were recorded under a
 * stand-in user id (attribution no_identity, nothing lost); they are now replayed for the real user.
 */
async function linkCustomer(ctx: AppContext, provider: string, customerId: string, userId: string): Promise<string[]> {
  await ctx.sql`
    insert into billing_customers (provider, customer_id, user_id) values (${provider}, ${customerId}, ${userId})
    on conflict (provider, customer_id) do update set user_id = excluded.user_id, updated_at = now()`;
  const parked = await ctx.sql`
    select id, type, amount, currency, occurred_at, metadata, idempotency_key from events
    where source = ${provider} and user_id = ${unlinkedUser(provider, customerId)}
    order by occurred_at, id`;
  const done = [`linked ${customerId}`];
  for (const event of parked) {
    const references = (await ctx.sql`select reference from billing_references where provider = ${provider} and event_id = ${event.id}`).map(
      (r) => r.reference as string,
    );
    done.push(
      await convert(ctx, provider, `${event.idempotency_key}:${userId}`, {
        kind: 'conversion',
        customerId,
        userId,
        type: event.type,
        amount: event.amount,
        currency: event.currency,
        occurredAt: event.occurred_at,
        references,
        metadata: { ...event.metadata, replayOf: event.id },
      }),
    );
  }
  return done;
}

async function convert(ctx: AppContext, provider: string, idempotencyKey: string, action: Conversion): Promise<string> {
  const userId = action.userId ?? (await userFor(ctx, provider, action.customerId)) ?? unlinkedUser(provider, action.customerId);
  const recorded = await recordEvent(ctx, {
    source: provider,
    userId,
    type: action.type,
    amount: action.amount,
    currency: action.currency,
    occurredAt: action.occurredAt.toISOString(),
    metadata: action.metadata,
    idempotencyKey,
  });
  const eventId = recorded.event.id;
  if (action.references.length > 0) {
    const rows = action.references.map((reference) => ({ provider, reference, event_id: eventId }));
    await ctx.sql`insert into billing_references ${ctx.sql(rows, 'provider', 'reference', 'event_id')} on conflict do nothing`;
    // a refund or dispute may have come first
    const pending = await ctx.sql`
      delete from billing_pending_reversals
      where provider = ${provider} and reference = any(${action.references})
      returning reason, provider_event_id`;
    for (const p of pending) {
      await reverse(ctx, provider, p.provider_event_id, { kind: 'reversal', references: action.references, reason: p.reason });
    }
  }
  return `${action.type} ${eventId} ${recorded.attribution.status}${recorded.replayed ? ' (already recorded)' : ''}`;
}

/** Reverses every live commission of the conversions the references point at. */
async function reverse(ctx: AppContext, provider: string, providerEventId: string, action: Reversal): Promise<string> {
  return ctx.sql.begin(async (tx) => {
    const commissions = await tx`
      select c.id from commissions c
      where c.event_id in (
        select event_id from billing_references where provider = ${provider} and reference = any(${action.references})
      ) and c.status <> 'reversed'
      order by c.id
      for update`;
    const known = await tx`select 1 from billing_references where provider = ${provider} and reference = any(${action.references}) limit 1`;
    if (known.length === 0) {
      const rows = action.references.map((reference) => ({ provider, reference, reason: action.reason, provider_event_id: providerEventId }));
      await tx`insert into billing_pending_reversals ${tx(rows, 'provider', 'reference', 'reason', 'provider_event_id')} on conflict do nothing`;
      return `${action.reason} waiting for its payment`;
    }
    for (const c of commissions) {
      await reverseCommissionIn(tx, { id: c.id, actor: `provider:${provider}`, reason: action.reason });
    }
    return `${action.reason}: reversed ${commissions.length}`;
  });
}
