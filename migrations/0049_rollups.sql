-- Daily (and monthly) rollups of the figures (docs/analytics.md), so a dashboard over months reads a
-- few hundred rows instead of millions of clicks and events.
--
-- How they stay exact: triggers on the rows they count (clicks, events, referrals, referral_touches,
-- attributions, commissions) write what each statement changed into rollup_deltas, in the same
-- transaction as the rows themselves. A delta row is only ever inserted, so concurrent writers never
-- wait on each other's rollup rows (no hot row for "today", no deadlock between two batches touching
-- the same days in another order). A worker folds the deltas into `rollups` (partnerd_rollup_fold,
-- one folder at a time under an advisory lock); readers read rollups and the deltas not yet folded
-- together (the view rollup_facts), so a figure is exact at every moment, folded or not.
--
-- Grains: every row names a partner, a campaign and a link, '' meaning "all": ('', '', '') is the
-- whole program, (p, '', '') a partner, ('', c, '') a campaign, (p, c, '') a partner in a campaign,
-- (p, c, l) a link. Each row counts distinct things at its own grain (a customer two links of one
-- partner share is one customer of the partner), so a grain is never summed into another.
-- currency '' holds the counts (clicks, leads, customers, sales); a currency's row holds its money.

create table rollup_deltas (
  id           bigint generated always as identity primary key,
  day          date not null,
  partner_id   text not null default '',
  campaign_id  text not null default '',
  link_id      text not null default '',
  currency     text not null default '',
  clicks       bigint not null default 0,  -- credited clicks
  filtered     bigint not null default 0,  -- bot_click, click_flood
  converted    bigint not null default 0,  -- clicks that became a referral's touch
  leads        bigint not null default 0,  -- attributed signup events
  customers    bigint not null default 0,  -- first sales (distinct customers)
  sales        bigint not null default 0,  -- attributed events
  revenue      bigint not null default 0,  -- the sales' amounts
  accrued      bigint not null default 0,  -- commissions by status, on their sale's day
  approved     bigint not null default 0,
  paid         bigint not null default 0,
  reversed     bigint not null default 0,
  earned       bigint not null default 0   -- how many commissions are not reversed
);
create index rollup_deltas_key on rollup_deltas (partner_id, campaign_id, link_id, day);

-- unit 'd': one UTC day; unit 'm': the calendar month starting on `day`.
create table rollups (
  unit         char(1) not null check (unit in ('d', 'm')),
  day          date not null,
  partner_id   text not null,
  campaign_id  text not null,
  link_id      text not null,
  currency     text not null,
  clicks       bigint not null default 0,
  filtered     bigint not null default 0,
  converted    bigint not null default 0,
  leads        bigint not null default 0,
  customers    bigint not null default 0,
  sales        bigint not null default 0,
  revenue      bigint not null default 0,
  accrued      bigint not null default 0,
  approved     bigint not null default 0,
  paid         bigint not null default 0,
  reversed     bigint not null default 0,
  earned       bigint not null default 0,
  primary key (partner_id, campaign_id, link_id, unit, day, currency)
);
-- a campaign's partners and links
create index rollups_campaign on rollups (campaign_id, unit, day) include (partner_id, link_id) where campaign_id <> '';
-- links by id (a partner's links list, the portal)
create index rollups_link on rollups (link_id, unit, day) where link_id <> '';

-- What readers read: the folded rows and the deltas not folded yet, as day and month rows.
create view rollup_facts as
  select unit, day, partner_id, campaign_id, link_id, currency, clicks, filtered, converted, leads, customers, sales, revenue, accrued, approved, paid, reversed, earned
  from rollups
  union all
  select 'd', day, partner_id, campaign_id, link_id, currency, clicks, filtered, converted, leads, customers, sales, revenue, accrued, approved, paid, reversed, earned
  from rollup_deltas
  union all
  select 'm', date_trunc('month', day)::date, partner_id, campaign_id, link_id, currency, clicks, filtered, converted, leads, customers, sales, revenue, accrued, approved, paid, reversed, earned
  from rollup_deltas;

-- The grains a row of (partner, campaign, link) counts in; `program` adds the whole program's.
create function partnerd_rollup_grains(p text, c text, l text, program boolean)
  returns table (partner_id text, campaign_id text, link_id text)
  language sql immutable parallel safe as $$
    select v.p, v.c, v.l from (values (0, '', '', ''), (1, p, '', ''), (2, '', c, ''), (3, p, c, ''), (4, p, c, coalesce(l, ''))) v(n, p, c, l)
    where (program or v.n > 0) and (v.n < 4 or l is not null)
  $$;

-- A referral touch keeps its click's link, so rollups of later sales (renewals) still find the link
-- after CLICK_RETENTION_DAYS dropped the click.
alter table referral_touches add column link_id text;
update referral_touches t set link_id = k.link_id from clicks k where k.id = t.click_id;
create function partnerd_touch_link() returns trigger language plpgsql as $$
begin
  select k.link_id into new.link_id from clicks k where k.id = new.click_id;
  return new;
end $$;
create trigger referral_touches_link before insert on referral_touches
  for each row when (new.click_id is not null and new.link_id is null) execute function partnerd_touch_link();

-- The link an attribution credits: its click's (through the user's touch, which outlives the click).
create function partnerd_attribution_link(u text, click text) returns text language sql stable parallel safe as $$
  select coalesce(
    (select t.link_id from referral_touches t where t.user_id = u and t.click_id = click and t.link_id is not null limit 1),
    (select k.link_id from clicks k where k.id = click))
