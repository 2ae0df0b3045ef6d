-- What the redirect path needs beyond 0002: the IP-hash salt, case-insensitive slug uniqueness,
-- and notifications that keep every replica's link cache in step with the database.

-- Per-install secret mixed into click IP hashes (two random UUIDs: 244 random bits).
alter table settings
  add column click_salt text not null default replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', '');

-- Slugs are matched case-insensitively at /r/:slug, so two may not differ only by case.
create unique index links_slug_lower on links (lower(slug));

-- LISTEN partnerd_link_cache: `link:<slug>`, `partner:<id>`, `campaign:<id>` when a cached fact changes.
create function partnerd_notify_link_cache() returns trigger language plpgsql as $$
begin
  if tg_table_name = 'links' then
    if tg_op in ('UPDATE', 'DELETE') then
      perform pg_notify('partnerd_link_cache', 'link:' || old.slug);
    end if;
    if tg_op in ('INSERT', 'UPDATE') then
      perform pg_notify('partnerd_link_cache', 'link:' || new.slug);
    end if;
  elsif tg_table_name = 'partners' then
    perform pg_notify('partnerd_link_cache', 'partner:' || new.id);
  else
    perform pg_notify('partnerd_link_cache', 'campaign:' || new.id);
  end if;
  return null;
end
$$;

create trigger links_notify_link_cache
  after insert or update or delete on links
  for each row execute function partnerd_notify_link_cache();

create trigger partners_notify_link_cache
  after update of revoked_at on partners
  for each row when (old.revoked_at is distinct from new.revoked_at)
  execute function partnerd_notify_link_cache();

create trigger campaigns_notify_link_cache
  after update of destination_url on campaigns
  for each row when (old.destination_url is distinct from new.destination_url)
  execute function partnerd_notify_link_cache();
