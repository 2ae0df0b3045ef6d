-- Clicks are the hottest write of the service (one row per share-link visit, written in batches).
-- Their link, partner and campaign are copied from a link that exists when the click is made, and
-- links, partners and campaigns are never deleted, so the three foreign keys only re-checked what
-- cannot be otherwise; they doubled the cost of each insert (bench/README.md). Dropped.

alter table clicks
  drop constraint clicks_link_id_fkey,
  drop constraint clicks_partner_id_fkey,
  drop constraint clicks_campaign_id_fkey;
