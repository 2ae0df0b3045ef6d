-- A full day of traffic dated today, for bench/dashboard.ts's FILL_TODAY=1: the views' worst case is
-- the end of a UTC day, when "today" (read from the rows) holds a whole day. The seed spreads its year
-- up to the moment it ran, so a database seeded yesterday has next to nothing today; this adds what
-- a day of the seed holds (:clicks / 365 clicks, :events / 365 sales), spread over today's 1,440
-- minutes, later ones included. The sales are renewals of seeded customers on their referral's
-- link: attributed, with an accrued commission. Written with the rollup triggers on: their deltas
-- are folded after, as the scheduler would.

\ir dashboard-ids.sql

create temp table bench_links as select row_number() over (order by id) - 1 as n, id, partner_id, campaign_id from links;
create temp table bench_today as
select m, substr(pg_temp.bench_id('x', date_trunc('day', now() at time zone 'UTC') at time zone 'UTC' + m * interval '1 minute', 0), 3, 10) as stamp
from generate_series(0, 1439) m;

insert into clicks (id, link_id, partner_id, campaign_id, ip_hash, user_agent, uncredited_reason, sub_id, country, device, browser, referrer_domain)
select 'clk_' || b.stamp || lpad((7000000000 + k)::text, 16, '0'), l.id, l.partner_id, l.campaign_id, 'h', 'bench',
       case when k % 20 = 0 then 'bot_click' end, case when k % 2 = 0 then 'sub' || (k / 7 % 4) end,
       (array['US','US','US','DE','GB','FR','IN','BR','CA','JP','AU','ES', null])[1 + k * 7 % 13],
       (array['desktop','mobile','mobile','tablet'])[1 + k * 3 % 4],
       (array['Chrome','Chrome','Safari','Safari','Firefox','Edge','Samsung Internet','Opera'])[1 + k * 5 % 8],
       case when k % 3 <> 0 then 'site' || (k * 11 % 300) || '.example' end
from generate_series(0, :clicks / 365 - 1) k
join bench_today b on b.m = (k::bigint * 1440 / (:clicks / 365))
join bench_links l on l.n = (k * 2654435761) % (select count(*) from links)
order by 1;

create temp table bench_sales as
select pg_temp.bench_id('evt', t, 7000000000 + s) as id, r.user_id, r.click_id, r.partner_id, r.campaign_id, 1000 + (s % 9000) as amount, t
from generate_series(1, :events / 365) s
cross join lateral (select date_trunc('day', now() at time zone 'UTC') at time zone 'UTC' + (s::double precision / (:events / 365 + 1)) * interval '1 day' as t) x
join referral_touches r on r.user_id = format('u%s', (s::bigint * 7919) % (:events / 3)) and r.position = 0;

insert into events (id, user_id, type, amount, currency, occurred_at, attribution_status, attribution_model)
select id, user_id, 'invoice_paid', amount, 'USD', t, 'attributed', 'last_click' from bench_sales;

insert into attributions (id, event_id, user_id, click_id, partner_id, campaign_id, model, weight, occurred_at)
select pg_temp.bench_id('att', s.t, 7000000000 + row_number() over ()), s.id, s.user_id, s.click_id, s.partner_id, s.campaign_id, 'last_click', 1, s.t
from bench_sales s;

insert into commissions (id, attribution_id, event_id, partner_id, campaign_id, user_id, occurred_at, amount, currency, event_type, event_value, status, holdback_days)
select pg_temp.bench_id('com', a.created_at, 7000000000 + row_number() over ()), a.id, a.event_id, a.partner_id, a.campaign_id, a.user_id, a.occurred_at,
       s.amount / 5, 'USD', 'invoice_paid', s.amount, 'accrued', 30
from attributions a join bench_sales s on s.id = a.event_id;
