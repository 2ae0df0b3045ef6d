-- Fraud signals (DESIGN.md "Fraud and review"): flags on commissions and what they are computed
-- from: the customer's email and billing customer on events, the IP hashes of partners' sign-ins
-- and of identify calls, and clicks kept but not creditable.

-- self_referral, click_flood, bot_click, duplicate_customer, review_amount; empty when clean.
-- `flag_evidence` holds what each flag was raised on, as of accrual (the review queue shows it).
alter table commissions
  add column flags text[] not null default '{}',
  add column flag_evidence jsonb not null default '{}';
-- the review queue and the holdback job's skip: flagged commissions still waiting for a person
create index commissions_flagged on commissions (id desc) where flags <> '{}' and status = 'accrued';
create index commissions_flagged_partner on commissions (partner_id, created_at) where flags <> '{}';

-- What the customer's provider (or the operator) reported: the email as sent and in the form
-- compared (lower case, no +tag), and the billing customer (events.source names the provider).
alter table events
  add column customer_email text,
  add column customer_email_normalized text,
  add column customer_id text;
create index events_billing_customer on events (source, customer_id) where customer_id is not null;

-- bot_click or click_flood: the click is kept (the evidence) but attribution never credits it.
alter table clicks add column uncredited_reason text check (uncredited_reason in ('bot_click', 'click_flood'));

-- Hashed network (IPv4 address, IPv6 /64, salted as click IPs are) of each partner sign-in.
create table partner_sign_in_ips (
  partner_id  text not null references partners (id),
  ip_hash     text not null,
  first_at    timestamptz not null default now(),
  last_at     timestamptz not null default now(),
  sign_ins    integer not null default 1,
  primary key (partner_id, ip_hash)
);

-- Hashed network of each identify call for a user (same hashing): compared with the above.
create table identity_ips (
  user_id     text not null references identities (user_id) on delete cascade,
  ip_hash     text not null,
  created_at  timestamptz not null default now(),
  primary key (user_id, ip_hash)
);
