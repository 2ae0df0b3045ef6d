-- The whole program's customers count whichever of a customer's referral and first sale is written
-- first (issue 30: imported customers).
--
-- A customer is counted on the day of the sale that started its referral: an attributed event at the
-- referral's `started_at`. Until now only the referrals trigger counted the program's customers, so
-- only when the sale was written before the referral, as event intake writes them. An import writes
-- each customer's referral first (started at its first imported sale) and the sales after it, and
-- those customers were never counted. The events trigger now counts a customer too, when its
-- referral is already there and this statement holds its first attributed events at that moment
-- (every attributed event of the user at that moment is one of this statement's: counted by the
-- events that were there before otherwise). The partners', campaigns' and links' customers are the
-- attributions trigger's, which already finds the referral in either order.
create or replace function partnerd_rollup_events() returns trigger language plpgsql set jit = off as $$
begin
  insert into rollup_deltas (day, currency, sales, leads, revenue, customers)
  select (n.occurred_at at time zone 'UTC')::date, '', count(*), count(*) filter (where n.type = 'signup'), 0, 0
  from new_events n where n.attribution_status = 'attributed' group by 1
  union all
  select (n.occurred_at at time zone 'UTC')::date, n.currency, 0, 0, sum(n.amount), 0
  from new_events n where n.attribution_status = 'attributed' and n.currency is not null group by 1, 2
  union all
  select (f.occurred_at at time zone 'UTC')::date, '', 0, 0, 0, count(*)
  from (
    select n.user_id, n.occurred_at, count(*) as fresh
    from new_events n where n.attribution_status = 'attributed' group by 1, 2
  ) f
  -- by key (referrals' primary key, then events_user), whatever the statistics (0063)
  where exists (select 1 from referrals r where r.user_id = f.user_id and r.started_at = f.occurred_at offset 0)
    and (select count(*) from events e where e.user_id = f.user_id and e.occurred_at = f.occurred_at and e.attribution_status = 'attributed') = f.fresh
  group by 1;
  return null;
end $$;
