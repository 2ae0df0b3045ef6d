-- Imports (issue 30): faster rollup triggers, and the admin page's checked uploads.
--
-- 1. The rollup triggers of attributions and commissions (0049) asked partnerd_attribution_link()
--    once per row. A scalar SQL function holding subqueries is never inlined, so every call started
--    its own executor over the partitioned clicks table (locking all of its partitions): about 0.7 ms
--    a row, 80-90% of a bulk write's time (an import's 30,000 commissions: 40 s in the attributions
--    trigger, 33 s in the commissions one). The same lookup as a set-returning SQL function is
--    inlined into the trigger's statement and planned once with it; the figures are the same.
create function partnerd_attribution_links(u text, click text) returns table (link_id text) language sql stable parallel safe as $$
  select coalesce(
    (select t.link_id from referral_touches t where t.user_id = u and t.click_id = click and t.link_id is not null limit 1),
    (select k.link_id from clicks k where k.id = click))
$$;

create or replace function partnerd_rollup_attributions() returns trigger language plpgsql as $$
begin
  with x as materialized (
    select n.id, n.event_id, n.user_id, n.occurred_at, (n.occurred_at at time zone 'UTC')::date as day, e.type, e.amount, e.currency,
      exists (select 1 from referrals r where r.user_id = n.user_id and r.started_at = n.occurred_at) as first,
      g.partner_id as gp, g.campaign_id as gc, g.link_id as gl
    from new_attributions n
    join events e on e.id = n.event_id
    cross join lateral partnerd_attribution_links(n.user_id, n.click_id) l
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
        and (x.gl = '' or exists (select 1 from partnerd_attribution_links(a.user_id, a.click_id) l where l.link_id = x.gl)))
    order by x.gp, x.gc, x.gl, x.event_id
  ),
  customer as (
    select distinct on (x.gp, x.gc, x.gl, x.user_id) x.* from x
    where x.first and not exists (
      select 1 from events e join attributions a on a.event_id = e.id
      where e.user_id = x.user_id and e.occurred_at = x.occurred_at
        and not exists (select 1 from new_attributions m where m.id = a.id)
        and (x.gp = '' or a.partner_id = x.gp) and (x.gc = '' or a.campaign_id = x.gc)
        and (x.gl = '' or exists (select 1 from partnerd_attribution_links(a.user_id, a.click_id) l where l.link_id = x.gl)))
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
  cross join lateral partnerd_attribution_links(a.user_id, a.click_id) l
  cross join lateral partnerd_rollup_grains(c.partner_id, c.campaign_id, l.link_id, true) g
  -- (a row from before migration 0033 has no sale time to count on)
  where c.occurred_at is not null
  group by 1, 2, 3, 4, 5
$$;

-- 2. The admin import page's checked export (issue 30): after a dry run the uploaded files wait here,
-- under a random token bound to the admin's session, so "Import now" posts only the token and works
-- without JavaScript (no file chosen again). One waiting upload per session (a new dry run replaces
-- it), gone once imported, expired after an hour (swept whenever an upload is stored or confirmed).
create table import_uploads (
  token_hash   text not null,              -- sha256 of the token the confirm form posts
  session_hash text not null,              -- sha256 of the admin session it belongs to
  source       text not null,
  name         text not null,              -- the export file's name (affiliates.csv, ...)
  body         bytea not null,
  expires_at   timestamptz not null,
  primary key (token_hash, name)
);
create index import_uploads_session on import_uploads (session_hash);
create index import_uploads_expires on import_uploads (expires_at);
