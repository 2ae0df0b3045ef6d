-- Partner resources (DESIGN.md "Partner enablement"): files (png, jpeg, gif, webp, pdf, zip),
-- approved copy (text, `{{link}}` filled in with each partner's own link) and links, for one
-- campaign or for everyone (campaign_id null). A file's bytes live in resource_blobs (PostgreSQL,
-- the default, so replicas share them) or in S3-compatible storage under storage_key (S3_URL).

create table resources (
  id            text primary key,
  kind          text not null check (kind in ('file', 'text', 'link')),
  title         text not null check (char_length(title) between 1 and 200),
  campaign_id   text references campaigns (id),
  body          text check (char_length(body) <= 20000),
  url           text check (char_length(url) <= 2048),
  file_name     text check (char_length(file_name) <= 255),
  content_type  text,
  size_bytes    integer check (size_bytes between 1 and 10485760),
  -- SHA-256 of the bytes: the download's ETag
  sha256        text,
  storage       text check (storage in ('postgres', 's3')),
  storage_key   text,
  created_at    timestamptz not null generated always as (partnerd_id_time(id)) stored,
  constraint resources_kind_fields check (
    (kind = 'file' and file_name is not null and content_type is not null and size_bytes is not null and sha256 is not null and storage is not null and storage_key is not null and body is null and url is null)
    or (kind = 'text' and body is not null and url is null and storage is null)
    or (kind = 'link' and url is not null and storage is null)
  )
);
create index resources_campaign on resources (campaign_id, id desc);

create table resource_blobs (
  resource_id  text primary key references resources (id) on delete cascade,
  data         bytea not null
);
