-- Partner communications (DESIGN.md "Partner communications"): program branding, the partners'
-- notification choices and the email outbox.

-- Branding used by every email and page. brand_color null: the built-in accent.
alter table settings
  add column program_name  text not null default 'Partner program',
  add column logo_url      text,
  add column brand_color   text check (brand_color ~ '^#[0-9a-f]{6}$'),
  add column support_email text,
  -- HMAC key of the unsubscribe links (random per installation, shared by every replica)
  add column mail_secret   text not null default replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', '');

-- Which emails a partner receives; a missing key means the default (true).
alter table partners add column notifications jsonb not null default '{}';

-- One row per email to send, written in the transaction that caused it. A worker claims due rows
-- with FOR UPDATE SKIP LOCKED and a lease; `id` is the stable Message-ID of the email.
create table email_outbox (
  id               text primary key,
  template         text not null,
  to_address       text not null,
  data             jsonb not null,
  partner_id       text references partners (id) on delete cascade,
  -- at most one email per key (the monthly statement of a month, one failing streak of an endpoint)
  dedupe_key       text unique,
  -- skipped: the partner turned this kind off after it was written
  status           text not null default 'pending' check (status in ('pending', 'sent', 'failed', 'skipped')),
  attempts         integer not null default 0,
  next_attempt_at  timestamptz not null default now(),
  lease_until      timestamptz,
  last_error       text,
  created_at       timestamptz not null default now(),
  sent_at          timestamptz
);
create index email_outbox_due on email_outbox (next_attempt_at) where status = 'pending';
create index email_outbox_recent on email_outbox (id desc);
