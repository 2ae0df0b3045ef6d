// Applies what a billing plugin made of a provider event: customer links, conversions through the
// same pipeline as POST /v1/events, and money coming back (refunds in full or in part, chargebacks,
// settled against the commissions of the conversion they name). Every step is idempotent on the provider's event
// id, and a conversion also on its provider object (billing_conversions), so redeliveries, one
// invoice under two event ids and out-of-order arrival never double or lose a commission.
import type { BillingAction, BillingPlugin, ProviderEvent } from '../../plugins/billing';
import type { AppContext } from '../context';
import type { Transaction, Tx } from '../db';
import type { ProviderEventReceived } from '../modules/billing/model';
import { apportion, formatMinor, fraction, roundHalfEven, type Fraction } from '../lib/money';
import { reduceCommissionIn, reverseCommissionIn } from '../modules/commissions/lifecycle';
import type { RecordedEvent } from '../modules/events/intake';
import { setAccountReady } from '../modules/payouts/methods';
import { recordEvents } from './record-events';

type Conversion = Extract<BillingAction, { kind: 'conversion' }>;
type Reversal = Extract<BillingAction, { kind: 'reversal' }>;

/** What the provider webhook answers (beside `received: true`). */
export type IngestOutcome = Omit<typeof ProviderEventReceived.static, 'received'>;

/**
 * Applies one provider event in ONE transaction: a delivery that fails part-way (a payload the core
 * refuses, a lost connection) leaves nothing behind, and the provider's retry starts clean.
 */
export async function ingestProviderEvent(ctx: AppContext, plugin: BillingPlugin, event: ProviderEvent, actions: BillingAction[]): Promise<IngestOutcome> {
  const done = await ctx.sql.begin(async (tx) => {
    const lines: string[] = [];
    for (const action of actions) {
      switch (action.kind) {
        case 'link-customer':
          lines.push(...(await linkCustomer(ctx, tx, plugin.name, action.customerId, action.userId)));
          break;
        case 'conversion':
          lines.push(await convert(ctx, tx, plugin.name, event.id, action));
          break;
        case 'reversal':
          lines.push(await reverse(ctx, tx, plugin.name, event.id, action));
          break;
        case 'payout-account': {
          const partners = await setAccountReady(tx, action.accountId, action.payoutsEnabled);
          lines.push(`payout account ${action.accountId} ${action.payoutsEnabled ? 'ready' : 'not ready'} (${partners.length} partner)`);
          break;
        }
      }
    }
    return lines;
  });
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
  /** The promotion code the provider reported, held until the customer is known. */
  coupon_code: string | null;
  /** The customer's email the provider reported (self_referral). */
  customer_email: string | null;
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
async function linkCustomer(ctx: AppContext, tx: Transaction, provider: string, customerId: string, userId: string): Promise<string[]> {
  await tx`
    insert into billing_customers (provider, customer_id, user_id) values (${provider}, ${customerId}, ${userId})
    on conflict (provider, customer_id) do update set user_id = excluded.user_id, updated_at = now()`;
  const parked = await tx<ParkedEvent[]>`
    select id, type, amount, currency, occurred_at, metadata, idempotency_key, coupon_code, customer_email from events
    where source = ${provider} and user_id = ${unlinkedUser(provider, customerId)}
    order by occurred_at, id`;
  const done = [`linked ${customerId}`];
  for (const event of parked) {
    const references = (
      await tx<{ reference: string }[]>`select reference from billing_references where provider = ${provider} and event_id = ${event.id}`
    ).map((r) => r.reference);
    const replayed = await recordConversion(ctx, tx, {
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
          couponCode: event.coupon_code,
          customerEmail: event.customer_email,
          metadata: { ...event.metadata, replayOf: event.id },
        },
      });
    done.push(describe(event.type, replayed));
  }
  return done;
}

/**
 * Records a conversion once per provider object. The object's billing_conversions row commits with
 * the event, under an advisory lock on (provider, object), so the same invoice arriving under a
 * second event id, at once or later, on any replica, answers the event the first one recorded.
 */
