-- Payout rails: a payout is handed to the rail its partner chose (Stripe Connect, PayPal Payouts, a
-- Wise or PayPal upload file, or by hand) and settled by the rail's answer.
-- pending (created) -> processing (handed to a rail, waiting for its answer) -> paid | failed.
alter table payouts drop constraint payouts_status_check;
alter table payouts add constraint payouts_status_check check (status in ('pending', 'processing', 'paid', 'failed'));
alter table payouts
  add column destination     text,         -- where the rail sends it, fixed when the payout is made: an email or a Stripe account
  add column rail_batch      text,         -- PayPal: the sender_batch_id it goes out in, written before the call
  add column provider_answer text,         -- the rail's last word on it, as the rail said it (an error, an item status)
  add column processing_at   timestamptz;  -- when the rail took it
-- the payouts a rail still owes an answer on (hand-over at start, the reconciliation job, upload files)
create index payouts_open_by_rail on payouts (provider, status, id) where status in ('pending', 'processing');

-- How a partner is paid. No row: by hand (manual).
create table payout_methods (
  partner_id        text primary key references partners (id),
  type              text not null check (type in ('stripe', 'paypal', 'wise', 'manual')),
  email             text,                 -- paypal, wise: the receiver
  stripe_account_id text,                 -- stripe: the Express account
  ready             boolean not null,     -- stripe: the account reports payouts_enabled; others: true
  changed_at        timestamptz not null default now(),
  held_until        timestamptz,          -- payouts wait until then after a change
  changed_by        text not null,
  check ((type in ('paypal', 'wise')) = (email is not null))
);
create unique index payout_methods_stripe_account on payout_methods (stripe_account_id) where stripe_account_id is not null;
