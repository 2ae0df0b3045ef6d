-- The dashboards sum the commissions and attributions of a period's events: each event's rows are
-- found by event_id, and with these columns in the index that is an index-only probe per event
-- instead of a pass over every commission. They replace the plain event_id indexes, so a write
-- maintains as many indexes as before.
create index commissions_event_cover on commissions (event_id) include (partner_id, status, currency, amount);
drop index commissions_event;
alter index commissions_event_cover rename to commissions_event;

create index attributions_event_cover on attributions (event_id) include (partner_id);
drop index attributions_event;
alter index attributions_event_cover rename to attributions_event;
