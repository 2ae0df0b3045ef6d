-- Clicks partitioned by month, step 2 of 2 (0050 explains the approach).
--
-- 1. VALIDATE reads the whole table under SHARE UPDATE EXCLUSIVE: the redirect's inserts go on.
-- 2. From the rename on, this transaction holds ACCESS EXCLUSIVE on the clicks, but every step after
--    it only changes the catalog (the attach proves its bound from the validated constraint, the
--    parent's indexes adopt the old table's instead of building new ones): milliseconds, whatever
--    the table's size. The click buffer keeps clicks in memory meanwhile and writes them after.
alter table clicks validate constraint clicks_legacy_bound;

alter table clicks rename to clicks_legacy;
alter index clicks_pkey rename to clicks_legacy_pkey;
alter index clicks_link rename to clicks_legacy_link;
alter index clicks_partner rename to clicks_legacy_partner;
alter index clicks_filtered rename to clicks_legacy_filtered;
-- the rollup triggers move to the parent (a statement's rows are counted once, there)
drop trigger clicks_rollup on clicks_legacy;
drop trigger clicks_rollup_update on clicks_legacy;

-- the same columns in the same order (an insert without a column list still lines up)
create table clicks (
  id                 text not null,
  link_id            text not null,
  partner_id         text not null,
  campaign_id        text not null,
  ip_hash            text,
  user_agent         text,
  referrer           text,
  created_at         timestamptz not null generated always as (partnerd_id_time(id)) stored,
  uncredited_reason  text constraint clicks_uncredited_reason_check check (uncredited_reason in ('bot_click', 'click_flood')),
  primary key (id)
) partition by range (id);
create index clicks_link on clicks (link_id, created_at);
create index clicks_partner on clicks (partner_id, created_at);
create index clicks_filtered on clicks (created_at) include (partner_id, link_id) where uncredited_reason is not null;

do $$
begin
  execute format('alter table clicks attach partition clicks_legacy for values from (minvalue) to (%L)', (select legacy_bound from click_partitioning));
end $$;

-- The monthly partitions: clicks_yYYYYmMM holds the ids minted in that UTC month. Creates those of
-- the months in [from, to) not there yet (above the old table's bound); answers how many it made.
create function partnerd_click_partitions_ahead(from_at timestamptz, to_at timestamptz) returns int language plpgsql as $$
declare
  m timestamp;
  made int := 0;
  name text;
  low text := (select legacy_bound from click_partitioning);
begin
  m := date_trunc('month', from_at at time zone 'UTC');
  while m < to_at at time zone 'UTC' loop
    name := 'clicks_y' || to_char(m, 'YYYY') || 'm' || to_char(m, 'MM');
    if partnerd_id_floor('clk', m at time zone 'UTC') >= low and to_regclass(name) is null then
      execute format('create table %I partition of clicks for values from (%L) to (%L)', name,
        partnerd_id_floor('clk', m at time zone 'UTC'), partnerd_id_floor('clk', (m + interval '1 month') at time zone 'UTC'));
      made := made + 1;
    end if;
    m := m + interval '1 month';
  end loop;
  return made;
end $$;

-- Every partition of clicks with the moment its last possible click was minted before (its upper bound).
create view click_partitions as
  select c.relname::text as name,
    partnerd_id_time(substring(pg_get_expr(c.relpartbound, c.oid) from 'TO \(''([^'']+)''\)')) as ends_at
  from pg_inherits i join pg_class c on c.oid = i.inhrelid
  where i.inhparent = 'clicks'::regclass;

select partnerd_click_partitions_ahead(
  partnerd_id_time((select legacy_bound from click_partitioning)),
  date_trunc('month', now() at time zone 'UTC') at time zone 'UTC' + interval '4 months');

create trigger clicks_rollup after insert on clicks referencing new table as new_clicks
  for each statement execute function partnerd_rollup_clicks();
create trigger clicks_rollup_update after update on clicks referencing old table as old_clicks new table as new_clicks
  for each statement execute function partnerd_rollup_clicks_changed();
