-- Daily (and monthly) rollups of the traffic breakdowns (docs/analytics.md, "Traffic breakdowns"):
-- per day, grain and breakdown dimension, how many clicks had each value. A 12-month breakdown reads
-- a few hundred month rows instead of every click of the year, and a day's breakdown outlives the
-- click partition CLICK_RETENTION_DAYS drops.
--
-- Kept the way migration 0049 keeps the rollups: a statement-level trigger on clicks writes one
-- delta per (day, grain, dimension, value) of the statement's rows (the click buffer's batch), only
-- ever inserted, so concurrent batches never wait on each other's rows; partnerd_breakdown_fold moves
-- the deltas into the day and month rows (the scheduler's rollup fold, src/scheduler/rollups.ts);
-- readers read both (the view click_breakdown_facts), exact at every moment.
--
-- Grains as in 0049 (partnerd_rollup_grains): ('', '', '') the whole program, (p, '', '') a partner,
-- ('', c, '') a campaign, (p, c, '') a partner in a campaign, (p, c, l) a link.
-- dimension: 'sub' (sub_id), 'country', 'device', 'browser', 'referrer' (referrer_domain); value null:
-- not known. clicks: credited clicks; filtered: bot_click and click_flood, counted apart.

create table click_breakdown_deltas (
  id           bigint generated always as identity primary key,
  day          date not null,
  partner_id   text not null default '',
  campaign_id  text not null default '',
  link_id      text not null default '',
  dimension    text not null,
  value        text,
  clicks       bigint not null default 0,
  filtered     bigint not null default 0
);

-- unit 'd': one UTC day; unit 'm': the calendar month starting on `day`.
create table click_breakdowns (
  unit         char(1) not null check (unit in ('d', 'm')),
  day          date not null,
  partner_id   text not null,
  campaign_id  text not null,
  link_id      text not null,
  dimension    text not null,
  value        text,
  clicks       bigint not null default 0,
  filtered     bigint not null default 0
);
-- one row per key, the unknown value (null) included
create unique index click_breakdowns_key on click_breakdowns (partner_id, campaign_id, link_id, unit, day, dimension, value) nulls not distinct;
-- links by id (a link's traffic page, the portal's link filter)
create index click_breakdowns_link on click_breakdowns (link_id, unit, day) where link_id <> '';

create view click_breakdown_facts as
  select unit, day, partner_id, campaign_id, link_id, dimension, value, clicks, filtered from click_breakdowns
  union all
  select 'd', day, partner_id, campaign_id, link_id, dimension, value, clicks, filtered from click_breakdown_deltas
  union all
  select 'm', date_trunc('month', day)::date, partner_id, campaign_id, link_id, dimension, value, clicks, filtered from click_breakdown_deltas;

-- ---------------------------------------------------------------------------------------------
-- The trigger: a statement's clicks grouped once by (day, link, dimension, value), then spread over
-- the grains; a batch of 1,000 clicks writes one delta per value seen, not 1,000 rows.

create function partnerd_breakdown_click_rows(rows jsonb, sign int) returns void language sql as $$
  insert into click_breakdown_deltas (day, partner_id, campaign_id, link_id, dimension, value, clicks, filtered)
  select k.day, g.partner_id, g.campaign_id, g.link_id, k.dimension, k.value, sign * sum(k.n - k.f), sign * sum(k.f)
  from (
    select (partnerd_id_time(n.id) at time zone 'UTC')::date as day, n.partner_id, n.campaign_id, n.link_id, d.dimension, d.value,
      count(*) as n, count(*) filter (where n.uncredited_reason is not null) as f
    from jsonb_to_recordset(rows) as n(id text, partner_id text, campaign_id text, link_id text, uncredited_reason text,
      sub_id text, country text, device text, browser text, referrer_domain text)
    cross join lateral (values ('sub', n.sub_id), ('country', n.country), ('device', n.device), ('browser', n.browser), ('referrer', n.referrer_domain)) d(dimension, value)
    group by 1, 2, 3, 4, 5, 6
  ) k
  cross join lateral partnerd_rollup_grains(k.partner_id, k.campaign_id, k.link_id, true) g
  group by 1, 2, 3, 4, 5, 6
$$;

create function partnerd_breakdown_clicks() returns trigger language plpgsql as $$
begin
  insert into click_breakdown_deltas (day, partner_id, campaign_id, link_id, dimension, value, clicks, filtered)
  select k.day, g.partner_id, g.campaign_id, g.link_id, k.dimension, k.value, sum(k.n - k.f), sum(k.f)
  from (
    -- the day from the id: a partitioned table's transition rows may lack the generated created_at
    select (partnerd_id_time(n.id) at time zone 'UTC')::date as day, n.partner_id, n.campaign_id, n.link_id, d.dimension, d.value,
      count(*) as n, count(*) filter (where n.uncredited_reason is not null) as f
    from new_clicks n
    cross join lateral (values ('sub', n.sub_id), ('country', n.country), ('device', n.device), ('browser', n.browser), ('referrer', n.referrer_domain)) d(dimension, value)
    group by 1, 2, 3, 4, 5, 6
  ) k
  cross join lateral partnerd_rollup_grains(k.partner_id, k.campaign_id, k.link_id, true) g
  group by 1, 2, 3, 4, 5, 6;
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
      d.partner_id, d.campaign_id, d.link_id, d.dimension, d.value, sum(d.clicks) as clicks, sum(d.filtered) as filtered, count(*) as n
    from d cross join (values ('d'), ('m')) u(unit)
    group by 1, 2, 3, 4, 5, 6, 7
  ),
  up as (
    insert into click_breakdowns (unit, day, partner_id, campaign_id, link_id, dimension, value, clicks, filtered)
    select unit, day, partner_id, campaign_id, link_id, dimension, value, clicks, filtered
    from g order by partner_id, campaign_id, link_id, unit, day, dimension, value
    on conflict (partner_id, campaign_id, link_id, unit, day, dimension, value) do update set
      clicks = click_breakdowns.clicks + excluded.clicks, filtered = click_breakdowns.filtered + excluded.filtered
    returning 1
  )
  select coalesce((select sum(n) from g where unit = 'd'), 0) + 0 * (select count(*) from up) into moved;
  return moved;
