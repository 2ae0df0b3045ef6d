-- A partner's day rows, covering what the lists sum (issue 31: the partners list and the top
-- partners at 5,000 partners).
--
-- 0067's index of the partner grain's day rows led to them but held nothing else, so every day row a
-- 12-month read takes (the days at the range's start, today's rows taken out of this month's row)
-- was fetched from the table, one random page each: 60 ms of the partners list's 220 ms money read
-- on bench/dashboard.ts's full scale. Keyed by currency too and covering the sums, the same rows are
-- read from the index alone. Built plainly, as 0067's: writers never wait for it (they write
-- rollup_deltas); only the fold does, for the time of the build.

create index rollups_partner_days_covering on rollups (day, partner_id, currency)
  include (clicks, filtered, converted, leads, customers, sales, revenue, accrued, approved, paid, reversed, earned)
  where unit = 'd' and campaign_id = '' and link_id = '';
drop index rollups_partner_days;
