-- The admin overview: when its setup checklist was dismissed (null: shown until every step is done),
-- and an index for its date ranges. Conversions, revenue and commissions are counted by when the
-- sale happened (events.occurred_at, which a backfilled or late provider event sets in the past),
-- not by when the row was written.

alter table settings add column onboarding_dismissed_at timestamptz;

create index events_occurred_at on events (occurred_at);
