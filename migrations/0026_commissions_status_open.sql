-- The status index only serves work still to do: the payout run (approved, by partner and currency),
-- the holdback job and the overview's count (accrued). Paid and reversed commissions, nearly all of
-- them in time, are read by partner, event or campaign instead. Keeping them out of this index
-- means a payout run's update of each commission writes one index entry fewer (the update cannot
-- be HOT: status and payout_id are indexed), and the index stays the size of the open work.
drop index commissions_status;
create index commissions_status on commissions (status, partner_id, currency) where status in ('accrued', 'approved');
