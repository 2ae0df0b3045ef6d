-- A partner's money day rows, covering the money the lists sum (issue 31: the partners list by money
-- and the top partners at 5,000 partners).
--
-- 0067's index of the partner grain's day rows leads to them but holds nothing else, so every day
-- row a 12-month money read takes (the days at the range's start, today's rows taken out of this
-- month's row) was fetched from the table, one random page each: 60 ms of the partners list's 220 ms
-- money read on bench/dashboard.ts's full scale. This one holds the money rows only (currency <> ''),
-- so a click's fold, which changes count rows, never writes to it. Built plainly, as 0067's: writers
-- never wait for it (they write rollup_deltas); only the fold does, for the time of the build.

create index rollups_partner_days_money on rollups (day, partner_id, currency)
  include (revenue, accrued, approved, paid)
  where unit = 'd' and campaign_id = '' and link_id = '' and currency <> '';
