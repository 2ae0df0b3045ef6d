-- The commissions rollup trigger's insert path reads the statement's rows where they are (issue 30).
--
-- 0060 handed them to partnerd_rollup_commission_rows() as one JSON document, built and parsed again
-- on every insert statement: a tenth of an import's commissions trigger time (auto_explain, 5,000-row
-- batches). The same counts are now taken from the transition table, each commission's attribution
-- looked up by its primary key per row (a LATERAL subquery with OFFSET 0: never a hash over every
-- attribution, whatever the statistics, as 0063 explains). Updates keep the helper: they count only
-- the rows whose counted columns changed, old out and new in.
create or replace function partnerd_rollup_commissions() returns trigger language plpgsql set jit = off as $$
begin
  if tg_op = 'INSERT' then
    insert into rollup_deltas (day, partner_id, campaign_id, link_id, currency, accrued, approved, paid, reversed, earned)
    select (c.occurred_at at time zone 'UTC')::date, g.partner_id, g.campaign_id, g.link_id, c.currency,
      coalesce(sum(c.amount) filter (where c.status = 'accrued'), 0),
      coalesce(sum(c.amount) filter (where c.status = 'approved'), 0),
      coalesce(sum(c.amount) filter (where c.status = 'paid'), 0),
      coalesce(sum(c.amount) filter (where c.status = 'reversed'), 0),
      count(*) filter (where c.status <> 'reversed')
    from new_commissions c
    cross join lateral (select a.user_id, a.click_id from attributions a where a.id = c.attribution_id offset 0) a
    cross join lateral partnerd_attribution_links(a.user_id, a.click_id) l
    cross join lateral partnerd_rollup_grains(c.partner_id, c.campaign_id, l.link_id, true) g
    -- (a row from before migration 0033 has no sale time to count on)
    where c.occurred_at is not null
    group by 1, 2, 3, 4, 5;
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
