-- Daily (and monthly) rollups of the traffic breakdowns (docs/analytics.md, "Traffic breakdowns"):
-- per day, campaign ('' for the whole program) and breakdown dimension, how many clicks had each
-- value. A 12-month breakdown of the program or a campaign reads a few thousand month rows instead of
-- every click of the year, and those days' breakdowns outlive the click partitions
-- CLICK_RETENTION_DAYS drops.
--
-- Only the whole program and each campaign: a partner's, a partner's in a campaign and a link's
-- breakdowns read their clicks by their (…, created_at) indexes, fast at any size (bench/README.md).
-- Rollups at those grains would be bigger than the clicks themselves: a link has a couple of clicks
-- a day, each with five values of its own, so (day, link, dimension, value) rows come to about one
-- per click and dimension: 4.7 million rows, 1.4 GB, for 400,000 clicks at 1/50 of issue 31's
-- scale with every grain of 0049, against 210,724 rows (38 MB) for these two.
--
-- Kept the way migration 0049 keeps the rollups: statement-level triggers on clicks and (for the
-- conversions, below) attributions. The one on clicks writes one delta per (day, campaign,
-- dimension, value) of the statement's rows (a click-buffer batch writes a few hundred rows at
-- most, whatever its size), only ever inserted, so concurrent batches never wait on each other's
-- rows; partnerd_breakdown_fold moves the deltas into the day and month rows (the scheduler's
-- rollup fold, src/scheduler/rollups.ts); readers read both (the view click_breakdown_facts),
-- exact at every moment.
--
-- dimension: 'sub' (sub_id), 'country', 'device', 'browser', 'referrer' (referrer_domain); value null:
-- not known. clicks: credited clicks; filtered: bot_click and click_flood, counted apart.
-- conversions: customers whose first sale (on its occurred_at day) was attributed through a click
-- with the value, each once per (campaign or program, dimension, value): a trigger on attributions.

create table click_breakdown_deltas (
  id           bigint generated always as identity primary key,
  day          date not null,
  campaign_id  text not null default '',
  dimension    text not null,
  value        text,
  clicks       bigint not null default 0,
  filtered     bigint not null default 0,
  conversions  bigint not null default 0   -- customers whose first sale came through a click with this value
);

-- unit 'd': one UTC day; unit 'm': the calendar month starting on `day`.
create table click_breakdowns (
  unit         char(1) not null check (unit in ('d', 'm')),
  day          date not null,
  campaign_id  text not null,
  dimension    text not null,
  value        text,
  clicks       bigint not null default 0,
  filtered     bigint not null default 0,
  conversions  bigint not null default 0   -- customers whose first sale came through a click with this value
);
-- one row per key, the unknown value (null) included
create unique index click_breakdowns_key on click_breakdowns (campaign_id, unit, day, dimension, value) nulls not distinct;

create view click_breakdown_facts as
  select unit, day, campaign_id, dimension, value, clicks, filtered, conversions from click_breakdowns
  union all
  select 'd', day, campaign_id, dimension, value, clicks, filtered, conversions from click_breakdown_deltas
  union all
  select 'm', date_trunc('month', day)::date, campaign_id, dimension, value, clicks, filtered, conversions from click_breakdown_deltas;

-- ---------------------------------------------------------------------------------------------
-- The trigger: a statement's clicks grouped once by (day, campaign, dimension, value), each group
-- counted for its campaign and for the whole program ('').

create function partnerd_breakdown_click_rows(rows jsonb, sign int) returns void language sql as $$
  insert into click_breakdown_deltas (day, campaign_id, dimension, value, clicks, filtered)
  select k.day, g.campaign_id, k.dimension, k.value, sign * sum(k.n - k.f), sign * sum(k.f)
  from (
    select (partnerd_id_time(n.id) at time zone 'UTC')::date as day, n.campaign_id, d.dimension, d.value,
      count(*) as n, count(*) filter (where n.uncredited_reason is not null) as f
    from jsonb_to_recordset(rows) as n(id text, campaign_id text, uncredited_reason text, sub_id text, country text, device text, browser text, referrer_domain text)
    cross join lateral (values ('sub', n.sub_id), ('country', n.country), ('device', n.device), ('browser', n.browser), ('referrer', n.referrer_domain)) d(dimension, value)
    group by 1, 2, 3, 4
  ) k
  cross join lateral (values (''), (k.campaign_id)) g(campaign_id)
  group by 1, 2, 3, 4
