-- Partner portal (issue 12): deep links and the partner's own payout details.

-- A link may land on its own page of the campaign's site (a deep link, with the builder's UTM
-- parameters baked in); null lands on the campaign's destination as before. The API checks that it
-- is http(s) on the campaign destination's host; the redirect reads it with the link (one query,
-- cached), so the hot path gains nothing.
alter table links add column destination_url text null
  constraint links_destination_url_length check (char_length(destination_url) <= 2048);

-- Where the partner wants payout notices and manual payouts sent, when not their sign-in email.
alter table partners add column payout_email text null
  constraint partners_payout_email_length check (char_length(payout_email) <= 254);
