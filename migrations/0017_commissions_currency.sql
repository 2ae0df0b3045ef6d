-- The currencies commissions exist in, read by the admin partner pages on every view (their "Money
-- in" choice). With this index the distinct currencies are a handful of index probes (a loose index
-- scan, src/modules/reports/partners.ts) instead of a scan of every commission.
create index commissions_currency on commissions (currency);
