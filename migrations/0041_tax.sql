-- Tax forms, 1099-NEC export and self-billing invoices (docs/tax.md).

-- taxForms: off | collect (the portal asks for a form) | require (payouts wait for a valid form).
-- legal_name, legal_address, vat_id: the program's details printed on self-billing invoices.
alter table settings
  add column tax_forms     text not null default 'off' check (tax_forms in ('off', 'collect', 'require')),
  add column legal_name    text,
  add column legal_address text,
  add column vat_id        text;

-- A partner's tax form on file (one; a new one replaces it). TINs and dates of birth are sealed by
-- the service (AES-256-GCM under ENCRYPTION_KEY, src/lib/secrets.ts) before they reach this table.
create table tax_profiles (
  partner_id            text primary key references partners (id),
  form                  text not null check (form in ('w9', 'w8ben', 'w8bene')),
  legal_name            text not null,
  business_name         text,                 -- w9
  tax_classification    text,                 -- w9
  address               jsonb not null,       -- {line1, line2?, city, region, postalCode, country}
  tin_type              text check (tin_type in ('ssn', 'ein')),
  tin_sealed            text,                 -- w9: the SSN or EIN, sealed
  tin_last4             text,                 -- w9: what the pages and API show
  citizenship           text,                 -- w8ben, ISO 3166 alpha-2
  date_of_birth_sealed  text,                 -- w8ben, sealed
  treaty_country        text,                 -- w8ben
  incorporation_country text,                 -- w8bene
  foreign_tin_sealed    text,                 -- w8ben, w8bene: the tax id at home, sealed
  vat_id                text,
  signature_name        text not null,
  signed_at             timestamptz not null default now(),
  signed_ip             text,
  check ((form = 'w9') = (tin_sealed is not null and tin_type is not null and tin_last4 is not null)),
  check ((form = 'w8ben') = (date_of_birth_sealed is not null))
);

-- Whether a form on file is valid now: a W-9 until replaced; a W-8BEN or W-8BEN-E until the end of
-- the third calendar year after the year it was signed (the IRS's rule). The run, its preview and
-- the pages read it from here.
create function tax_form_valid(form text, signed_at timestamptz) returns boolean
language sql stable as $$
  select form = 'w9' or signed_at >= date_trunc('year', now() at time zone 'UTC') at time zone 'UTC' - interval '3 years'
$$;

-- Self-billing invoices: a payout is numbered when it becomes paid, from one counter row per year,
-- taken FOR UPDATE (by the upsert) in the transaction that marks it paid: numbers are gapless per
-- year whatever replica pays, and a rolled-back payment gives its number back.
create table invoice_counters (
  year        integer primary key,
  last_number integer not null check (last_number > 0)
);
alter table payouts add column invoice_number text unique;
