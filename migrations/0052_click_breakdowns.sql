-- What a click says about its visitor, worked out at click time (DESIGN.md "Analytics that stay fast
-- as data grows"): the partner's sub-ID (`?sub=` on the share link), the country of the address (the
-- address itself is never stored), the device type and browser from the user agent, and the
-- referrer's domain. Columns only, no constraints or indexes: on a table this size (and a
-- partitioned one) a check or an index would scan or lock every row; the redirect writes only values
-- it has checked (src/modules/links/traffic.ts). Older clicks keep nulls ("unknown" in reports).
alter table clicks
  add column sub_id text,
  add column country text,
  add column device text,
  add column browser text,
  add column referrer_domain text;
