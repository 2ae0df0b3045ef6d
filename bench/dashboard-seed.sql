-- Seed for bench/dashboard.ts: a program a year old. :partners partners over 5 campaigns, 5 links
-- each (one in each campaign, which it holds), :clicks clicks and :events conversion events spread
-- over 365 days; 60% of the events are attributed (one touch, one commission, in every status); each
-- customer's referral touch is a click of an hour before its first sale (a converted click), which
-- its attributions name.
-- Ids are minted for their moment, so the generated created_at columns fall where a real year of
-- traffic would put them.

-- pg_temp.bench_id(prefix, at, n): an id minted for its moment, as src/lib/ids.ts mints them
\ir dashboard-ids.sql

insert into campaigns (id, name, destination_url, currency, rules)
select pg_temp.bench_id('cmp', now() - interval '400 days', c), format('Campaign %s', c), 'https://shop.example.com/', 'USD',
       '[{"eventType":"invoice_paid","kind":"percent","percent":20}]'
from generate_series(0, 4) c;

insert into partners (id, email, name, activated_at)
select pg_temp.bench_id('ptn', now() - interval '390 days' + (p % 300) * interval '1 day', p), format('p%s@example.com', p), format('Partner %s', p), now() - interval '300 days'
from generate_series(0, :partners - 1) p;

create temp table bench_partners as select row_number() over (order by id) - 1 as n, id from partners;
create temp table bench_campaigns as select row_number() over (order by id) - 1 as n, id from campaigns;

insert into links (id, slug, partner_id, campaign_id)
select pg_temp.bench_id('lnk', now() - interval '380 days', l), format('l-%s', l), p.id, c.id
from generate_series(0, :partners * 5 - 1) l
join bench_partners p on p.n = l / 5
join bench_campaigns c on c.n = l % 5;

create temp table bench_links as select row_number() over (order by id) - 1 as n, id, partner_id, campaign_id from links;

-- every partner holds the campaigns of its links (a campaign page lists its 5,000 partners)
insert into partner_campaigns (partner_id, campaign_id, created_at)
select distinct partner_id, campaign_id, now() - interval '380 days' from links;

-- clicks: uniform over the year, link chosen by a multiplicative hash so partners differ
-- (one in 20 filtered as a bot: kept, never credited). At 20M rows the id is built from a table of
-- the year's minutes (its time part computed once per minute, not per click): a click's time is
-- its minute. They go through the partitioned parent into the months' partitions, and its rollup
-- trigger writes their deltas in this one statement, as it would for a batch of the redirect's.
create temp table bench_minutes as
select m, substr(pg_temp.bench_id('x', now() - interval '365 days' + m * interval '1 minute', 0), 3, 10) as stamp
from generate_series(0, 525599) m;
create unique index on bench_minutes (m);
analyze bench_minutes;

insert into clicks (id, link_id, partner_id, campaign_id, ip_hash, user_agent, uncredited_reason, sub_id, country, device, browser, referrer_domain)
select 'clk_' || b.stamp || lpad(k::text, 16, '0'), l.id, l.partner_id, l.campaign_id, 'h', 'bench',
       case when k % 20 = 0 then 'bot_click' end,
       -- what the breakdowns count: half the clicks with one of a partner's 4 sub-IDs, 12 countries
       -- (one in 13 unknown), 3 devices, 6 browsers, 300 referrer domains (a third without a referrer)
       case when k % 2 = 0 then 'sub' || (k / 7 % 4) end,
       (array['US','US','US','DE','GB','FR','IN','BR','CA','JP','AU','ES', null])[1 + k * 7 % 13],
       (array['desktop','mobile','mobile','tablet'])[1 + k * 3 % 4],
       (array['Chrome','Chrome','Safari','Safari','Firefox','Edge','Samsung Internet','Opera'])[1 + k * 5 % 8],
       case when k % 3 <> 0 then 'site' || (k * 11 % 300) || '.example' end
from generate_series(0, :clicks - 1) k
join bench_minutes b on b.m = (k::bigint * 525600 / :clicks)
join bench_links l on l.n = (k * 2654435761) % (:partners * 5)
-- in the order of their ids, as the redirect writes them: a day's clicks lie together in its partition
order by 1;

insert into events (id, user_id, type, amount, currency, occurred_at, attribution_status, attribution_model)
select pg_temp.bench_id('evt', t, e), format('u%s', e % (:events / 3)), case when e % 4 = 0 then 'signup' else 'invoice_paid' end,
       case when e % 4 = 0 then null else 1000 + (e % 9000) end, case when e % 4 = 0 then null else 'USD' end,
       t, case when e % 5 < 3 then 'attributed' else 'no_click' end, case when e % 5 < 3 then 'last_click' end
from generate_series(1, :events) e, lateral (select now() - (e::double precision / :events) * interval '365 days' as t) x;

-- each customer's referral: one touch, a click of an hour before its first sale on the link the
-- customer's hash picks; that click is recorded too (a converted click), and the customer's
-- attributions name it, so a sale reaches its link's rollups as it would in the product
insert into referrals (user_id, model, started_at)
select user_id, 'last_click', min(occurred_at) from events where attribution_status = 'attributed' group by user_id;

create temp table bench_touches as
select r.user_id, pg_temp.bench_id('clk', r.started_at - interval '1 hour', 9000000000 + row_number() over ()) as click_id, l.id as link_id, l.partner_id, l.campaign_id
from referrals r join bench_links l on l.n = (hashtext(r.user_id)::bigint & 2147483647) % (:partners * 5);

insert into clicks (id, link_id, partner_id, campaign_id, ip_hash, user_agent, country, device, browser)
select click_id, link_id, partner_id, campaign_id, 'h', 'bench', 'US', 'desktop', 'Chrome' from bench_touches;

insert into referral_touches (user_id, position, click_id, partner_id, campaign_id, weight_num, weight_den)
select user_id, 0, click_id, partner_id, campaign_id, 1, 1 from bench_touches;

insert into attributions (id, event_id, user_id, click_id, partner_id, campaign_id, model, weight, occurred_at)
select pg_temp.bench_id('att', e.created_at, row_number() over ()), e.id, e.user_id, t.click_id, t.partner_id, t.campaign_id, 'last_click', 1, e.occurred_at
from events e
join bench_touches t on t.user_id = e.user_id
where e.attribution_status = 'attributed';

insert into commissions (id, attribution_id, event_id, partner_id, campaign_id, user_id, occurred_at, amount, currency, event_type, event_value, status, holdback_days, approved_at, paid_at, reversed_at)
select pg_temp.bench_id('com', a.created_at, row_number() over ()), a.id, e.id, a.partner_id, a.campaign_id, e.user_id, e.occurred_at,
       coalesce(e.amount, 0) / 5, 'USD', e.type, e.amount, s.status, 30,
       case when s.status in ('approved', 'paid') then a.created_at + interval '30 days' end,
       case when s.status = 'paid' then a.created_at + interval '35 days' end,
       case when s.status = 'reversed' then a.created_at + interval '3 days' end
from attributions a
join events e on e.id = a.event_id,
lateral (select case
  when a.created_at > now() - interval '30 days' then (case when hashtext(a.id) % 10 = 0 then 'reversed' else 'accrued' end)
  when hashtext(a.id) % 10 = 0 then 'reversed'
  when a.created_at > now() - interval '60 days' then 'approved'
  else 'paid' end as status) s;

vacuum analyze;
