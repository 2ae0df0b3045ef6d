-- A partner's money in a campaign, by month and by day (issue 31: a campaign's partners, most
-- commissions first, at 5,000 partners). The campaign page chooses its partners from these rows
-- alone (commissionLeaders in src/modules/reports/money-first.ts): a year of them for every partner
-- holding the campaign. From the indexes before, the month rows came out of 0067's covering index
-- among every link's and the count rows, and the day rows at the range's start from the table, one
-- random page each. This one holds the money rows of the partner-in-campaign grain only (currency
-- <> ''), so a click's fold never writes to it. Built plainly, as 0067's.

create index rollups_campaign_partner_money on rollups (campaign_id, unit, day, partner_id, currency)
  include (revenue, accrued, approved, paid)
  where campaign_id <> '' and partner_id <> '' and link_id = '' and currency <> '';
