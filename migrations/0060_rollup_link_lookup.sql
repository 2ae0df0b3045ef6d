-- What 0059 left of the per-row link lookup (partnerd_attribution_link(), planned afresh on every
-- call over every click partition):
-- 1. The function itself becomes PL/pgSQL, whose plans are kept for the session, for any caller
--    still using it (the readers now use 0059's inlined partnerd_attribution_links()).
-- 2. The commissions trigger hands its helper only the columns it counts, not whole rows as JSON:
--    a payout run marking 5,000 commissions paid built two 5,000-row documents of every column.

create or replace function partnerd_attribution_link(u text, click text) returns text language plpgsql stable parallel safe as $$
begin
  return coalesce(
    (select t.link_id from referral_touches t where t.user_id = u and t.click_id = click and t.link_id is not null limit 1),
    (select k.link_id from clicks k where k.id = click));
end $$;

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
