-- Every figure counts a sale on the day it happened (docs/analytics.md): the event's occurredAt,
-- which a backfill or an import sets in the past, never the day its rows were written.
--
-- 1. commissions.occurred_at: the event's occurredAt, copied at accrual (as attributions carry it
--    since 0023). Existing rows get it in one set-based pass (a hash join of the two tables, not a
--    lookup per row), made before any index on the column exists so the pass maintains none of
--    them; the column is not indexed by anything older, so most updates stay on their page (HOT).
alter table commissions add column occurred_at timestamptz;
update commissions c set occurred_at = e.occurred_at from events e where e.id = c.event_id;
alter table commissions alter column occurred_at set not null;
-- accrual writes it; a row inserted without it (an import, a fixture) takes its event's
create function partnerd_commission_occurred_at() returns trigger language plpgsql as $$
begin
  if new.occurred_at is null then
    select e.occurred_at into new.occurred_at from events e where e.id = new.event_id;
  end if;
  return new;
end $$;
create trigger commissions_occurred_at before insert on commissions
  for each row when (new.occurred_at is null) execute function partnerd_commission_occurred_at();

-- A partner's and a campaign's commissions of a range, by sale date, read from the index alone.
-- The campaign one replaces commissions_campaign (on created_at, which no report reads any more),
-- so a commission write maintains one index more than before, not two.
create index commissions_partner_occurred on commissions (partner_id, occurred_at) include (currency, status, amount);
create index commissions_campaign_occurred on commissions (campaign_id, occurred_at) include (partner_id, currency, status, amount);
drop index commissions_campaign;

-- 2. Filtered clicks (bot_click, click_flood: kept, never credited) are counted apart: a partial
--    index of only them, so credited clicks = all clicks (the existing index-only counts) minus these.
create index clicks_filtered on clicks (created_at) include (partner_id, link_id) where uncredited_reason is not null;

-- 3. A conversion is a customer's first sale: the event whose occurredAt started its referral.
--    Converted clicks (the numerator of the conversion rate) are the clicks that are a referral's touch.
create index referrals_started on referrals (started_at);
create index referral_touches_click on referral_touches (click_id) include (partner_id, campaign_id) where click_id is not null;
