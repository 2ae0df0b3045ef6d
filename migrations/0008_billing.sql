-- Billing-provider ingestion: who a provider's customer is, and which provider ids point at which
-- conversion events (so refunds and disputes find the commissions to reverse).

create table billing_customers (
  provider     text not null,
  customer_id  text not null,
  user_id      text not null,
  created_at   timestamptz not null default now(),
  updated_at   timestamptz not null default now(),
  primary key (provider, customer_id)
);

-- invoice, charge and payment intent ids of each conversion a provider reported
create table billing_references (
  provider   text not null,
  reference  text not null,
  event_id   text not null references events (id),
  primary key (provider, reference, event_id)
);

-- a refund or dispute that arrived before the payment it reverses: applied when the payment arrives
create table billing_pending_reversals (
  provider           text not null,
  reference          text not null,
  reason             text not null,
  provider_event_id  text not null,
  created_at         timestamptz not null default now(),
  primary key (provider, reference, provider_event_id)
);