async function convert(ctx: AppContext, tx: Transaction, provider: string, providerEventId: string, action: Conversion): Promise<string> {
  await tx`select pg_advisory_xact_lock(hashtextextended(${`partnerd:billing-object:${provider}:${action.objectId}`}, 0))`;
  const [seen] = await tx<{ event_id: string }[]>`select event_id from billing_conversions where provider = ${provider} and object_id = ${action.objectId}`;
  if (seen) return `${action.type} ${seen.event_id} (already recorded)`;
  const recorded = await recordConversion(ctx, tx, { provider, idempotencyKey: `${provider}:${providerEventId}`, conversion: action });
  await tx`
    insert into billing_conversions (provider, object_id, event_id, provider_event_id)
    values (${provider}, ${action.objectId}, ${recorded.event.id}, ${providerEventId})`;
  return describe(action.type, recorded);
}

type ConversionRecord = Omit<Conversion, 'kind' | 'objectId'>;

/**
 * One conversion event (through recordEvents, a batch of one in the caller's transaction) with the references a
 * refund may later name; a refund or dispute that came first is applied now.
 */
async function recordConversion(
  ctx: AppContext,
  tx: Transaction,
  input: { provider: string; idempotencyKey: string; conversion: ConversionRecord },
): Promise<RecordedEvent> {
  const { provider, conversion } = input;
  const userId = conversion.userId ?? (await userFor(tx, provider, conversion.customerId)) ?? unlinkedUser(provider, conversion.customerId);
  const [outcome] = await recordEvents(
    ctx,
    [
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
        customerEmail: conversion.customerEmail ?? null,
        customerId: conversion.customerId,
      },
    ],
    tx,
  );
  if (!outcome!.ok) throw outcome!.error;
  const recorded = outcome!.recorded;
  if (conversion.references.length > 0) {
    await lockReferences(tx, provider, conversion.references);
    const rows = conversion.references.map((reference) => ({ provider, reference, event_id: recorded.event.id }));
    await tx`insert into billing_references ${tx(rows, 'provider', 'reference', 'event_id')} on conflict do nothing`;
    // money that came back before this payment arrived is applied now
    await settleRefunds(ctx, tx, provider, recorded.event.id);
  }
  return recorded;
}

const describe = (type: string, recorded: RecordedEvent) =>
  `${type} ${recorded.event.id} ${recorded.attribution.status}${recorded.replayed ? ' (already recorded)' : ''}`;

/**
 * Money came back. The notice is kept (billing_refunds, one row per provider refund object, the
 * larger total winning), then every conversion it names is settled against all it knows. When the
 * payment has not arrived yet, recordConversion settles it on arrival.
 */
async function reverse(ctx: AppContext, tx: Transaction, provider: string, providerEventId: string, action: Reversal): Promise<string> {
  const refunded = action.refunded;
  await lockReferences(tx, provider, action.references);
  await tx`
    insert into billing_refunds (provider, refund_key, refs, reason, amount, paid, provider_event_id)
    values (${provider}, ${refunded?.key ?? `event:${providerEventId}`}, ${action.references}::text[], ${action.reason},
            ${refunded?.amount ?? null}, ${refunded?.of ?? null}, ${providerEventId})
    on conflict (provider, refund_key) do update set
      refs = array(select distinct r from unnest(billing_refunds.refs || excluded.refs) as r order by r),
      amount = case when billing_refunds.amount is null or excluded.amount is null then null
                    else greatest(billing_refunds.amount, excluded.amount) end,
      paid = coalesce(billing_refunds.paid, excluded.paid),
      updated_at = now()`;
  const events = await tx<{ event_id: string }[]>`
    select distinct event_id from billing_references where provider = ${provider} and reference = any(${action.references}::text[])
    order by event_id`;
  if (events.length === 0) return `${action.reason} waiting for its payment`;
  const outcomes: string[] = [];
  for (const { event_id } of events) outcomes.push(await settleRefunds(ctx, tx, provider, event_id));
  return outcomes.filter((o) => o !== '').join('; ') || `${action.reason}: nothing left to reverse`;
}

/**
 * A payment and a refund of it that arrive at the same moment meet on their references: each takes
 * these locks before writing its side, so whichever comes second sees the first one's rows (a refund
 * would otherwise wait for a payment that never looks for it). Sorted, so two holders never deadlock.
 */
async function lockReferences(tx: Transaction, provider: string, references: string[]): Promise<void> {
  const keys = [...new Set(references)].sort().map((r) => `partnerd:billing-ref:${provider}:${r}`);
  for (const key of keys) await tx`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`;
}

