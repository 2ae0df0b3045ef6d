-- Programs moved in from another platform (DESIGN.md "Moving in from another platform"): what each
-- imported object was called there, so running the same import again changes nothing and a later
-- export adds only what is new.

create table import_refs (
  source      text not null check (source in ('rewardful', 'firstpromoter', 'tolt', 'partnerstack')),
  kind        text not null check (kind in ('partner', 'link', 'customer', 'commission')),
  source_id   text not null,              -- the old platform's id (a commission's, a referral's, ...)
  target_id   text not null,              -- ours: ptn_…, lnk_…, the customer's user id, com_…
  created_at  timestamptz not null default now(),
  primary key (source, kind, source_id)
);
