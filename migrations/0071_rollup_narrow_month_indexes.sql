-- Two narrow indexes of month rows for the reads that choose a page first (issue 31): the campaign
-- page's links by clicks, and the partners by money (the partners list's money sorts, the overview's
-- top partners).
--
-- Those reads need one or four sums of every link or partner over a year of month rows. From 0067's
-- covering index, which holds every grain's twelve sums, they read several times the pages they use:
-- at bench/dashboard.ts's full scale about 6,000 pages (48 MB) for one campaign's links, more than
-- PostgreSQL's default shared_buffers keeps, so each view read them again from the OS. These hold only
-- what the choice needs: a campaign's links' credited clicks, and each partner's money per currency
-- (money rows only, so a click's fold never writes to it). Built plainly, as 0067's.

create index rollups_link_month_clicks on rollups (campaign_id, day, link_id) include (clicks)
  where unit = 'm' and link_id <> '' and currency = '';

create index rollups_partner_month_money on rollups (currency, day, partner_id) include (revenue, accrued, approved, paid)
  where unit = 'm' and campaign_id = '' and link_id = '' and currency <> '';
