-- The admin team: who may sign in to the admin besides ADMIN_EMAILS, and with which role.
-- Owners named in ADMIN_EMAILS are kept here too (source 'env') so that they have an id and a last
-- sign-in; the configuration, not this table, makes them owners.

create table team_members (
  id               text primary key,
  email            text not null unique check (email = lower(email)),
  role             text not null check (role in ('owner', 'admin', 'finance', 'support', 'viewer')),
  source           text not null check (source in ('env', 'invite', 'sso')),
  invited_by       text,
  created_at       timestamptz not null generated always as (partnerd_id_time(id)) stored,
  last_sign_in_at  timestamptz
);

create index sessions_admin_email on sessions (admin_email) where kind = 'admin' and revoked_at is null;
