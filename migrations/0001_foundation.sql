-- Partners, campaigns, keys, sessions, magic links and the webhook outbox.

create table partners (
  id                          text primary key,
  email                       text not null unique check (email = lower(email)),
  name                        text not null,
  metadata                    jsonb not null default '{}'::jsonb,
  billing_connect_account_id  text,
  activated_at                timestamptz,
  revoked_at                  timestamptz,
  revoke_reason               text,
  created_at                  timestamptz not null default now(),
  updated_at                  timestamptz not null default now()
);

create table campaigns (
  id               text primary key,
  name             text not null,
  destination_url  text not null,
  currency         text not null,
  holdback_days    integer check (holdback_days >= 0),
  rules            jsonb not null default '[]'::jsonb,
  created_at       timestamptz not null default now(),
  updated_at       timestamptz not null default now(),
  archived_at      timestamptz
);

-- Which campaigns a partner may create share links for.
create table partner_campaigns (
  partner_id   text not null references partners (id) on delete cascade,
  campaign_id  text not null references campaigns (id),
  source       text not null default 'admin' check (source in ('admin', 'offering', 'signup')),
  created_at   timestamptz not null default now(),
  primary key (partner_id, campaign_id)
);
create index partner_campaigns_campaign on partner_campaigns (campaign_id);

-- The commission terms a partner was approved under (network federation).
create table partner_commission_snapshots (
  partner_id  text primary key references partners (id) on delete cascade,
  snapshot    jsonb not null,
  created_at  timestamptz not null default now()
);

create table api_keys (
  id            text primary key,
  name          text not null,
  kind          text not null check (kind in ('admin', 'scoped', 'publishable', 'partner')),
  scopes        text[] not null default '{}',
  partner_id    text references partners (id) on delete cascade,
  key_hash      text not null unique,
  key_hint      text not null,
  source        text not null default 'api' check (source in ('api', 'env', 'bootstrap')),
  created_at    timestamptz not null default now(),
  last_used_at  timestamptz,
  revoked_at    timestamptz,
  check ((kind = 'partner') = (partner_id is not null))
);
create index api_keys_partner on api_keys (partner_id) where partner_id is not null;

create table sessions (
  id_hash      text primary key,
  kind         text not null check (kind in ('partner', 'admin')),
  partner_id   text references partners (id) on delete cascade,
  admin_email  text,
  created_at   timestamptz not null default now(),
  expires_at   timestamptz not null,
  revoked_at   timestamptz,
  check ((kind = 'partner') = (partner_id is not null)),
  check ((kind = 'admin') = (admin_email is not null))
);
create index sessions_partner on sessions (partner_id) where revoked_at is null;

create table magic_links (
  id           text primary key,
  token_hash   text not null unique,
  purpose      text not null check (purpose in ('invite', 'signin', 'admin')),
  partner_id   text references partners (id) on delete cascade,
  email        text not null,
  created_at   timestamptz not null default now(),
  expires_at   timestamptz not null,
  used_at      timestamptz
);

create table webhook_endpoints (
  id          text primary key,
  url         text not null,
  events      text[] not null,
  label       text,
  active      boolean not null default true,
  secret      text not null,
  created_at  timestamptz not null default now(),
  updated_at  timestamptz not null default now()
);

-- The outbox: one envelope per emitted event, written in the transaction that caused it.
create table webhook_events (
  id          text primary key,
  type        text not null,
  data        jsonb not null,
  created_at  timestamptz not null default now()
);

-- One row per delivery attempt of an envelope to an endpoint.
create table webhook_deliveries (
  id               text primary key,
  endpoint_id      text not null references webhook_endpoints (id) on delete cascade,
  event_id         text not null references webhook_events (id) on delete cascade,
  event            text not null,
  status           text not null default 'pending' check (status in ('pending', 'succeeded', 'failed')),
  attempt          integer not null default 1,
  retry_of         text references webhook_deliveries (id) on delete set null,
  response_status  integer,
  response_body    text,
  error            text check (error in ('timeout', 'network', 'http_status', 'blocked')),
  duration_ms      integer,
  next_attempt_at  timestamptz not null default now(),
  lease_until      timestamptz,
  created_at       timestamptz not null default now(),
  completed_at     timestamptz
);
create index webhook_deliveries_due on webhook_deliveries (next_attempt_at) where status = 'pending';
create index webhook_deliveries_endpoint on webhook_deliveries (endpoint_id, id desc);

-- Program-wide settings: one row.
create table settings (
  id                       boolean primary key default true check (id),
  attribution_model        text not null default 'last_click' check (attribution_model in ('last_click', 'linear', 'position')),
  attribution_window_days  integer not null default 30 check (attribution_window_days between 1 and 3650),
  partner_signup           text check (partner_signup in ('open', 'closed')),
  updated_at               timestamptz not null default now()
);
insert into settings (id) values (true);
