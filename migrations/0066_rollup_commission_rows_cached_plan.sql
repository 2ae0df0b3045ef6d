-- The commissions trigger's delta rows (partnerd_rollup_commission_rows, migration 0060) as PL/pgSQL.
--
-- As a SQL-language function called from the trigger it was planned again on every call: each
-- commission written or changed paid the planning of its link lookup over every partition of
-- clicks (about 1 ms, more under load; most of the rollups' cost on `POST /v1/events`). PL/pgSQL
-- keeps the plan for the session's connection, as the trigger functions themselves already do.
-- The statement is the same.

create or replace function partnerd_rollup_commission_rows(rows jsonb, sign int) returns void language plpgsql as $$
begin
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
  group by 1, 2, 3, 4, 5;
end $$;
