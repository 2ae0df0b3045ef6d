-- The rollup triggers looked up each attribution's link through partnerd_attribution_link(), a
-- SQL function PostgreSQL does not inline here: every call was planned afresh, and since clicks is
-- partitioned by month (0051) each plan opens every partition. A payout run of 5,000 commissions
-- spent about 20 s in the commissions trigger, and every attributed event paid the same per row.
-- Now the triggers look the link up inside their own statement (planned once per statement), the
-- function itself is PL/pgSQL (its plans are kept for the session) for the readers that call it,
-- and the commissions trigger hands its helper only the columns it counts.

create or replace function partnerd_attribution_link(u text, click text) returns text language plpgsql stable parallel safe as $$
begin
  return coalesce(
    (select t.link_id from referral_touches t where t.user_id = u and t.click_id = click and t.link_id is not null limit 1),
    (select k.link_id from clicks k where k.id = click));
end $$;

create or replace function partnerd_rollup_commission_rows(rows jsonb, sign int) returns void language sql as $$
  insert into rollup_deltas (day, partner_id, campaign_id, link_id, currency, accrued, approved, paid, reversed, earned)
  select (c.occurred_at at time zone 'UTC')::date, g.partner_id, g.campaign_id, g.link_id, c.currency,
    sign * coalesce(sum(c.amount) filter (where c.status = 'accrued'), 0),
    sign * coalesce(sum(c.amount) filter (where c.status = 'approved'), 0),
    sign * coalesce(sum(c.amount) filter (where c.status = 'paid'), 0),
    sign * coalesce(sum(c.amount) filter (where c.status = 'reversed'), 0),
    sign * count(*) filter (where c.status <> 'reversed')
  from jsonb_to_recordset(rows) as c(attribution_id text, partner_id text, campaign_id text, currency text, status text, amount bigint, occurred_at timestamptz)
  join attributions a on a.id = c.attribution_id
  cross join lateral (select coalesce(
    (select t.link_id from referral_touches t where t.user_id = a.user_id and t.click_id = a.click_id and t.link_id is not null limit 1),
    (select k.link_id from clicks k where k.id = a.click_id)) as link_id) l
  cross join lateral partnerd_rollup_grains(c.partner_id, c.campaign_id, l.link_id, true) g
  -- (a row from before migration 0033 has no sale time to count on)
  where c.occurred_at is not null
  group by 1, 2, 3, 4, 5
$$;

create or replace function partnerd_rollup_commissions() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    perform partnerd_rollup_commission_rows((
      select jsonb_agg(jsonb_build_object('attribution_id', n.attribution_id, 'partner_id', n.partner_id, 'campaign_id', n.campaign_id,
        'currency', n.currency, 'status', n.status, 'amount', n.amount, 'occurred_at', n.occurred_at))
      from new_commissions n), 1);
  else
    -- only rows whose counted columns changed
    perform partnerd_rollup_commission_rows((
      select jsonb_agg(jsonb_build_object('attribution_id', o.attribution_id, 'partner_id', o.partner_id, 'campaign_id', o.campaign_id,
        'currency', o.currency, 'status', o.status, 'amount', o.amount, 'occurred_at', o.occurred_at))
      from old_commissions o join new_commissions n using (id)
      where (o.status, o.amount, o.currency, o.occurred_at) is distinct from (n.status, n.amount, n.currency, n.occurred_at)), -1);
    perform partnerd_rollup_commission_rows((
      select jsonb_agg(jsonb_build_object('attribution_id', n.attribution_id, 'partner_id', n.partner_id, 'campaign_id', n.campaign_id,
        'currency', n.currency, 'status', n.status, 'amount', n.amount, 'occurred_at', n.occurred_at))
      from old_commissions o join new_commissions n using (id)
      where (o.status, o.amount, o.currency, o.occurred_at) is distinct from (n.status, n.amount, n.currency, n.occurred_at)), 1);
  end if;
  return null;
end $$;

create or replace function partnerd_rollup_attributions() returns trigger language plpgsql as $$
begin
  with x as materialized (
    select n.id, n.event_id, n.user_id, n.occurred_at, (n.occurred_at at time zone 'UTC')::date as day, e.type, e.amount, e.currency,
      exists (select 1 from referrals r where r.user_id = n.user_id and r.started_at = n.occurred_at) as first,
      g.partner_id as gp, g.campaign_id as gc, g.link_id as gl
    from new_attributions n
    join events e on e.id = n.event_id
    cross join lateral (select coalesce(
      (select t.link_id from referral_touches t where t.user_id = n.user_id and t.click_id = n.click_id and t.link_id is not null limit 1),
      (select k.link_id from clicks k where k.id = n.click_id)) as link_id) l
    cross join lateral partnerd_rollup_grains(n.partner_id, n.campaign_id, l.link_id, false) g
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
