-- Sign-in mails asked for, per email: the per-email limit is counted here so that it holds across
-- replicas and restarts. Only a SHA-256 of the normalised email is kept, never the address, and rows
-- older than the limit's window are deleted as new ones are written (src/modules/auth/limit.ts).

create table sign_in_requests (
  id          bigint generated always as identity primary key,
  email_hash  text not null,
  created_at  timestamptz not null default now()
);
create index sign_in_requests_email on sign_in_requests (email_hash, created_at);
create index sign_in_requests_age on sign_in_requests (created_at);
