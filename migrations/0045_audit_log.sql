-- The audit log (DESIGN.md "Team, roles, single sign-on, audit log"): one row per change made by a
-- person, a key, a job or a provider, written in the same transaction as the change
-- (src/modules/audit/). Append-only, and PostgreSQL itself holds that: the triggers below refuse
-- every UPDATE, DELETE and TRUNCATE, whoever asks. No foreign keys: an entry outlives its object (a
-- deleted webhook endpoint or resource keeps its history).

create table audit_log (
  id           text primary key,
  at           timestamptz not null generated always as (partnerd_id_time(id)) stored,
  actor_type   text not null check (actor_type in ('admin', 'key', 'partner', 'job', 'provider')),
  actor_id     text not null check (char_length(actor_id) between 1 and 320),
  actor_email  text check (char_length(actor_email) <= 320),
  -- "<noun>.<verb>": partner.revoked, payout.run, settings.updated
  action       text not null check (action ~ '^[a-z_]+\.[a-z_]+$' and char_length(action) <= 64),
  target_type  text not null check (target_type ~ '^[a-z_]+$'),
  target_id    text not null check (char_length(target_id) between 1 and 200),
  -- {field: [before, after]} for the fields that changed, secrets redacted
  changes      jsonb check (changes is null or jsonb_typeof(changes) = 'object'),
  ip           text,
  user_agent   text check (char_length(user_agent) <= 512),
  request_id   text check (char_length(request_id) <= 64)
);
create index audit_log_target on audit_log (target_id, id desc);
create index audit_log_action on audit_log (action, id desc);
create index audit_log_actor on audit_log (actor_id, id desc);

create function audit_log_refuse_change() returns trigger language plpgsql as $$
begin
  raise exception 'audit_log is append-only: % refused', tg_op using errcode = 'insufficient_privilege';
end
$$;

create trigger audit_log_no_update_or_delete before update or delete on audit_log
  for each row execute function audit_log_refuse_change();
create trigger audit_log_no_truncate before truncate on audit_log
  for each statement execute function audit_log_refuse_change();
