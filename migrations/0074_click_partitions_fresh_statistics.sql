-- Statistics that know today's clicks (issue 31). The pages read today from the clicks themselves,
-- and the planner plans those reads from the month's partition's statistics. Autovacuum analyzes a
-- table once a tenth of it changed: for a month's partition, the last two or three days of clicks.
-- A busy day not in the statistics looked empty to the planner, which chose plans for no rows: a
-- campaign page took 1.4-1.6 s at the end of such a day, 0.23 s once the partition was analyzed
-- (bench/README.md). Each partition now asks autovacuum to analyze it once 1% of it plus 10,000
-- clicks are new: a few times a day at any size. ANALYZE reads a sample of 30,000 rows whatever the
-- size, and only the partition that changed, so it stays cheap. A partition without new clicks
-- (every past month) is not analyzed again.
--
-- Sets those options on every monthly partition without them; answers how many. The click-partitions
-- job calls it after creating months ahead (src/modules/links/partitions.ts). A moment's lock on each
-- partition changed, one that lets the redirect keep writing; no row is read.
create function partnerd_click_partitions_tune() returns int language plpgsql as $$
declare
  p record;
  n int := 0;
begin
  for p in
    select c.relname from click_partitions cp join pg_class c on c.oid = to_regclass(cp.name)
    where cp.name <> 'clicks_legacy'
      and not coalesce(c.reloptions @> array['autovacuum_analyze_scale_factor=0.01', 'autovacuum_analyze_threshold=10000'], false)
  loop
    execute format('alter table %I set (autovacuum_analyze_scale_factor = 0.01, autovacuum_analyze_threshold = 10000)', p.relname);
    n := n + 1;
  end loop;
  return n;
end $$;

select partnerd_click_partitions_tune();
