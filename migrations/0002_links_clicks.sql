-- Share links, the clicks they record, and the identities that join users to clicks.

create table links (
  id           text primary key,
  slug         text not null unique,
  partner_id   text not null references partners (id),
  campaign_id  text not null references campaigns (id),
  created_at   timestamptz not null default now()
);
create index links_partner on links (partner_id, id desc);
create index links_campaign on links (campaign_id);

-- Written in batches by the click buffer; partner and campaign are copied from the link at click time.
create table clicks (
  id           text primary key,
  link_id      text not null references links (id),
  partner_id   text not null references partners (id),
  campaign_id  text not null references campaigns (id),
  ip_hash      text,
  user_agent   text,
  referrer     text,
  created_at   timestamptz not null
);
create index clicks_link on clicks (link_id, created_at);
create index clicks_partner on clicks (partner_id, created_at);

-- A user id the operator's front end identified (the join key of SPEC section 2).
create table identities (
  user_id     text primary key,
  created_at  timestamptz not null default now(),
  updated_at  timestamptz not null default now()
);

-- Which clicks an identified user arrived through. No foreign key to clicks: identify may name a
-- click still in the redirect's write buffer (durable within a second); attribution joins them.
create table identity_clicks (
  user_id     text not null references identities (user_id) on delete cascade,
  click_id    text not null,
  created_at  timestamptz not null default now(),
  primary key (user_id, click_id)
);
create index identity_clicks_click on identity_clicks (click_id);
