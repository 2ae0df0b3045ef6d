-- The rollup triggers of referral touches and attributions look up what was written before their
-- statement by key, whatever the statistics say (issue 30: an import's batches).
--
-- Their lookups were joins and EXISTS that PostgreSQL may turn into hash joins over the whole table:
-- every attribution, event and referral touch written so far hashed to match one statement's rows.
-- Inside an import (one transaction into tables whose statistics were taken nearly empty) the
-- planner picks those plans for every batch, so a batch costs more the more the import has written
-- (auto_explain: most of an import's insert time, bench/README.md "Import a program"). Written here
-- as lookups by an indexed key per row of the statement (a LATERAL subquery or a subquery with
-- OFFSET 0, which PostgreSQL neither flattens into a join nor hashes whole), the cost of a trigger
-- statement follows its own rows only. The figures are the same (test/reports/rollups.test.ts).
-- The functions keep 0062's `jit = off` (CREATE OR REPLACE resets a function's settings).

-- converted clicks: a click counts once, the first time it becomes any referral's touch, i.e. when
-- every touch of it in the table is one of this statement's (referral_touches_click per click)
create or replace function partnerd_rollup_touches() returns trigger language plpgsql set jit = off as $$
begin
  insert into rollup_deltas (day, partner_id, campaign_id, link_id, converted)
  select (partnerd_id_time(x.click_id) at time zone 'UTC')::date, g.partner_id, g.campaign_id, g.link_id, count(*)
  from (
    select n.click_id, n.partner_id, n.campaign_id, n.link_id, n.fresh
    from (
      select distinct on (n.click_id) n.click_id, n.partner_id, n.campaign_id, n.link_id, count(*) over (partition by n.click_id) as fresh
      from new_touches n
      where n.click_id is not null
      order by n.click_id
    ) n
    where (select count(*) from referral_touches t where t.click_id = n.click_id) = n.fresh
  ) x
  cross join lateral partnerd_rollup_grains(x.partner_id, x.campaign_id, x.link_id, true) g
  group by 1, 2, 3, 4;
  return null;
end $$;

-- partners', campaigns' and links' sales, leads, revenue and customers: an event counts once per
-- grain (the first attribution of it there), a customer once per grain (its first sale's)
-- (work_mem: an import's 5,000-row statement sorts 20,000 grain rows; at the default 4 MB they went to disk)
create or replace function partnerd_rollup_attributions() returns trigger language plpgsql set jit = off set work_mem = '32MB' as $$
begin
  with x as materialized (
    select n.event_id, n.user_id, n.occurred_at, (n.occurred_at at time zone 'UTC')::date as day, e.type, e.amount, e.currency, e.first,
      g.partner_id as gp, g.campaign_id as gc, g.link_id as gl
    from new_attributions n
    -- the event by its primary key, and whether the attribution is its customer's first sale (referrals by user)
    cross join lateral (
      select e.type, e.amount, e.currency,
        exists (select 1 from referrals r where r.user_id = n.user_id and r.started_at = n.occurred_at offset 0) as first
      from events e where e.id = n.event_id offset 0) e
    cross join lateral partnerd_attribution_links(n.user_id, n.click_id) l
    cross join lateral partnerd_rollup_grains(n.partner_id, n.campaign_id, l.link_id, false) g
  ),
  -- the attributions of this statement's events written before it (attributions_event per event)
  earlier_rows as materialized (
    select a.event_id, a.partner_id, a.campaign_id, a.user_id, a.click_id
    from (select n.event_id, array_agg(n.id) as ids from new_attributions n group by n.event_id) ne
    cross join lateral (
      select a.event_id, a.partner_id, a.campaign_id, a.user_id, a.click_id
      from attributions a where a.event_id = ne.event_id and a.id <> all (ne.ids) offset 0) a
  ),
  earlier as materialized (
    select a.event_id, a.partner_id, a.campaign_id, l.link_id
    from earlier_rows a cross join lateral partnerd_attribution_links(a.user_id, a.click_id) l
  ),
  -- the attributions written before this statement of the events of a first sale's customer at its
  -- moment (events_user, then attributions_event), for the customers counted once per grain
  moments as materialized (
    select distinct x.user_id, x.occurred_at from x where x.first
  ),
  earlier_sales_rows as materialized (
    select m.user_id, m.occurred_at, a.id, a.partner_id, a.campaign_id, a.user_id as attribution_user_id, a.click_id
    from moments m
    cross join lateral (select e.id from events e where e.user_id = m.user_id and e.occurred_at = m.occurred_at offset 0) e
    cross join lateral (
      select a.id, a.partner_id, a.campaign_id, a.user_id, a.click_id from attributions a where a.event_id = e.id offset 0) a
    where not exists (select 1 from new_attributions n where n.id = a.id)
  ),
  earlier_sales as materialized (
    select a.user_id, a.occurred_at, a.partner_id, a.campaign_id, l.link_id
    from earlier_sales_rows a cross join lateral partnerd_attribution_links(a.attribution_user_id, a.click_id) l
  ),
  sale as (
    select distinct on (x.gp, x.gc, x.gl, x.event_id) x.day, x.gp, x.gc, x.gl, x.type, x.amount, x.currency from x
    where not exists (
      select 1 from earlier a
      where a.event_id = x.event_id
        and (x.gp = '' or a.partner_id = x.gp) and (x.gc = '' or a.campaign_id = x.gc) and (x.gl = '' or a.link_id = x.gl))
    order by x.gp, x.gc, x.gl, x.event_id
  ),
  customer as (
    select distinct on (x.gp, x.gc, x.gl, x.user_id) x.day, x.gp, x.gc, x.gl from x
    where x.first and not exists (
      select 1 from earlier_sales a
      where a.user_id = x.user_id and a.occurred_at = x.occurred_at
        and (x.gp = '' or a.partner_id = x.gp) and (x.gc = '' or a.campaign_id = x.gc) and (x.gl = '' or a.link_id = x.gl))
    order by x.gp, x.gc, x.gl, x.user_id
  )
  insert into rollup_deltas (day, partner_id, campaign_id, link_id, currency, sales, leads, revenue, customers)
  select day, gp, gc, gl, '', count(*), count(*) filter (where type = 'signup'), 0, 0 from sale group by 1, 2, 3, 4
  union all
  select day, gp, gc, gl, currency, 0, 0, sum(amount), 0 from sale where currency is not null group by 1, 2, 3, 4, 5
  union all
  select day, gp, gc, gl, '', 0, 0, 0, count(*) from customer group by 1, 2, 3, 4;
  return null;
end $$;
