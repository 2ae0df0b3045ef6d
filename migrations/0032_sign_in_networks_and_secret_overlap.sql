-- Sign-in mails asked for, per network (an IPv4 address, an IPv6 /64), beside the per-email count
-- of sign_in_requests: one address cannot ask for links to many emails. Only a SHA-256 of the
-- network is kept, and rows older than the window are deleted as new ones are written
-- (src/modules/auth/limit.ts).
create table sign_in_networks (
  id          bigint generated always as identity primary key,
  network_hash text not null,
  created_at  timestamptz not null default now()
);
create index sign_in_networks_network on sign_in_networks (network_hash, created_at);
create index sign_in_networks_age on sign_in_networks (created_at);

-- A rotated webhook secret keeps verifying for 24 hours: deliveries in that window carry a
-- signature with each secret (webhook-signature lists both), so receivers can switch without a gap.
alter table webhook_endpoints
  add column previous_secret text,
  add column previous_secret_expires_at timestamptz;