type RefundNotice = { reason: Reversal['reason']; amount: bigint | null; paid: bigint | null };

/**
 * Brings a conversion's live commissions in line with every refund notice about it: all of the
 * payment back (or a chargeback) reverses them; a share of it lowers each in proportion to what
 * came back, from its accrued amount, the reductions of one currency apportioned so they add up
 * (half-even). Settling again with nothing new changes nothing, so redeliveries are harmless, and a
 * commission is never raised. Answers what it did, in words ('' when nothing).
 */
async function settleRefunds(ctx: AppContext, tx: Transaction, provider: string, eventId: string): Promise<string> {
  // one settlement of a conversion at a time: the next one reads what this one wrote
  await tx`select pg_advisory_xact_lock(hashtextextended(${`partnerd:refunds:${eventId}`}, 0))`;
  const commissions = await tx<{ id: string; status: string; amount: bigint; currency: string; accrued: bigint }[]>`
    select c.id, c.status, c.amount, c.currency,
      coalesce((select a.amount_before from commission_adjustments a where a.commission_id = c.id order by a.id limit 1), c.amount) as accrued
    from commissions c
    where c.event_id = ${eventId} and c.status <> 'reversed'
      and c.source_commission_id is null -- recruit overrides follow their recruit's commission (lifecycle.ts)
    order by c.id
    for update of c`;
  if (commissions.length === 0) return '';
  const notices = await tx<RefundNotice[]>`
    select reason, amount, paid from billing_refunds
    where provider = ${provider}
      and refs && array(select reference from billing_references where provider = ${provider} and event_id = ${eventId})`;
  const [event] = await tx<{ amount: bigint | null; currency: string | null }[]>`select amount, currency from events where id = ${eventId}`;
  const share = refundedShare(notices, event?.amount ?? null);
  const actor = `provider:${provider}`;
  if (share === 'all') {
    const reason = notices.some((n) => n.reason === 'chargeback') ? 'chargeback' : 'refund';
    for (const c of commissions) await reverseCommissionIn(tx, { id: c.id, actor, reason });
    return `${reason}: reversed ${commissions.length}`;
  }
  if (share.num === 0n) return '';
  const detail = describeShare(share, event);
  let reduced = 0;
  for (const currency of new Set(commissions.map((c) => c.currency))) {
    const group = commissions.filter((c) => c.currency === currency);
    const cuts = apportion(group.map((c) => fraction(c.accrued * share.num, share.den)));
    for (const [i, c] of group.entries()) {
      const target = c.accrued - cuts[i]!;
      if (target >= c.amount) continue;
      if (target <= 0n) await reverseCommissionIn(tx, { id: c.id, actor, reason: 'refund' });
      else await reduceCommissionIn(tx, { id: c.id, amount: target, actor, reason: 'partial_refund', detail });
      reduced++;
    }
  }
  ctx.log.debug('partial refund settled', { provider, eventId, share: `${share.num}/${share.den}`, reduced });
  return reduced > 0 ? `partial_refund: reduced ${reduced}` : '';
}

/**
 * The share of a payment that came back, exact: 'all' for a full reversal (a notice without an
 * amount, or refunds reaching what was paid), else the sum of each notice's amount over what it
 * says was paid (or the conversion's amount). Notices that give no way to size them are left out.
 */
export function refundedShare(notices: RefundNotice[], eventAmount: bigint | null): 'all' | Fraction {
  let share: Fraction = fraction(0n, 1n);
  for (const n of notices) {
    if (n.amount === null) return 'all';
    const paid = n.paid ?? eventAmount;
    if (paid === null || paid <= 0n) continue;
    share = fraction(share.num * paid + n.amount * share.den, share.den * paid);
  }
  return share.num >= share.den ? 'all' : share;
}

function describeShare(share: Fraction, event: { amount: bigint | null; currency: string | null } | undefined): string {
  if (event?.amount && event.currency) {
    const back = roundHalfEven(event.amount * share.num, share.den);
    return `${formatMinor(back, event.currency)} of ${formatMinor(event.amount, event.currency)} ${event.currency} refunded`;
  }
  return `${share.num}/${share.den} of the payment refunded`;
}
