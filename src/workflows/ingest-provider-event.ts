// Applies what a billing plugin made of a provider event: customer links, conversions through the
// same pipeline as POST /v1/events, and reversals. Every step is idempotent on the provider's event
// id, and a conversion also on its provider object (billing_conversions), so redeliveries, one
// invoice under two event ids and out-of-order arrival never double or lose a commission.
import type { BillingAction, BillingPlugin, ProviderEvent } from '../../plugins/billing';
import type { AppContext } from '../context';
import type { Transaction, Tx } from '../db';
import type { ProviderEventReceived } from '../modules/billing/model';
import { reverseCommissionIn } from '../modules/commissions/lifecycle';
import { recordEvent, type RecordedEvent } from './record-event';

type Conversion = Extract<BillingAction, { kind: 'conversion' }>;
type Reversal = Extract<BillingAction, { kind: 'reversal' }>;

/** What the provider webhook answers (beside `received: true`). */
export type IngestOutcome = Omit<typeof ProviderEventReceived.static, 'received'>;

export async function ingestProviderEvent(ctx: AppContext, plugin: BillingPlugin, event: ProviderEvent): Promise<IngestOutcome> {
  const done: string[] = [];
  for (const action of plugin.map(event)) {
    switch (action.kind) {
      case 'link-customer':
        done.push(...(await linkCustomer(ctx, plugin.name, action.customerId, action.userId)));
        break;
      case 'conversion':
        done.push(await convert(ctx, plugin.name, event.id, action));
        break;
      case 'reversal':
        done.push(await reverse(ctx, plugin.name, event.id, action));
        break;
    }
  }
  return { eventId: event.id, type: event.type, actions: done };
}

/** A conversion recorded under a stand-in user, waiting for its customer to be linked. */
type ParkedEvent = {
  id: string;
  type: string;
  amount: bigint | null;
  currency: string | null;
  occurred_at: Date;
  metadata: Record<string, unknown>;
  /** `<provider>:<provider event id>` (set on every conversion a plugin records). */
  idempotency_key: string;
};

/** The stand-in user id of a conversion whose customer nobody has linked yet. */
const unlinkedUser = (provider: string, customerId: string) => `${provider}:${customerId}`;

async function userFor(sql: Tx, provider: string, customerId: string): Promise<string | null> {
  const [row] = await sql<{ user_id: string }[]>`select user_id from billing_customers where provider = ${provider} and customer_id = ${customerId}`;
  return row?.user_id ?? null;
}

/**
 * Remembers customer -> user. Conversions that arrived before the link were recorded under a
 * stand-in user id (attribution no_identity, nothing lost); they are now replayed for the real user.
 */
async function linkCustomer(ctx: AppContext, provider: string, customerId: string, userId: string): Promise<string[]> {
  await ctx.sql`
    insert into billing_customers (provider, customer_id, user_id) values (${provider}, ${customerId}, ${userId})
    on conflict (provider, customer_id) do update set user_id = excluded.user_id, updated_at = now()`;
  const parked = await ctx.sql<ParkedEvent[]>`
    select id, type, amount, currency, occurred_at, metadata, idempotency_key from events
    where source = ${provider} and user_id = ${unlinkedUser(provider, customerId)}
    order by occurred_at, id`;
  const done = [`linked ${customerId}`];
  for (const event of parked) {
    const references = (
      await ctx.sql<{ reference: string }[]>`select reference from billing_references where provider = ${provider} and event_id = ${event.id}`
    ).map((r) => r.reference);
    const replayed = await ctx.sql.begin((tx) =>
      recordConversion(ctx, tx, {
        provider,
        idempotencyKey: `${event.idempotency_key}:${userId}`,
        conversion: {
          customerId,
          userId,
          type: event.type,
          amount: event.amount,
          currency: event.currency,
          occurredAt: event.occurred_at,
          references,
          metadata: { ...event.metadata, replayOf: event.id },
        },
      }),
    );
    done.push(describe(event.type, replayed));
  }
  return done;
}

/**
 * Records a conversion once per provider object. The object's billing_conversions row commits with
 * the event, under an advisory lock on (provider, object), so the same invoice arriving under a
 * second event id, at once or later, on any replica, answers the event the first one recorded.
 */
