-- The admin campaign pages sum one campaign's conversions and commissions over a date range; these
-- indexes let those sums read only that campaign's rows of the range. (Clicks are reached through
-- the campaign's links and the existing clicks_link index, so the click write path gains nothing.)
create index attributions_campaign on attributions (campaign_id, created_at);
create index commissions_campaign on commissions (campaign_id, created_at);
