-- Partial refunds (DESIGN.md "Refunds (every plugin)").

-- Every notice of money coming back from a billing provider, full or partial, kept whether or not
-- its payment has arrived yet. A conversion's refunded share is read from the rows whose references
-- meet its own, so the order in which payment and refunds arrive does not matter.
create table billing_refunds (
  provider           text not null,
  -- the provider object the amount belongs to (charge, adjustment, order); a full reversal without
  -- an amount is keyed by the provider event that reported it
  refund_key         text not null,
  refs               text[] not null,
  reason             text not null check (reason in ('refund', 'chargeback')),
  -- minor units refunded under this key so far; null: all of the payment came back
  amount             bigint check (amount > 0),
  -- what was paid, when the provider said so beside the refund (otherwise the conversion's amount)
  paid               bigint check (paid > 0),
  provider_event_id  text not null,
  created_at         timestamptz not null default now(),
  updated_at         timestamptz not null default now(),
  primary key (provider, refund_key)
);
create index billing_refunds_refs on billing_refunds using gin (refs);

-- Refunds and disputes that waited for their payment under the earlier table move over as full reversals.
insert into billing_refunds (provider, refund_key, refs, reason, provider_event_id, created_at)
select provider, 'event:' || provider_event_id, array_agg(reference order by reference), min(reason), provider_event_id, min(created_at)
from billing_pending_reversals
group by provider, provider_event_id
on conflict do nothing;
drop table billing_pending_reversals;

-- What changed a commission's amount after accrual, so its history explains the amount it has.
create table commission_adjustments (
  id                 bigint generated always as identity primary key,
  commission_id      text not null references commissions (id),
  amount_before      bigint not null,
  amount_after       bigint not null check (amount_after >= 0),
  reason             text not null,
  actor              text not null,
  -- in words, e.g. "25.00 of 100.00 USD refunded"
  detail             text,
  created_at         timestamptz not null default now(),
  check (amount_after < amount_before)
);
create index commission_adjustments_commission on commission_adjustments (commission_id, id);

-- A commission can now owe money back more than once (each partial refund of a paid commission,
-- then the rest on a full reversal): clawbacks get their own id.
alter table clawbacks drop constraint clawbacks_pkey;
alter table clawbacks add column id bigint generated always as identity primary key;
create index clawbacks_commission on clawbacks (commission_id);