$$;

create function partnerd_breakdown_clicks() returns trigger language plpgsql as $$
begin
  insert into click_breakdown_deltas (day, campaign_id, dimension, value, clicks, filtered)
  select k.day, g.campaign_id, k.dimension, k.value, sum(k.n - k.f), sum(k.f)
  from (
    -- the day from the id: a partitioned table's transition rows may lack the generated created_at
    select (partnerd_id_time(n.id) at time zone 'UTC')::date as day, n.campaign_id, d.dimension, d.value,
      count(*) as n, count(*) filter (where n.uncredited_reason is not null) as f
    from new_clicks n
    cross join lateral (values ('sub', n.sub_id), ('country', n.country), ('device', n.device), ('browser', n.browser), ('referrer', n.referrer_domain)) d(dimension, value)
    group by 1, 2, 3, 4
  ) k
  cross join lateral (values (''), (k.campaign_id)) g(campaign_id)
  group by 1, 2, 3, 4;
  return null;
end $$;
create trigger clicks_breakdown after insert on clicks referencing new table as new_clicks
  for each statement execute function partnerd_breakdown_clicks();

-- the service never changes a click, but a repair (or a test's fixture) may: the old row out, the new in
create function partnerd_breakdown_clicks_changed() returns trigger language plpgsql as $$
begin
  perform partnerd_breakdown_click_rows((select jsonb_agg(to_jsonb(o)) from old_clicks o), -1);
  perform partnerd_breakdown_click_rows((select jsonb_agg(to_jsonb(n)) from new_clicks n), 1);
  return null;
end $$;
create trigger clicks_breakdown_update after update on clicks referencing old table as old_clicks new table as new_clicks
  for each statement execute function partnerd_breakdown_clicks_changed();

-- conversions: a customer counts once per (day, campaign or program, dimension, value), the first
-- time one of its first sale's attributions comes through a click with that value (as the readers'
-- count(distinct user) over the raw rows). The referral is written before its attributions.
create function partnerd_breakdown_conversions() returns trigger language plpgsql as $$
begin
  with x as materialized (
    select distinct (n.occurred_at at time zone 'UTC')::date as day, n.user_id, n.occurred_at, g.campaign_id, d.dimension, d.value
    from new_attributions n
    join clicks c on c.id = n.click_id
    cross join lateral (values ('sub', c.sub_id), ('country', c.country), ('device', c.device), ('browser', c.browser), ('referrer', c.referrer_domain)) d(dimension, value)
    cross join lateral (values (''), (n.campaign_id)) g(campaign_id)
    where exists (select 1 from referrals r where r.user_id = n.user_id and r.started_at = n.occurred_at)
  )
  insert into click_breakdown_deltas (day, campaign_id, dimension, value, conversions)
  select x.day, x.campaign_id, x.dimension, x.value, count(*)
  from x
  where not exists (
    -- by the user's events at that moment (events_user), as 0049's customers: attributions have no user index
    select 1 from events e join attributions a on a.event_id = e.id join clicks c on c.id = a.click_id
    where e.user_id = x.user_id and e.occurred_at = x.occurred_at
      and not exists (select 1 from new_attributions m where m.id = a.id)
      and (x.campaign_id = '' or a.campaign_id = x.campaign_id)
      and (case x.dimension when 'sub' then c.sub_id when 'country' then c.country when 'device' then c.device
             when 'browser' then c.browser else c.referrer_domain end) is not distinct from x.value)
  group by 1, 2, 3, 4;
  return null;
end $$;
create trigger attributions_breakdown after insert on attributions referencing new table as new_attributions
  for each statement execute function partnerd_breakdown_conversions();

