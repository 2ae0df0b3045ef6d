-- created_at is the time inside the row's id. Lists are ordered by id (newest first, the id is the
-- cursor), and created_at used to be a second clock read (the database's now(), taken when the
-- transaction began): two partners created at once could be listed in one order with createdAt
-- saying the other, and replicas with skewed clocks made it worse. Now each table keyed by a
-- time-sortable id (src/lib/ids.ts) derives created_at from it, so `order by id desc` is
-- `order by created_at desc` by construction. The column cannot be written: a row meant to date
-- from another moment gets an id minted for that moment (newId(kind, at)).

-- The millisecond time of an id `<3-letter prefix>_<10 time chars><16 random chars>` (Crockford
-- base32, lower case). Exact up to the year 2255. Only immutable operations (timestamp without
-- time zone, then UTC), so the planner inlines it into the generated columns.
create function partnerd_id_time(id text) returns timestamptz
  language sql immutable strict parallel safe
  as $$
    select (timestamp 'epoch' + interval '1 millisecond' * (
      ((strpos('0123456789abcdefghjkmnpqrstvwxyz', substr(id, 5, 1)) - 1)::bigint << 45)
    + ((strpos('0123456789abcdefghjkmnpqrstvwxyz', substr(id, 6, 1)) - 1)::bigint << 40)
    + ((strpos('0123456789abcdefghjkmnpqrstvwxyz', substr(id, 7, 1)) - 1)::bigint << 35)
    + ((strpos('0123456789abcdefghjkmnpqrstvwxyz', substr(id, 8, 1)) - 1)::bigint << 30)
    + ((strpos('0123456789abcdefghjkmnpqrstvwxyz', substr(id, 9, 1)) - 1)::bigint << 25)
    + ((strpos('0123456789abcdefghjkmnpqrstvwxyz', substr(id, 10, 1)) - 1)::bigint << 20)
    + ((strpos('0123456789abcdefghjkmnpqrstvwxyz', substr(id, 11, 1)) - 1)::bigint << 15)
    + ((strpos('0123456789abcdefghjkmnpqrstvwxyz', substr(id, 12, 1)) - 1)::bigint << 10)
    + ((strpos('0123456789abcdefghjkmnpqrstvwxyz', substr(id, 13, 1)) - 1)::bigint << 5)
    + (strpos('0123456789abcdefghjkmnpqrstvwxyz', substr(id, 14, 1)) - 1)::bigint)) at time zone 'UTC'
  $$;

-- Existing rows move to their id's time (the same moment as before, give or take a few ms).
alter table partners drop column created_at, add column created_at timestamptz not null generated always as (partnerd_id_time(id)) stored;
alter table campaigns drop column created_at, add column created_at timestamptz not null generated always as (partnerd_id_time(id)) stored;
alter table api_keys drop column created_at, add column created_at timestamptz not null generated always as (partnerd_id_time(id)) stored;
alter table magic_links drop column created_at, add column created_at timestamptz not null generated always as (partnerd_id_time(id)) stored;
alter table webhook_endpoints drop column created_at, add column created_at timestamptz not null generated always as (partnerd_id_time(id)) stored;
alter table webhook_events drop column created_at, add column created_at timestamptz not null generated always as (partnerd_id_time(id)) stored;
alter table webhook_deliveries drop column created_at, add column created_at timestamptz not null generated always as (partnerd_id_time(id)) stored;
alter table links drop column created_at, add column created_at timestamptz not null generated always as (partnerd_id_time(id)) stored;
alter table clicks drop column created_at, add column created_at timestamptz not null generated always as (partnerd_id_time(id)) stored;
alter table events drop column created_at, add column created_at timestamptz not null generated always as (partnerd_id_time(id)) stored;
alter table attributions drop column created_at, add column created_at timestamptz not null generated always as (partnerd_id_time(id)) stored;
alter table commissions drop column created_at, add column created_at timestamptz not null generated always as (partnerd_id_time(id)) stored;
alter table payouts drop column created_at, add column created_at timestamptz not null generated always as (partnerd_id_time(id)) stored;

-- clicks' indexes on created_at went with the old column
create index clicks_link on clicks (link_id, created_at);
create index clicks_partner on clicks (partner_id, created_at);
