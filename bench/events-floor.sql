-- pgbench floor for POST /v1/events: the statements the pipeline runs for a recurring invoice of a
-- referred user (sticky path, one touch, one commission, two outbox envelopes), in one transaction.
\set u random(1, :users)
\set p :u % 10
\set r random(1, 9000000000000000)
BEGIN;
SELECT pg_advisory_xact_lock(hashtextextended('partnerd:user:bench-u' || :u, 0));
SELECT attribution_model, attribution_window_days FROM settings WHERE id;
SELECT 1 AS one FROM identities WHERE user_id = 'bench-u' || :u;
SELECT r.model, r.started_at, t.position, t.click_id, t.partner_id, t.campaign_id, t.weight_num, t.weight_den, p.revoked_at IS NOT NULL AS partner_revoked
  FROM referrals r JOIN referral_touches t ON t.user_id = r.user_id JOIN partners p ON p.id = t.partner_id
  WHERE r.user_id = 'bench-u' || :u ORDER BY t.position;
INSERT INTO events (id, user_id, type, amount, currency, occurred_at, metadata, idempotency_key, request_hash, source, attribution_status, attribution_model)
  VALUES ('evt_f' || :r, 'bench-u' || :u, 'invoice_paid', 4900, 'USD', now(), '{"plan":"pro"}', NULL, md5(:r::text), 'api', 'attributed', 'last_click');
SELECT id, currency, holdback_days, rules FROM campaigns WHERE id = ANY(ARRAY['cmp_bench0000000000000000000000']);
SELECT partner_id, snapshot FROM partner_commission_snapshots WHERE partner_id = ANY(ARRAY['ptn_bench' || lpad(:p::text, 21, '0')]);
INSERT INTO attributions (id, event_id, user_id, click_id, partner_id, campaign_id, model, weight)
  VALUES ('att_f' || :r, 'evt_f' || :r, 'bench-u' || :u, 'clk_bench' || lpad(:u::text, 21, '0'), 'ptn_bench' || lpad(:p::text, 21, '0'), 'cmp_bench0000000000000000000000', 'last_click', 1);
INSERT INTO commissions (id, attribution_id, event_id, partner_id, campaign_id, user_id, amount, currency, event_type, event_value, holdback_days)
  VALUES ('com_f' || :r, 'att_f' || :r, 'evt_f' || :r, 'ptn_bench' || lpad(:p::text, 21, '0'), 'cmp_bench0000000000000000000000', 'bench-u' || :u, 980, 'USD', 'invoice_paid', 4900, 30);
INSERT INTO commission_transitions (commission_id, from_status, to_status, actor) VALUES ('com_f' || :r, NULL, 'accrued', 'pipeline');
INSERT INTO webhook_events (id, type, data) VALUES ('evt_wa' || :r, 'attribution.created', '{"attributionId":"att","eventId":"evt","partnerId":"ptn","campaignId":"cmp","clickId":"clk","model":"last_click","weight":1,"eventType":"invoice_paid","eventValue":49,"commissionId":"com","commissionAmount":"9.80","commissionCurrency":"USD"}');
SELECT id FROM webhook_endpoints WHERE active AND ('attribution.created' = ANY(events) OR '*' = ANY(events)) ORDER BY id;
INSERT INTO webhook_events (id, type, data) VALUES ('evt_wc' || :r, 'commission.accrued', '{"commissionId":"com","partnerId":"ptn","attributionId":"att","campaignId":"cmp","amount":"9.80","currency":"USD","eventType":"invoice_paid","eventValue":49}');
SELECT id FROM webhook_endpoints WHERE active AND ('commission.accrued' = ANY(events) OR '*' = ANY(events)) ORDER BY id;
COMMIT;
