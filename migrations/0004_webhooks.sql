-- Webhooks: test sends are stored like real envelopes (every attempt is in the delivery log) but
-- marked, so that nothing reading the outbox mistakes a sample payload for something that happened.
alter table webhook_events add column synthetic boolean not null default false;

-- The delivery log is read per endpoint, newest first, optionally by status or event type.
create index webhook_deliveries_endpoint_status on webhook_deliveries (endpoint_id, status, id desc);