-- ---------------------------------------------------------------------------------------------
-- Folding: moves up to `max_rows` deltas into the day and month rows, one folder at a time.
create function partnerd_breakdown_fold(max_rows int) returns int language plpgsql as $$
declare
  moved int;
begin
  perform pg_advisory_xact_lock(7365, 2);
  with d as (
    delete from click_breakdown_deltas where id in (select id from click_breakdown_deltas order by id limit max_rows) returning *
  ),
  g as (
    select u.unit, case when u.unit = 'd' then d.day else date_trunc('month', d.day)::date end as day,
      d.campaign_id, d.dimension, d.value, sum(d.clicks) as clicks, sum(d.filtered) as filtered, sum(d.conversions) as conversions, count(*) as n
    from d cross join (values ('d'), ('m')) u(unit)
    group by 1, 2, 3, 4, 5
  ),
  up as (
    insert into click_breakdowns (unit, day, campaign_id, dimension, value, clicks, filtered, conversions)
    select unit, day, campaign_id, dimension, value, clicks, filtered, conversions
    from g order by campaign_id, unit, day, dimension, value
    on conflict (campaign_id, unit, day, dimension, value) do update set
      clicks = click_breakdowns.clicks + excluded.clicks, filtered = click_breakdowns.filtered + excluded.filtered,
      conversions = click_breakdowns.conversions + excluded.conversions
    returning 1
  )
  select coalesce((select sum(n) from g where unit = 'd'), 0) + 0 * (select count(*) from up) into moved;
  return moved;
end $$;

-- ---------------------------------------------------------------------------------------------
-- The raw recount, in the day rows' shape: the migration fills the rollups from it once; the tests
-- compare the rollups with it.
create function partnerd_breakdown_recount()
  returns table (day date, campaign_id text, dimension text, value text, clicks bigint, filtered bigint, conversions bigint)
  language sql stable as $$
  with k as (
    select k.day, g.campaign_id, k.dimension, k.value, sum(k.n - k.f) as clicks, sum(k.f) as filtered, 0::bigint as conversions
    from (
      select (c.created_at at time zone 'UTC')::date as day, c.campaign_id, d.dimension, d.value,
        count(*) as n, count(*) filter (where c.uncredited_reason is not null) as f
      from clicks c
      cross join lateral (values ('sub', c.sub_id), ('country', c.country), ('device', c.device), ('browser', c.browser), ('referrer', c.referrer_domain)) d(dimension, value)
      group by 1, 2, 3, 4
    ) k
    cross join lateral (values (''), (k.campaign_id)) g(campaign_id)
    group by 1, 2, 3, 4
  ),
  cv as (
    select (a.occurred_at at time zone 'UTC')::date as day, g.campaign_id, d.dimension, d.value, 0::bigint as clicks, 0::bigint as filtered,
      count(distinct a.user_id) as conversions
    from attributions a
    join clicks c on c.id = a.click_id
    cross join lateral (values ('sub', c.sub_id), ('country', c.country), ('device', c.device), ('browser', c.browser), ('referrer', c.referrer_domain)) d(dimension, value)
    cross join lateral (values (''), (a.campaign_id)) g(campaign_id)
    where exists (select 1 from referrals r where r.user_id = a.user_id and r.started_at = a.occurred_at)
    group by 1, 2, 3, 4
  )
  select day, campaign_id, dimension, value, sum(clicks)::bigint, sum(filtered)::bigint, sum(conversions)::bigint
  from (select * from k union all select * from cv) u
  group by 1, 2, 3, 4
$$;

-- Existing installs: one set-based recount of the clicks and first sales there are. The triggers
-- above were created first in this same transaction, so a click or attribution written meanwhile
-- waits for the recount and is counted by its trigger, never twice.
insert into click_breakdowns (unit, day, campaign_id, dimension, value, clicks, filtered, conversions)
select u.unit, case when u.unit = 'd' then r.day else date_trunc('month', r.day)::date end, r.campaign_id, r.dimension, r.value,
  sum(r.clicks), sum(r.filtered), sum(r.conversions)
from partnerd_breakdown_recount() r cross join (values ('d'), ('m')) u(unit)
group by 1, 2, 3, 4, 5;
