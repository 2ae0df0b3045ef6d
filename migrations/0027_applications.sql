-- Reviewed applications (DESIGN.md "Partner communications", Applications): under
-- partnerSignup = 'review' a self-signup waits as `applied` until an admin approves it (the invite
-- goes out, the partner is `pending`) or declines it with a reason (`declined`).

alter table settings drop constraint if exists settings_partner_signup_check;
alter table settings add constraint settings_partner_signup_check check (partner_signup in ('open', 'closed', 'review'));

-- applied_at: when the application was stored (kept after the decision, for the partner page);
-- approved_at / declined_at: the decision, at most one. application_answers: the signup questions'
-- answers, stored for every self-signup that gave any.
alter table partners
  add column applied_at timestamptz,
  add column approved_at timestamptz,
  add column declined_at timestamptz,
  add column decline_reason text,
  add column application_answers jsonb,
  add constraint partners_one_decision check (approved_at is null or declined_at is null),
  add constraint partners_decision_needs_application check ((approved_at is null and declined_at is null) or applied_at is not null);

-- the applications queue: applications still waiting, oldest first
create index partners_applied on partners (id) where applied_at is not null and approved_at is null and declined_at is null;