$$;

-- ---------------------------------------------------------------------------------------------
-- The triggers: one statement's rows at a time (transition tables), so a batch of 1,000 clicks
-- writes one delta per link and grain, not 1,000.

create function partnerd_rollup_click_rows(rows jsonb, sign int) returns void language sql as $$
  insert into rollup_deltas (day, partner_id, campaign_id, link_id, clicks, filtered)
  select k.day, g.partner_id, g.campaign_id, g.link_id, sign * sum(k.n - k.f), sign * sum(k.f)
  from (
    select (partnerd_id_time(n.id) at time zone 'UTC')::date as day, n.partner_id, n.campaign_id, n.link_id,
      count(*) as n, count(*) filter (where n.uncredited_reason is not null) as f
    from jsonb_to_recordset(rows) as n(id text, partner_id text, campaign_id text, link_id text, uncredited_reason text)
    group by 1, 2, 3, 4
  ) k
  cross join lateral partnerd_rollup_grains(k.partner_id, k.campaign_id, k.link_id, true) g
  group by 1, 2, 3, 4
$$;

-- a batch from the click buffer: one delta per link and grain, whatever the batch's size
create function partnerd_rollup_clicks() returns trigger language plpgsql as $$
begin
  insert into rollup_deltas (day, partner_id, campaign_id, link_id, clicks, filtered)
  select k.day, g.partner_id, g.campaign_id, g.link_id, sum(k.n - k.f), sum(k.f)
  from (
    -- the day from the id: a partitioned table's transition rows may lack the generated created_at
    select (partnerd_id_time(n.id) at time zone 'UTC')::date as day, n.partner_id, n.campaign_id, n.link_id,
      count(*) as n, count(*) filter (where n.uncredited_reason is not null) as f
    from new_clicks n group by 1, 2, 3, 4
  ) k
  cross join lateral partnerd_rollup_grains(k.partner_id, k.campaign_id, k.link_id, true) g
  group by 1, 2, 3, 4;
  return null;
end $$;
create trigger clicks_rollup after insert on clicks referencing new table as new_clicks
  for each statement execute function partnerd_rollup_clicks();

