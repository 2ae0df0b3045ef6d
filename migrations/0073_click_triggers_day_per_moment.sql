-- The click triggers' cost per click (issue 31: the rollup upkeep's share of the redirect). Every
-- batch the click buffer writes runs two statement triggers, the rollups' (0049) and the traffic
-- breakdowns' (0061). Both took each click's UTC day from its id, partnerd_id_time: ten substr and
-- strpos calls, about 3 µs. The breakdowns' trigger did so after turning each click into its five
-- (dimension, value) rows, so five times a click. For a batch of 2,000 varied clicks the two
-- statements took about 55 ms, most of it in those calls. Now:
--
-- - the day is worked out once per distinct millisecond of the batch (the id's first 14 characters,
--   prefix and time), not once per click or per row: a batch the redirect writes spans 100 ms;
-- - the breakdowns group the batch's clicks by each dimension in one pass (GROUPING SETS), instead
--   of making five rows of each click and grouping those.
--
-- The same batch then costs about 9 ms (bench/README.md). The deltas written are the same rows as
-- before, so the rollups' recount tests hold unchanged. `offset 0` keeps each millisecond's day
-- computed in its own subquery; pulled up into the join, it would again be computed per row.

create or replace function partnerd_rollup_clicks() returns trigger language plpgsql set jit = off as $$
begin
  insert into rollup_deltas (day, partner_id, campaign_id, link_id, clicks, filtered)
  select k.day, g.partner_id, g.campaign_id, g.link_id, sum(k.n - k.f), sum(k.f)
  from (
    -- the day from the id: a partitioned table's transition rows may lack the generated created_at
    select t.day, n.partner_id, n.campaign_id, n.link_id,
      count(*) as n, count(*) filter (where n.uncredited_reason is not null) as f
    from new_clicks n
    join (
      select ms, (partnerd_id_time(ms) at time zone 'UTC')::date as day
      from (select distinct left(id, 14) as ms from new_clicks) m offset 0
    ) t on t.ms = left(n.id, 14)
    group by 1, 2, 3, 4
  ) k
  cross join lateral partnerd_rollup_grains(k.partner_id, k.campaign_id, k.link_id, true) g
  group by 1, 2, 3, 4;
  return null;
end $$;

-- grouping(sub_id, country, device, browser, referrer_domain) has a bit set for each column a row is
-- not grouped by, the first column highest: 15 is a sub-ID's row, 23 a country's, and so on. The
-- columns a row is not grouped by are null, so coalesce() is the value of the one it is (null: not known).
create or replace function partnerd_breakdown_clicks() returns trigger language plpgsql set jit = off as $$
begin
  insert into click_breakdown_deltas (day, campaign_id, dimension, value, clicks, filtered)
  select k.day, g.campaign_id, k.dimension, k.value, sum(k.n - k.f), sum(k.f)
  from (
    select t.day, n.campaign_id,
      case grouping(n.sub_id, n.country, n.device, n.browser, n.referrer_domain)
        when 15 then 'sub' when 23 then 'country' when 27 then 'device' when 29 then 'browser' else 'referrer' end as dimension,
      coalesce(n.sub_id, n.country, n.device, n.browser, n.referrer_domain) as value,
      count(*) as n, count(*) filter (where n.uncredited_reason is not null) as f
    from new_clicks n
    join (
      select ms, (partnerd_id_time(ms) at time zone 'UTC')::date as day
      from (select distinct left(id, 14) as ms from new_clicks) m offset 0
    ) t on t.ms = left(n.id, 14)
    group by t.day, n.campaign_id, grouping sets ((n.sub_id), (n.country), (n.device), (n.browser), (n.referrer_domain))
  ) k
  cross join lateral (values (''), (k.campaign_id)) g(campaign_id)
  group by 1, 2, 3, 4;
  return null;
end $$;
