-- Direct commissions that were reversed, by attribution: the tier measure leaves their events out of
-- a partner's revenue, and the rule preview reads them for every touch it replays (a few rows
-- instead of a scan of every commission).
create index commissions_reversed on commissions (attribution_id) where status = 'reversed' and source_commission_id is null;
