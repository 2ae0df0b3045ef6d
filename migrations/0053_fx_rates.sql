-- Daily exchange rates for the reporting currency (DESIGN.md "Analytics that stay fast as data
-- grows"): one row per day, base and quote, "1 base = rate quote", from PUT /v1/fx-rates or the
-- FX_RATES_URL job (the ECB's daily reference rates). Only reports read them: money owed and paid
-- never converts. A day without rates uses the latest earlier day's (the ECB publishes on working days).
create table fx_rates (
  day         date not null,
  base        text not null check (base ~ '^[A-Z]{3}$'),
  quote       text not null check (quote ~ '^[A-Z]{3}$' and quote <> base),
  rate        numeric not null check (rate > 0),
  source      text not null check (source in ('api', 'url')),
  updated_at  timestamptz not null default now(),
  primary key (day, base, quote)
);
-- the rate of a currency on or before a day, whatever the base
create index fx_rates_quote on fx_rates (quote, day desc);
