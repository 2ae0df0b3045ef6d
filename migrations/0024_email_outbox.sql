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

-- One row per email to send (to_address '@admins': one email to each ADMIN_EMAILS address, written
-- by the worker as one row per address when it is sent; the original becomes `fanned_out`), written in the transaction that caused it. A worker claims due rows
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
  status           text not null default 'pending' check (status in ('pending', 'sent', 'failed', 'skipped', 'fanned_out')),
  attempts         integer not null default 0,
  next_attempt_at  timestamptz not null default now(),
  lease_until      timestamptz,
  last_error       text,
  created_at       timestamptz not null default now(),
  sent_at          timestamptz
);
create index email_outbox_due on email_outbox (next_attempt_at) where status = 'pending';
create index email_outbox_recent on email_outbox (id desc);

-- Partner emails about commissions, written beside the webhook envelopes that announce them: one
-- trigger sees every envelope, those of enqueueEvent and those the approval job writes in bulk.
create function partnerd_emails_from_envelopes() returns trigger language plpgsql as $$
begin
  insert into email_outbox (id, template, to_address, data, partner_id)
  select 'eml_' || substr(n.id, 5),
    case n.type when 'commission.accrued' then 'commission_accrued' else 'commission_approved' end,
    p.email, n.data || jsonb_build_object('partnerName', p.name), p.id
  from new_envelopes n
  join partners p on p.id = n.data ->> 'partnerId'
  where n.type in ('commission.accrued', 'commission.approved')
    and coalesce((p.notifications ->> case n.type when 'commission.accrued' then 'commissionAccrued' else 'commissionApproved' end)::boolean, true);
  if found then
    perform pg_notify('partnerd_emails', '');
  end if;
  return null;
end $$;
create trigger webhook_events_emails after insert on webhook_events
  referencing new table as new_envelopes for each statement execute function partnerd_emails_from_envelopes();

-- "Payout sent": a payout that becomes paid (by hand or by the payout provider).
create function partnerd_emails_from_payouts() returns trigger language plpgsql as $$
begin
  insert into email_outbox (id, template, to_address, data, partner_id)
  select 'eml_' || substr(n.id, 5), 'payout_sent', p.email, jsonb_build_object('partnerName', p.name, 'payoutId', n.id), p.id
  from new_payouts n
  join old_payouts o on o.id = n.id
  join partners p on p.id = n.partner_id
  where n.status = 'paid' and o.status <> 'paid'
    and coalesce((p.notifications ->> 'payoutSent')::boolean, true)
  on conflict (id) do nothing;
  if found then
    perform pg_notify('partnerd_emails', '');
  end if;
  return null;
end $$;
create trigger payouts_emails after update on payouts
  referencing old table as old_payouts new table as new_payouts for each statement execute function partnerd_emails_from_payouts();

-- "Webhook endpoint failing": the admins hear once per failing streak, when an endpoint's last five
-- completed deliveries failed. The streak is named by the endpoint's last success (dedupe_key).
create index webhook_deliveries_endpoint_succeeded on webhook_deliveries (endpoint_id, completed_at desc) where status = 'succeeded';
create index webhook_deliveries_endpoint_failed on webhook_deliveries (endpoint_id, completed_at desc) where status = 'failed';

create function partnerd_emails_from_deliveries() returns trigger language plpgsql as $$
begin
  if not exists (select 1 from new_deliveries where status = 'failed') then
    return null;
  end if;
  insert into email_outbox (id, template, to_address, data, dedupe_key)
  select 'eml_' || substr(f.last_id, 5), 'webhook_failing', '@admins',
    jsonb_build_object('endpointId', e.id, 'url', e.url, 'failures', f.n, 'lastError', f.error, 'lastStatus', f.response_status),
    'webhook_failing:' || e.id || ':' || coalesce(s.id, 'none')
  from (select distinct endpoint_id from new_deliveries where status = 'failed') x
  join webhook_endpoints e on e.id = x.endpoint_id
  left join lateral (
    select d.id, d.completed_at from webhook_deliveries d
    where d.endpoint_id = e.id and d.status = 'succeeded'
    order by d.completed_at desc limit 1
  ) s on true
  cross join lateral (
    select count(*)::int as n, (array_agg(r.id order by r.completed_at desc))[1] as last_id,
      (array_agg(r.error order by r.completed_at desc))[1] as error,
      (array_agg(r.response_status order by r.completed_at desc))[1] as response_status
    from (
      select d.id, d.completed_at, d.error, d.response_status from webhook_deliveries d
      where d.endpoint_id = e.id and d.status = 'failed' and d.completed_at > coalesce(s.completed_at, '-infinity')
      order by d.completed_at desc limit 5
    ) r
  ) f
  where f.n >= 5
  on conflict do nothing;
  if found then
    perform pg_notify('partnerd_emails', '');
  end if;
  return null;
end $$;
create trigger webhook_deliveries_emails after update on webhook_deliveries
  referencing new table as new_deliveries for each statement execute function partnerd_emails_from_deliveries();
