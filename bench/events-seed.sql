-- Seed for bench/events.sh: one campaign with a percent rule, 10 partners, and :users users who
-- clicked a partner link, were identified, and already have a referral (recurring invoices).
insert into campaigns (id, name, destination_url, currency, rules)
values ('cmp_bench0000000000000000000000', 'Bench', 'https://shop.example.com/', 'USD',
        '[{"eventType":"invoice_paid","kind":"percent","percent":20}]');
insert into partners (id, email, name, activated_at)
select format('ptn_bench%s', lpad(p::text, 21, '0')), format('bench%s@example.com', p), format('Bench %s', p), now()
from generate_series(0, 9) p;
insert into links (id, slug, partner_id, campaign_id)
select format('lnk_bench%s', lpad(p::text, 21, '0')), format('bench-%s', p), format('ptn_bench%s', lpad(p::text, 21, '0')), 'cmp_bench0000000000000000000000'
from generate_series(0, 9) p;
-- the clicks were a day ago: a click's created_at is the time in its id (10 base32 characters of
-- epoch milliseconds after the prefix), so their ids start with that day's time
select string_agg(substr('0123456789abcdefghjkmnpqrstvwxyz', ((ms >> (5 * (9 - i))) & 31)::int + 1, 1), '' order by i) as day_ago
from (select (extract(epoch from now() - interval '1 day') * 1000)::bigint as ms) t, generate_series(0, 9) i \gset
insert into clicks (id, link_id, partner_id, campaign_id, ip_hash, user_agent)
select format('clk_%sbench%s', :'day_ago', lpad(u::text, 11, '0')), format('lnk_bench%s', lpad((u % 10)::text, 21, '0')),
       format('ptn_bench%s', lpad((u % 10)::text, 21, '0')), 'cmp_bench0000000000000000000000', 'h', 'wrk'
from generate_series(1, :users) u;
insert into identities (user_id) select format('bench-u%s', u) from generate_series(1, :users) u;
insert into identity_clicks (user_id, click_id)
select format('bench-u%s', u), format('clk_%sbench%s', :'day_ago', lpad(u::text, 11, '0')) from generate_series(1, :users) u;
insert into referrals (user_id, model, started_at) select format('bench-u%s', u), 'last_click', now() - interval '1 day' from generate_series(1, :users) u;
insert into referral_touches (user_id, position, click_id, partner_id, campaign_id, weight_num, weight_den)
select format('bench-u%s', u), 0, format('clk_%sbench%s', :'day_ago', lpad(u::text, 11, '0')), format('ptn_bench%s', lpad((u % 10)::text, 21, '0')),
       'cmp_bench0000000000000000000000', 1, 1
from generate_series(1, :users) u;
analyze;