-- the service never changes a click, but a repair (or a test's fixture) may: the old row out, the new in
create function partnerd_rollup_clicks_changed() returns trigger language plpgsql as $$
begin
  if tg_op in ('UPDATE', 'DELETE') then
    perform partnerd_rollup_click_rows((select jsonb_agg(to_jsonb(o)) from old_clicks o), -1);
  end if;
  if tg_op = 'UPDATE' then
    perform partnerd_rollup_click_rows((select jsonb_agg(to_jsonb(n)) from new_clicks n), 1);
  end if;
  return null;
end $$;
create trigger clicks_rollup_update after update on clicks referencing old table as old_clicks new table as new_clicks
  for each statement execute function partnerd_rollup_clicks_changed();

-- converted clicks: a click counts once, the first time it becomes any referral's touch
create function partnerd_rollup_touches() returns trigger language plpgsql as $$
begin
  insert into rollup_deltas (day, partner_id, campaign_id, link_id, converted)
  select (partnerd_id_time(x.click_id) at time zone 'UTC')::date, g.partner_id, g.campaign_id, g.link_id, count(*)
  from (
    select distinct on (n.click_id) n.click_id, n.partner_id, n.campaign_id, n.link_id
    from new_touches n
    where n.click_id is not null
      and not exists (
        select 1 from referral_touches t
        where t.click_id = n.click_id
          and not exists (select 1 from new_touches m where m.user_id = t.user_id and m.position = t.position))
    order by n.click_id
  ) x
  cross join lateral partnerd_rollup_grains(x.partner_id, x.campaign_id, x.link_id, true) g
  group by 1, 2, 3, 4;
  return null;
end $$;
create trigger referral_touches_rollup after insert on referral_touches referencing new table as new_touches
  for each statement execute function partnerd_rollup_touches();

-- the whole program's sales, leads and revenue: attributed events, each once
create function partnerd_rollup_events() returns trigger language plpgsql as $$
begin
  insert into rollup_deltas (day, currency, sales, leads, revenue)
  select (n.occurred_at at time zone 'UTC')::date, '', count(*), count(*) filter (where n.type = 'signup'), 0
  from new_events n where n.attribution_status = 'attributed' group by 1
  union all
  select (n.occurred_at at time zone 'UTC')::date, n.currency, 0, 0, sum(n.amount)
  from new_events n where n.attribution_status = 'attributed' and n.currency is not null group by 1, 2;
  return null;
end $$;
create trigger events_rollup after insert on events referencing new table as new_events
  for each statement execute function partnerd_rollup_events();

-- the whole program's customers: a referral starts with the customer's first attributed sale
create function partnerd_rollup_referrals() returns trigger language plpgsql as $$
begin
  insert into rollup_deltas (day, customers)
  select (n.started_at at time zone 'UTC')::date, count(*)
  from new_referrals n
  where exists (select 1 from events e where e.user_id = n.user_id and e.occurred_at = n.started_at and e.attribution_status = 'attributed')
  group by 1;
  return null;
end $$;
create trigger referrals_rollup after insert on referrals referencing new table as new_referrals
  for each statement execute function partnerd_rollup_referrals();

-- partners', campaigns' and links' sales, leads, revenue and customers: an event counts once per
-- grain (the first attribution of it there), a customer once per grain (its first sale's)
create function partnerd_rollup_attributions() returns trigger language plpgsql as $$
begin
  with x as materialized (
    select n.id, n.event_id, n.user_id, n.occurred_at, (n.occurred_at at time zone 'UTC')::date as day, e.type, e.amount, e.currency,
      exists (select 1 from referrals r where r.user_id = n.user_id and r.started_at = n.occurred_at) as first,
      g.partner_id as gp, g.campaign_id as gc, g.link_id as gl
    from new_attributions n
    join events e on e.id = n.event_id
    cross join lateral partnerd_rollup_grains(n.partner_id, n.campaign_id, partnerd_attribution_link(n.user_id, n.click_id), false) g
  ),
  -- attributions written before this statement, in the same grain
  sale as (
    select distinct on (x.gp, x.gc, x.gl, x.event_id) x.* from x
    where not exists (
      select 1 from attributions a
      where a.event_id = x.event_id
        and not exists (select 1 from new_attributions m where m.id = a.id)
        and (x.gp = '' or a.partner_id = x.gp) and (x.gc = '' or a.campaign_id = x.gc)
        and (x.gl = '' or partnerd_attribution_link(a.user_id, a.click_id) = x.gl))
    order by x.gp, x.gc, x.gl, x.event_id
  ),
  customer as (
    select distinct on (x.gp, x.gc, x.gl, x.user_id) x.* from x
    where x.first and not exists (
      select 1 from events e join attributions a on a.event_id = e.id
      where e.user_id = x.user_id and e.occurred_at = x.occurred_at
        and not exists (select 1 from new_attributions m where m.id = a.id)
        and (x.gp = '' or a.partner_id = x.gp) and (x.gc = '' or a.campaign_id = x.gc)
        and (x.gl = '' or partnerd_attribution_link(a.user_id, a.click_id) = x.gl))
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
create trigger attributions_rollup after insert on attributions referencing new table as new_attributions
  for each statement execute function partnerd_rollup_attributions();

-- commissions by status, on their sale's day, in every grain; an update takes the old row out and
-- puts the new one in (approval, payment, reversal, a refund's new amount, a clawback's reversal)
create function partnerd_rollup_commission_rows(rows jsonb, sign int) returns void language sql as $$
  insert into rollup_deltas (day, partner_id, campaign_id, link_id, currency, accrued, approved, paid, reversed, earned)
  select (c.occurred_at at time zone 'UTC')::date, g.partner_id, g.campaign_id, g.link_id, c.currency,
    sign * coalesce(sum(c.amount) filter (where c.status = 'accrued'), 0),
    sign * coalesce(sum(c.amount) filter (where c.status = 'approved'), 0),
    sign * coalesce(sum(c.amount) filter (where c.status = 'paid'), 0),
    sign * coalesce(sum(c.amount) filter (where c.status = 'reversed'), 0),
    sign * count(*) filter (where c.status <> 'reversed')
  from jsonb_to_recordset(rows) as c(attribution_id text, partner_id text, campaign_id text, currency text, status text, amount bigint, occurred_at timestamptz)
  join attributions a on a.id = c.attribution_id
  cross join lateral partnerd_rollup_grains(c.partner_id, c.campaign_id, partnerd_attribution_link(a.user_id, a.click_id), true) g
  -- (a row from before migration 0033 has no sale time to count on)
  where c.occurred_at is not null
  group by 1, 2, 3, 4, 5
$$;

create function partnerd_rollup_commissions() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    perform partnerd_rollup_commission_rows((select jsonb_agg(to_jsonb(n)) from new_commissions n), 1);
  else
    -- only rows whose counted columns changed
    perform partnerd_rollup_commission_rows((select jsonb_agg(to_jsonb(o)) from old_commissions o join new_commissions n using (id)
      where (o.status, o.amount, o.currency, o.occurred_at) is distinct from (n.status, n.amount, n.currency, n.occurred_at)), -1);
    perform partnerd_rollup_commission_rows((select jsonb_agg(to_jsonb(n)) from old_commissions o join new_commissions n using (id)
      where (o.status, o.amount, o.currency, o.occurred_at) is distinct from (n.status, n.amount, n.currency, n.occurred_at)), 1);
  end if;
  return null;
end $$;
create trigger commissions_rollup_insert after insert on commissions referencing new table as new_commissions
  for each statement execute function partnerd_rollup_commissions();
create trigger commissions_rollup_update after update on commissions referencing old table as old_commissions new table as new_commissions
  for each statement execute function partnerd_rollup_commissions();

-- ---------------------------------------------------------------------------------------------
-- Folding: moves up to `max_rows` deltas into the day and month rows, one folder at a time.
create function partnerd_rollup_fold(max_rows int) returns int language plpgsql as $$
declare
  moved int;
begin
  perform pg_advisory_xact_lock(7365, 1);
  with d as (
    delete from rollup_deltas where id in (select id from rollup_deltas order by id limit max_rows) returning *
  ),
  g as (
    select u.unit, case when u.unit = 'd' then d.day else date_trunc('month', d.day)::date end as day,
      d.partner_id, d.campaign_id, d.link_id, d.currency,
      sum(clicks) as clicks, sum(filtered) as filtered, sum(converted) as converted, sum(leads) as leads, sum(customers) as customers,
      sum(sales) as sales, sum(revenue) as revenue, sum(accrued) as accrued, sum(approved) as approved, sum(paid) as paid,
      sum(reversed) as reversed, sum(earned) as earned, count(*) as n
    from d cross join (values ('d'), ('m')) u(unit)
    group by 1, 2, 3, 4, 5, 6
  ),
  up as (
    insert into rollups (unit, day, partner_id, campaign_id, link_id, currency, clicks, filtered, converted, leads, customers, sales, revenue, accrued, approved, paid, reversed, earned)
    select unit, day, partner_id, campaign_id, link_id, currency, clicks, filtered, converted, leads, customers, sales, revenue, accrued, approved, paid, reversed, earned
    from g order by partner_id, campaign_id, link_id, unit, day, currency
    on conflict (partner_id, campaign_id, link_id, unit, day, currency) do update set
      clicks = rollups.clicks + excluded.clicks, filtered = rollups.filtered + excluded.filtered,
      converted = rollups.converted + excluded.converted, leads = rollups.leads + excluded.leads,
      customers = rollups.customers + excluded.customers, sales = rollups.sales + excluded.sales,
      revenue = rollups.revenue + excluded.revenue, accrued = rollups.accrued + excluded.accrued,
      approved = rollups.approved + excluded.approved, paid = rollups.paid + excluded.paid,
      reversed = rollups.reversed + excluded.reversed, earned = rollups.earned + excluded.earned
    returning 1
  )
  select coalesce((select sum(n) from g where unit = 'd'), 0) + 0 * (select count(*) from up) into moved;
  return moved;
end $$;

-- ---------------------------------------------------------------------------------------------
-- The raw recount: every day's figures computed from the rows themselves, in the rollups' shape.
-- The migration fills the rollups from it once; the tests compare the rollups with it.
create function partnerd_rollup_recount()
  returns table (day date, partner_id text, campaign_id text, link_id text, currency text,
    clicks bigint, filtered bigint, converted bigint, leads bigint, customers bigint, sales bigint, revenue bigint,
    accrued bigint, approved bigint, paid bigint, reversed bigint, earned bigint)
  language sql stable as $$
  with
  k as (
    select (created_at at time zone 'UTC')::date as day, g.partner_id, g.campaign_id, g.link_id, '' as currency,
      count(*) filter (where uncredited_reason is null) as clicks, count(*) filter (where uncredited_reason is not null) as filtered
    from clicks c cross join lateral partnerd_rollup_grains(c.partner_id, c.campaign_id, c.link_id, true) g
    group by 1, 2, 3, 4
  ),
  cv as (
    select (partnerd_id_time(t.click_id) at time zone 'UTC')::date as day, g.partner_id, g.campaign_id, g.link_id, '' as currency, count(*) as converted
    from (select distinct on (click_id) click_id, partner_id, campaign_id, link_id from referral_touches where click_id is not null order by click_id) t
    cross join lateral partnerd_rollup_grains(t.partner_id, t.campaign_id, t.link_id, true) g
    group by 1, 2, 3, 4
  ),
  x as (
    select distinct (a.occurred_at at time zone 'UTC')::date as day, g.partner_id, g.campaign_id, g.link_id, a.event_id, a.user_id, e.type, e.amount, e.currency,
      exists (select 1 from referrals r where r.user_id = a.user_id and r.started_at = a.occurred_at) as first
    from attributions a join events e on e.id = a.event_id
    cross join lateral partnerd_rollup_grains(a.partner_id, a.campaign_id, partnerd_attribution_link(a.user_id, a.click_id), false) g
  ),
  ev as (
    select (e.occurred_at at time zone 'UTC')::date as day, '' as partner_id, '' as campaign_id, '' as link_id, e.id as event_id, e.user_id, e.type, e.amount, e.currency,
      exists (select 1 from referrals r where r.user_id = e.user_id and r.started_at = e.occurred_at) as first
    from events e where e.attribution_status = 'attributed'
  ),
  s as (select * from x union all select * from ev),
  sc as (
    select day, partner_id, campaign_id, link_id, '' as currency, count(distinct event_id) as sales,
      count(distinct event_id) filter (where type = 'signup') as leads, count(distinct user_id) filter (where first) as customers
    from s group by 1, 2, 3, 4
  ),
  sr as (
    select day, partner_id, campaign_id, link_id, currency, sum(amount) as revenue
    from (select distinct day, partner_id, campaign_id, link_id, event_id, currency, amount from s where currency is not null) d
    group by 1, 2, 3, 4, 5
  ),
  cm as (
    select (c.occurred_at at time zone 'UTC')::date as day, g.partner_id, g.campaign_id, g.link_id, c.currency,
      coalesce(sum(c.amount) filter (where c.status = 'accrued'), 0) as accrued,
      coalesce(sum(c.amount) filter (where c.status = 'approved'), 0) as approved,
      coalesce(sum(c.amount) filter (where c.status = 'paid'), 0) as paid,
      coalesce(sum(c.amount) filter (where c.status = 'reversed'), 0) as reversed,
      count(*) filter (where c.status <> 'reversed') as earned
    from commissions c join attributions a on a.id = c.attribution_id
    cross join lateral partnerd_rollup_grains(c.partner_id, c.campaign_id, partnerd_attribution_link(a.user_id, a.click_id), true) g
    group by 1, 2, 3, 4, 5
  ),
  u as (
    select day, partner_id, campaign_id, link_id, currency, clicks, filtered, 0::bigint as converted, 0::bigint as leads, 0::bigint as customers, 0::bigint as sales, 0::bigint as revenue,
      0::bigint as accrued, 0::bigint as approved, 0::bigint as paid, 0::bigint as reversed, 0::bigint as earned from k
    union all select day, partner_id, campaign_id, link_id, currency, 0, 0, converted, 0, 0, 0, 0, 0, 0, 0, 0, 0 from cv
    union all select day, partner_id, campaign_id, link_id, currency, 0, 0, 0, leads, customers, sales, 0, 0, 0, 0, 0, 0 from sc
    union all select day, partner_id, campaign_id, link_id, currency, 0, 0, 0, 0, 0, 0, revenue, 0, 0, 0, 0, 0 from sr
    union all select day, partner_id, campaign_id, link_id, currency, 0, 0, 0, 0, 0, 0, 0, accrued, approved, paid, reversed, earned from cm
  )
  select day, partner_id, campaign_id, link_id, currency, sum(clicks)::bigint, sum(filtered)::bigint, sum(converted)::bigint, sum(leads)::bigint,
    sum(customers)::bigint, sum(sales)::bigint, sum(revenue)::bigint, sum(accrued)::bigint, sum(approved)::bigint, sum(paid)::bigint,
    sum(reversed)::bigint, sum(earned)::bigint
  from u group by 1, 2, 3, 4, 5
$$;

-- Existing installs: the rollups start from a recount of what is there. The triggers above were
-- created first in this same transaction, so a row written meanwhile waits for it and is counted
-- by its trigger, never twice (the lock the triggers' creation takes is held until commit: writes
-- to those tables wait for the recount, seconds on a year of a busy program; bench/dashboard.md).
insert into rollups (unit, day, partner_id, campaign_id, link_id, currency, clicks, filtered, converted, leads, customers, sales, revenue, accrued, approved, paid, reversed, earned)
select u.unit, case when u.unit = 'd' then r.day else date_trunc('month', r.day)::date end, r.partner_id, r.campaign_id, r.link_id, r.currency,
  sum(r.clicks), sum(r.filtered), sum(r.converted), sum(r.leads), sum(r.customers), sum(r.sales), sum(r.revenue),
  sum(r.accrued), sum(r.approved), sum(r.paid), sum(r.reversed), sum(r.earned)
from partnerd_rollup_recount() r cross join (values ('d'), ('m')) u(unit)
group by 1, 2, 3, 4, 5, 6;