end $$;

-- ---------------------------------------------------------------------------------------------
-- The raw recount, in the day rows' shape: the migration fills the rollups from it once; the tests
-- compare the rollups with it.
create function partnerd_breakdown_recount()
  returns table (day date, partner_id text, campaign_id text, link_id text, dimension text, value text, clicks bigint, filtered bigint)
  language sql stable as $$
  select k.day, g.partner_id, g.campaign_id, g.link_id, k.dimension, k.value, sum(k.n - k.f)::bigint, sum(k.f)::bigint
  from (
    select (c.created_at at time zone 'UTC')::date as day, c.partner_id, c.campaign_id, c.link_id, d.dimension, d.value,
      count(*) as n, count(*) filter (where c.uncredited_reason is not null) as f
    from clicks c
    cross join lateral (values ('sub', c.sub_id), ('country', c.country), ('device', c.device), ('browser', c.browser), ('referrer', c.referrer_domain)) d(dimension, value)
    group by 1, 2, 3, 4, 5, 6
  ) k
  cross join lateral partnerd_rollup_grains(k.partner_id, k.campaign_id, k.link_id, true) g
  group by 1, 2, 3, 4, 5, 6
$$;

-- Existing installs: one set-based recount of the clicks there are. The trigger above was created
-- first in this same transaction, so a click written meanwhile waits for the recount and is counted
-- by the trigger, never twice.
insert into click_breakdowns (unit, day, partner_id, campaign_id, link_id, dimension, value, clicks, filtered)
select u.unit, case when u.unit = 'd' then r.day else date_trunc('month', r.day)::date end, r.partner_id, r.campaign_id, r.link_id,
  r.dimension, r.value, sum(r.clicks), sum(r.filtered)
from partnerd_breakdown_recount() r cross join (values ('d'), ('m')) u(unit)
group by 1, 2, 3, 4, 5, 6, 7;
