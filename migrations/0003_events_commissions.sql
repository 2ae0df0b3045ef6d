-- Conversion events, referrals (sticky attribution), attributions and commissions.

create table events (
  id                  text primary key,
  user_id             text not null,
  type                text not null,
  amount              bigint,               -- minor units of `currency`; null for events without revenue
  currency            text,
  occurred_at         timestamptz not null,
  metadata            jsonb not null default '{}'::jsonb,
  idempotency_key     text unique,
  request_hash        text,                 -- digest of the request, so a reused key with another body is a 409
  source              text not null default 'api',
  attribution_status  text not null check (attribution_status in ('attributed', 'no_identity', 'no_click', 'outside_window')),
  attribution_model   text,
  created_at          timestamptz not null default now(),
  check ((amount is null) = (currency is null))
);
create index events_user on events (user_id, occurred_at);

-- A referred user: the touches of their first attributed event, reused for every later event so
-- recurring revenue keeps flowing to the partners who brought the customer.
create table referrals (
  user_id     text primary key,
  model       text not null,
  started_at  timestamptz not null,         -- occurredAt of the first attributed event
  created_at  timestamptz not null default now()
);

create table referral_touches (
  user_id      text not null references referrals (user_id) on delete cascade,
  position     integer not null,            -- 0 = oldest click
  click_id     text not null,
  partner_id   text not null references partners (id),
  campaign_id  text not null references campaigns (id),
  weight_num   integer not null,            -- exact weight = weight_num / weight_den
  weight_den   integer not null check (weight_den > 0),
  primary key (user_id, position)
);

create table attributions (
  id           text primary key,
  event_id     text not null references events (id),
  user_id      text not null,
  click_id     text not null,
  partner_id   text not null references partners (id),
  campaign_id  text not null references campaigns (id),
  model        text not null,
  weight       double precision not null,   -- for reporting; money uses the exact fraction
  created_at   timestamptz not null default now()
);
create index attributions_event on attributions (event_id);
create index attributions_partner on attributions (partner_id, id desc);

create table commissions (
  id               text primary key,
  attribution_id   text not null unique references attributions (id),
  event_id         text not null references events (id),
  partner_id       text not null references partners (id),
  campaign_id      text not null references campaigns (id),
  user_id          text not null,
  amount           bigint not null check (amount >= 0),  -- minor units of `currency`
  currency         text not null,
  event_type       text not null,
  event_value      bigint,                -- the event's amount, minor units of `currency`
  status           text not null default 'accrued' check (status in ('accrued', 'approved', 'paid', 'reversed')),
  holdback_days    integer not null,
  approved_at      timestamptz,
  paid_at          timestamptz,
  reversed_at      timestamptz,
  reversal_reason  text,
  payout_id        text,
  created_at       timestamptz not null default now()
);
create index commissions_partner on commissions (partner_id, id desc);
create index commissions_status on commissions (status, partner_id, currency);
create index commissions_user on commissions (user_id, partner_id, event_type);
create index commissions_event on commissions (event_id);

-- Every state change of a commission: who or what did it, when, and why.
create table commission_transitions (
  id             bigserial primary key,
  commission_id  text not null references commissions (id),
  from_status    text,
  to_status      text not null,
  actor          text not null,             -- e.g. 'pipeline', 'key:key_…', 'admin:a@b.c', 'job:approval', 'stripe'
  reason         text,
  created_at     timestamptz not null default now()
);
create index commission_transitions_commission on commission_transitions (commission_id, id);
