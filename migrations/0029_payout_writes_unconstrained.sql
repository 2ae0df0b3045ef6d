-- A payout run writes, per commission paid, a payout link, a transition row, an envelope and its
-- deliveries; the foreign keys on those rows were checked once per row each (together a quarter of
-- a batch's time, bench/payouts.md), and three of them only re-checked what the writers guarantee:
-- - commissions.payout_id is set only by the payout run, to a payout inserted by the same statement,
--   and cleared when a payout fails; payouts are never deleted.
-- - commission_transitions.commission_id is written only in the transaction that inserts that
--   commission or updates it (its row locked or just written); commissions are never deleted.
-- - webhook_deliveries.event_id is written in the transaction that inserts the envelope, or copied
--   from an existing delivery (retry, redelivery); envelopes are never deleted.
-- The endpoint key of a delivery stays: deleting an endpoint for good removes its deliveries by it.
alter table commissions drop constraint commissions_payout_id_fkey;
alter table commission_transitions drop constraint commission_transitions_commission_id_fkey;
alter table webhook_deliveries drop constraint webhook_deliveries_event_id_fkey;
