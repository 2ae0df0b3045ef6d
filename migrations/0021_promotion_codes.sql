-- Promotion codes (DESIGN.md "Promotion codes (coupon attribution)"): a code a customer types at
-- checkout credits its partner with no click at all.

create table promotion_codes (
  id                         text primary key,
  code                       text not null,          -- as typed; unique ignoring case (index below)
  partner_id                 text not null references partners (id),
  campaign_id                text not null references campaigns (id),
  -- the matching Stripe promotion code (promo_…), when the code was synced to Stripe
  stripe_promotion_code_id   text unique,
  created_at                 timestamptz not null generated always as (partnerd_id_time(id)) stored,
  archived_at                timestamptz
);
-- the race-safe duplicate check: two codes differing only in case cannot both be inserted
create unique index promotion_codes_code on promotion_codes (lower(code));
create index promotion_codes_partner on promotion_codes (partner_id, id desc);
create index promotion_codes_campaign on promotion_codes (campaign_id, id desc);

-- The Stripe coupon a campaign's codes are created on when they are synced to Stripe.
alter table campaigns add column stripe_coupon_id text;

-- A code touch has no click: click_id is null and code_id names the code (one or the other).
alter table referral_touches alter column click_id drop not null,
  add column code_id text references promotion_codes (id),
  add constraint referral_touches_click_or_code check ((click_id is null) <> (code_id is null));
alter table attributions alter column click_id drop not null,
  add column code_id text references promotion_codes (id),
  add constraint attributions_click_or_code check ((click_id is null) <> (code_id is null));
create index attributions_code on attributions (code_id) where code_id is not null;
create index referral_touches_code on referral_touches (code_id) where code_id is not null;

-- The code an event carried (whether or not it credited anyone), as sent.
alter table events add column coupon_code text;
