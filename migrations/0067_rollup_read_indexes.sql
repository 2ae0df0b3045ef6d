-- Indexes for the rollup reads that sum many rows of a year (bench/dashboard.ts at 5,000 partners).
--
-- A year to today reads month rows and a few day rows (rollupPieces in src/modules/reports/figures.ts):
-- - month rows, by campaign ('' for the program and the partner grain) and month, covering what the
--   lists sum, so the top partners, the partners list and a campaign's partners and links read them
--   from the index alone;
-- - a partner's day rows across every partner (the top partners, the partners list), which no index
--   led to: partner_id leads the primary key, so these views read every row of the table.
-- Built plainly inside the migration: writers never wait for it (they write rollup_deltas); only the
-- fold of the deltas does, for the time of the build.

create index rollups_month_rows on rollups (campaign_id, day, partner_id, link_id, currency)
  include (clicks, filtered, converted, leads, customers, sales, revenue, accrued, approved, paid, reversed, earned)
  where unit = 'm';

create index rollups_partner_days on rollups (day, partner_id) where unit = 'd' and campaign_id = '' and link_id = '';
