-- The commission currencies (the admin pages' "Money in" choice) are read by a loose index scan of
-- commissions_currency (0017). A paid commission is in its payout's currency, so the currencies of
-- paid commissions are the payouts' currencies: the index leaves paid commissions out and the read
-- adds the payouts', from their own small index. A payout run's update of each commission then
-- writes one index entry fewer.
drop index commissions_currency;
create index commissions_currency on commissions (currency) where status <> 'paid';
create index payouts_currency on payouts (currency);
