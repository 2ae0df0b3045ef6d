-- One conversion per provider object: the invoice, transaction, order, subscription or customer a
-- billing plugin's conversion stands for, whatever event ids carry it. The primary key backs the
-- advisory lock src/modules/billing/service.ts takes on (provider, object_id).

create table billing_conversions (
  provider           text not null,
  object_id          text not null,
  event_id           text not null references events (id),  -- the conversion event it recorded
  provider_event_id  text not null,                          -- the provider event that brought it first
  created_at         timestamptz not null default now(),
  primary key (provider, object_id)
);

-- Conversions the Stripe adapter recorded before this table: their objects, from the metadata it
-- wrote (the first event of each object; replays for a later-linked user are not first events).
insert into billing_conversions (provider, object_id, event_id, provider_event_id, created_at)
select distinct on (object_id) 'stripe', object_id, id, substr(idempotency_key, length('stripe:') + 1), created_at
from (
  select id, idempotency_key, created_at,
         case type
           when 'invoice_paid' then metadata ->> 'invoiceId'
           when 'signup' then metadata ->> 'stripeCustomerId'
           when 'trial_started' then metadata ->> 'stripeSubscriptionId'
           when 'subscription_created' then metadata ->> 'stripeSubscriptionId'
         end as object_id
  from events
  where source = 'stripe' and idempotency_key like 'stripe:%' and not metadata ? 'replayOf'
) recorded
where object_id is not null
order by object_id, id;
