-- Payouts, clawbacks (negative lines netted in a partner's next payout) and the commission -> payout link.

create table payouts (
  id                 text primary key,
  partner_id         text not null references partners (id),
  currency           text not null,
  amount             bigint not null check (amount > 0),          -- net, minor units: commissions minus clawbacks
  commissions_amount bigint not null check (commissions_amount > 0),
  clawbacks_amount   bigint not null default 0 check (clawbacks_amount >= 0),
  commission_count   integer not null check (commission_count > 0),
  clawback_count     integer not null default 0,
  status             text not null default 'pending' check (status in ('pending', 'paid', 'failed')),
  provider           text not null,                               -- 'manual', later 'stripe'
  provider_reference text,                                        -- e.g. the transfer id at the provider
  created_by         text not null,                               -- who ran the payout run: 'job:payout', 'key:…', 'admin:…'
  settled_by         text,                                        -- who marked it paid or failed
  paid_at            timestamptz,
  failed_at          timestamptz,
  failure_reason     text,
  failed_lines       jsonb,                                       -- the lines it held when it failed (they were released)
  created_at         timestamptz not null default now(),
  check (amount = commissions_amount - clawbacks_amount)
);
create index payouts_partner on payouts (partner_id, id desc);
create index payouts_status on payouts (status, id desc);

alter table commissions add constraint commissions_payout_id_fkey foreign key (payout_id) references payouts (id);
create index commissions_payout on commissions (payout_id) where payout_id is not null;

-- A paid commission that was reversed: the partner owes its amount back. Open clawbacks are
-- subtracted from the partner's next payout in the same currency.
create table clawbacks (
  commission_id  text primary key references commissions (id),
  partner_id     text not null references partners (id),
  currency       text not null,
  amount         bigint not null check (amount > 0),          -- minor units owed back (shown as a negative line)
  reason         text not null,
  status         text not null default 'open' check (status in ('open', 'applied', 'cancelled')),
  payout_id      text references payouts (id),                -- the payout it was netted in
  applied_at     timestamptz,
  created_at     timestamptz not null default now(),
  check ((status = 'applied') = (payout_id is not null))
);
create index clawbacks_open on clawbacks (partner_id, currency) where status = 'open';
create index clawbacks_payout on clawbacks (payout_id) where payout_id is not null;

-- Minor units as a decimal string in major units: (1250, 2) -> '12.50', (1250, 0) -> '1250',
-- (1250, 3) -> '1.250'. Exact: numeric, never floating point.
create function partnerd_format_minor(amount bigint, exponent integer) returns text
  language sql immutable strict parallel safe
  as $$ select round(amount::numeric / (10::numeric ^ exponent), exponent)::text $$;
