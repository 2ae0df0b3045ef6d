-- A partner's status, derived in ONE place: every query that shows, filters or sorts by it reads
-- partner_status(p) (the TypeScript type is PartnerStatus in src/modules/partners/model.ts).
--   revoked   revoked_at set (suspended; wins over everything else)
--   declined  an application an admin turned down
--   applied   an application waiting for review (partnerSignup = review)
--   active    signed in once (the invite or a sign-in link was used)
--   pending   invited, not signed in yet (an approved application is one too)
-- A plain SQL function over the row, IMMUTABLE: PostgreSQL inlines it into the query, so a filter on
-- it is the same CASE as written by hand, and an index predicate on it is matched by such a filter.
create function partner_status(p partners) returns text
language sql immutable parallel safe
as $$
  select case
    when p.revoked_at is not null then 'revoked'
    when p.declined_at is not null then 'declined'
    when p.applied_at is not null and p.approved_at is null then 'applied'
    when p.activated_at is not null then 'active'
    else 'pending'
  end
$$;

-- the applications queue (0027), now stated as the status the list filters on
drop index partners_applied;
create index partners_applied on partners (id) where partner_status(partners) = 'applied';
