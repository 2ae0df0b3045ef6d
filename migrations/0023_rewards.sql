-- Rewards beyond one rule list (DESIGN.md): partner groups, the rule source of each commission,
-- performance tiers, two-tier (recruiter) overrides.

-- A group's rules sit between a partner's snapshot and the campaign's rules; a rule may name a
-- campaign (rule.campaignId) or apply in every campaign.
create table partner_groups (
  id             text primary key,
  name           text not null,
  rules          jsonb not null default '[]'::jsonb,
  holdback_days  integer check (holdback_days between 0 and 3650),
  created_at     timestamptz not null default now(),
  updated_at     timestamptz not null default now()
);

-- at most one group per partner; the recruiter who brought the partner (one level only)
alter table partners
  add column group_id text references partner_groups (id),
  add column referred_by text references partners (id) check (referred_by <> id);
create index partners_group on partners (group_id, id desc) where group_id is not null;
create index partners_referred_by on partners (referred_by, id desc) where referred_by is not null;

-- percent of each recruit commission its recruiter earns; null: off
alter table campaigns add column recruiter_percent numeric(7, 4) check (recruiter_percent > 0 and recruiter_percent <= 100);

-- Which level's rules paid the commission. An override (eventType recruit_override) is the
-- recruiter's commission on `source_commission_id`; it shares that commission's event and
-- attribution, so an attribution may now carry two commissions (never two direct ones).
alter table commissions
  add column rule_source text check (rule_source in ('snapshot', 'group', 'campaign')),
  add column source_commission_id text references commissions (id);
update commissions c set rule_source = case
  when exists (select 1 from partner_commission_snapshots s where s.partner_id = c.partner_id) then 'snapshot' else 'campaign' end;
-- accrual always names it; rows written by other means (fixtures, imports) read as the campaign's
alter table commissions alter column rule_source set not null, alter column rule_source set default 'campaign';
alter table commissions drop constraint commissions_attribution_id_key;
create unique index commissions_attribution on commissions (attribution_id) where source_commission_id is null;
create unique index commissions_source on commissions (source_commission_id) where source_commission_id is not null;

-- Tiers measure a partner's trailing period in a campaign as of the event's occurredAt (not its
-- arrival): attributions carry it, indexed for that one query per accrual.
-- The level whose rule matched the touch (null: none did), shown in the attribution result.
alter table attributions add column occurred_at timestamptz,
  add column rule_source text check (rule_source in ('snapshot', 'group', 'campaign'));
update attributions a set rule_source = c.rule_source from commissions c where c.attribution_id = a.id;
update attributions a set occurred_at = e.occurred_at from events e where e.id = a.event_id;
alter table attributions alter column occurred_at set not null;
-- accrual writes it; a row inserted without it (an import, a fixture) takes its event's
create function partnerd_attribution_occurred_at() returns trigger language plpgsql as $$
begin
  if new.occurred_at is null then
    select e.occurred_at into new.occurred_at from events e where e.id = new.event_id;
  end if;
  return new;
end $$;
create trigger attributions_occurred_at before insert on attributions
  for each row when (new.occurred_at is null) execute function partnerd_attribution_occurred_at();
create index attributions_partner_campaign on attributions (partner_id, campaign_id, occurred_at) include (event_id);
-- new referred customers of a partner in a campaign
create index referral_touches_partner_campaign on referral_touches (partner_id, campaign_id) include (user_id);
-- the rule preview replays a campaign's recent events
create index attributions_campaign_occurred on attributions (campaign_id, occurred_at);
