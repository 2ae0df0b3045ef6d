-- `<prefix>_<10 base32 chars of epoch ms><16 chars>`: the id shape of src/lib/ids.ts for time `at`,
-- for bench/dashboard-seed.sql and dashboard-today.sql (psql includes it: `\ir`)
create function pg_temp.bench_id(prefix text, at timestamptz, n bigint) returns text language sql immutable as $$
  select prefix || '_' ||
    (select string_agg(substr('0123456789abcdefghjkmnpqrstvwxyz', (((extract(epoch from at) * 1000)::bigint >> (5 * (9 - i))) & 31)::int + 1, 1), '' order by i)
     from generate_series(0, 9) i) ||
    lpad(n::text, 16, '0')
$$;
