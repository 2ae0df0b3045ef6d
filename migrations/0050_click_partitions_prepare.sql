-- Clicks partitioned by month, step 1 of 2 (step 2 is 0051). Existing installs are migrated in place
-- without holding a lock that stops the redirect for longer than a moment:
--
--   0050 (this file): a CHECK constraint `id < B`, NOT VALID: added without reading a row, so its
--        brief lock is gone when this transaction commits. B is the first click id of the month
--        after next (UTC): every click the redirect writes until then obeys it. On an empty table
--        (a new install) B is the start of the month two years ago, so tests and imports of recent
--        history land in monthly partitions.
--   0051: VALIDATE the constraint (reads the table under a lock that lets clicks be written), then,
--        in one short step, renames the table to clicks_legacy, creates the partitioned `clicks`
--        and attaches the old table as its partition for ids below B (no second scan: the validated
--        constraint proves the bound), and creates the monthly partitions from B on.
--
-- Partitions are keyed by the click's id: ids are time-sortable (src/lib/ids.ts), so a month is an
-- id range, and the primary key (id) stays a valid unique key of the partitioned table (a key must
-- contain the partition key, and created_at, generated from the id, cannot be one).

-- The first id of a kind minted at `at` (the inverse of partnerd_id_time; src/lib/ids.ts idFloor).
create function partnerd_id_floor(prefix text, at timestamptz) returns text
  language sql immutable strict parallel safe as $$
    select prefix || '_' || string_agg(substr('0123456789abcdefghjkmnpqrstvwxyz',
        ((floor(extract(epoch from at) * 1000)::bigint >> (45 - 5 * i)) & 31)::int + 1, 1), '' order by i) || '0000000000000000'
    from generate_series(0, 9) as i
  $$;

-- Where step 2 puts the old table's upper bound.
create table click_partitioning (legacy_bound text not null);

do $$
declare
  bound text;
begin
  if exists (select 1 from clicks) then
    bound := partnerd_id_floor('clk', date_trunc('month', now() at time zone 'UTC') at time zone 'UTC' + interval '2 months');
  else
    bound := partnerd_id_floor('clk', date_trunc('month', now() at time zone 'UTC') at time zone 'UTC' - interval '24 months');
  end if;
  insert into click_partitioning (legacy_bound) values (bound);
  execute format('alter table clicks add constraint clicks_legacy_bound check (id < %L) not valid', bound);
end $$;
