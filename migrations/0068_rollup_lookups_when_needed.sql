-- The rollup triggers' click lookups, paid only when they are needed (issue 31: the rollups' cost on
-- `POST /v1/events`).
--
-- 1. An attribution's link (partnerd_attribution_links, 0059) is its customer's touch's, and only
--    when the touch has none its click's. The click lookup was a subquery over the partitioned
--    clicks table inside every trigger statement: never run for a touch with its link, but its
--    executor still opened every partition and index of clicks each time (about 0.2-0.4 ms of a
--    single sale's trigger statements). It is now a PL/pgSQL function, called only for a touch
--    without a link; its own plan looks at the one partition the click id falls in.
-- 2. The traffic breakdowns count a customer's conversion on their first sale only
--    (partnerd_breakdown_conversions, 0061): a statement of attributions that holds no first sale
--    (a renewal, a later purchase) now returns before its statement over clicks.

create function partnerd_click_link(click text) returns text language plpgsql stable parallel safe as $$
begin
  return (select k.link_id from clicks k where k.id = click);
end $$;

create or replace function partnerd_attribution_links(u text, click text) returns table (link_id text) language sql stable parallel safe as $$
  select coalesce(
    (select t.link_id from referral_touches t where t.user_id = u and t.click_id = click and t.link_id is not null limit 1),
    case when click is not null then partnerd_click_link(click) end)
$$;

create or replace function partnerd_breakdown_conversions() returns trigger language plpgsql set jit = off as $$
begin
  if not exists (select 1 from new_attributions n join referrals r on r.user_id = n.user_id and r.started_at = n.occurred_at) then
    return null;
  end if;
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