async function convert(ctx: AppContext, provider: string, providerEventId: string, action: Conversion): Promise<string> {
  return ctx.sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(hashtextextended(${`partnerd:billing-object:${provider}:${action.objectId}`}, 0))`;
    const [seen] = await tx<{ event_id: string }[]>`select event_id from billing_conversions where provider = ${provider} and object_id = ${action.objectId}`;
    if (seen) return `${action.type} ${seen.event_id} (already recorded)`;
    const recorded = await recordConversion(ctx, tx, { provider, idempotencyKey: `${provider}:${providerEventId}`, conversion: action });
    await tx`
      insert into billing_conversions (provider, object_id, event_id, provider_event_id)
      values (${provider}, ${action.objectId}, ${recorded.event.id}, ${providerEventId})`;
    return describe(action.type, recorded);
  });
}

type ConversionRecord = Omit<Conversion, 'kind' | 'objectId'>;

/**
 * One conversion event (through recordEvent, in the caller's transaction) with the references a
 * refund may later name; a refund or dispute that came first is applied now.
 */
async function recordConversion(
  ctx: AppContext,
  tx: Transaction,
  input: { provider: string; idempotencyKey: string; conversion: ConversionRecord },
): Promise<RecordedEvent> {
  const { provider, conversion } = input;
  const userId = conversion.userId ?? (await userFor(tx, provider, conversion.customerId)) ?? unlinkedUser(provider, conversion.customerId);
  const recorded = await recordEvent(
    ctx,
    {
      source: provider,
      userId,
      type: conversion.type,
      amount: conversion.amount,
      currency: conversion.currency,
      occurredAt: conversion.occurredAt.toISOString(),
      metadata: conversion.metadata,
      idempotencyKey: input.idempotencyKey,
      couponCode: conversion.couponCode ?? undefined,
      holdCode: userId === unlinkedUser(provider, conversion.customerId), // a stand-in user is never credited
    },
    tx,
  );
  if (conversion.references.length > 0) {
    const rows = conversion.references.map((reference) => ({ provider, reference, event_id: recorded.event.id }));
    await tx`insert into billing_references ${tx(rows, 'provider', 'reference', 'event_id')} on conflict do nothing`;
    const pending = await tx<{ reason: Reversal['reason']; provider_event_id: string }[]>`
      delete from billing_pending_reversals
      where provider = ${provider} and reference = any(${conversion.references})
      returning reason, provider_event_id`;
    for (const p of pending) {
      await reverseIn(tx, provider, p.provider_event_id, { kind: 'reversal', references: conversion.references, reason: p.reason });
    }
  }
  return recorded;
}

const describe = (type: string, recorded: RecordedEvent) =>
  `${type} ${recorded.event.id} ${recorded.attribution.status}${recorded.replayed ? ' (already recorded)' : ''}`;

function reverse(ctx: AppContext, provider: string, providerEventId: string, action: Reversal): Promise<string> {
  return ctx.sql.begin((tx) => reverseIn(tx, provider, providerEventId, action));
}

/** Reverses every live commission of the conversions the references point at. */
async function reverseIn(tx: Transaction, provider: string, providerEventId: string, action: Reversal): Promise<string> {
  const commissions = await tx<{ id: string }[]>`
    select c.id from commissions c
    where c.event_id in (
      select event_id from billing_references where provider = ${provider} and reference = any(${action.references})
    ) and c.status <> 'reversed'
    order by c.id
    for update`;
  const known = await tx<{ found: number }[]>`select 1 as found from billing_references where provider = ${provider} and reference = any(${action.references}) limit 1`;
  if (known.length === 0) {
    const rows = action.references.map((reference) => ({ provider, reference, reason: action.reason, provider_event_id: providerEventId }));
    await tx`insert into billing_pending_reversals ${tx(rows, 'provider', 'reference', 'reason', 'provider_event_id')} on conflict do nothing`;
    return `${action.reason} waiting for its payment`;
  }
  for (const c of commissions) {
    await reverseCommissionIn(tx, { id: c.id, actor: `provider:${provider}`, reason: action.reason });
  }
  return `${action.reason}: reversed ${commissions.length}`;
}
