#!/usr/bin/env bash
# Benchmark of POST /v1/events (recurring invoice of an identified, clicked, referred user; one
# campaign percent rule) with wrk, and the same SQL with pgbench as the floor, in one run.
# Needs: wrk, pgbench, psql, a PostgreSQL at BENCH_DATABASE_URL (default: the local server).
# Env: DURATION (s, default 20), CONNS (default 20 = the service's pool size), USERS (default 2000),
# BATCH (events per POST /v1/events/batch request, default 500; 0 skips that part).
# Prints a summary line with each rate as a multiple of the pgbench floor measured in this run.
set -euo pipefail
cd "$(dirname "$0")/.."
PGURL=${BENCH_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}
DB=partnerd_bench_events_$$
DBURL="${PGURL%/*}/$DB"
DURATION=${DURATION:-20}
CONNS=${CONNS:-20}
USERS=${USERS:-2000}
BATCH=${BATCH:-500}
PORT=${PORT:-3917}
THREADS=$(( CONNS < 2 ? CONNS : 2 ))
export ADMIN_KEY=sk_admin_bench000000000000000000000000000000000
export USERS BATCH
# "Requests/sec" and the 99% latency of a wrk run, from its output
rate() { awk '/Requests\/sec/ {print $2}' <<<"$1"; }
p99() { awk '$1 == "99%" {print $2}' <<<"$1"; }
# CPU seconds (user + system) used so far by the service and by its PostgreSQL backends: the cost of
# an event in CPU, which a loaded machine inflates far less than it inflates rates
cpu() {
  awk 'FNR == 1 && NR == 1 { s = $14 + $15; next } { d += $14 + $15 } END { printf "%.2f %.2f", s / 100, d / 100 }' \
    "/proc/$1/stat" $(for p in $2; do echo "/proc/$p/stat"; done) 2>/dev/null
}
events() { psql -tA "$DBURL" -c "select count(*) from events"; }

psql -q "$PGURL" -c "drop database if exists $DB" -c "create database $DB" >/dev/null

PORT=$PORT BASE_URL=http://127.0.0.1:$PORT DATABASE_URL=$DBURL ADMIN_API_KEY=$ADMIN_KEY LOG_LEVEL=${LOG_LEVEL:-warn} \
  bun run src/index.ts >/tmp/partnerd-bench-events.log 2>&1 &
SERVICE=$!
trap 'kill $SERVICE 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$PORT/readyz" >/dev/null && break; sleep 0.2; done
psql -q "$DBURL" -v users="$USERS" -f bench/events-seed.sql >/dev/null

echo "== machine"
echo "$(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "PostgreSQL: $(psql -tA "$DBURL" -c 'show server_version')"
echo "== warm-up (3 s)"
wrk -t"$THREADS" -c"$CONNS" -d3s -s bench/events.lua "http://127.0.0.1:$PORT/v1/events" >/dev/null
# statistics for the warm-up's rows, as a live database has them: without, the foreign-key checks
# keep the plans they made on empty tables (sequential scans) while the tables grow during the run
psql -q "$DBURL" -c "analyze" >/dev/null
BACKENDS=$(psql -tA "$DBURL" -c "select pid from pg_stat_activity where datname = current_database() and application_name = 'partnerd'")
echo "== wrk: POST /v1/events, $CONNS connections, ${DURATION}s, flat out"
CPU0=$(cpu "$SERVICE" "$BACKENDS"); N0=$(events)
FLAT=$(wrk -t"$THREADS" -c"$CONNS" -d"${DURATION}s" --latency -s bench/events.lua "http://127.0.0.1:$PORT/v1/events")
echo "$FLAT"
CPU1=$(cpu "$SERVICE" "$BACKENDS"); N1=$(events)
echo "== wrk: POST /v1/events paced (40 connections, each waiting 30 ms between requests: at most ~1,000 events/s)"
PACED=$(PACE_MS=30 wrk -t2 -c40 -d"${DURATION}s" --latency -s bench/events.lua "http://127.0.0.1:$PORT/v1/events")
echo "$PACED"
BATCHED=""
if [ "$BATCH" -gt 0 ] && [ "$(curl -s -o /dev/null -w '%{http_code}' -X POST -H "Authorization: Bearer $ADMIN_KEY" -H 'Content-Type: application/json' \
    -d '{"events":[{"userId":"bench-u1","type":"signup"}]}' "http://127.0.0.1:$PORT/v1/events/batch")" = 200 ]; then
  echo "== wrk: POST /v1/events/batch, $BATCH events a request, 4 connections, ${DURATION}s"
  CPU2=$(cpu "$SERVICE" "$BACKENDS"); N2=$(events)
  BATCHED=$(wrk -t2 -c4 -d"${DURATION}s" --timeout 30s --latency -s bench/events-batch.lua "http://127.0.0.1:$PORT/v1/events/batch")
  echo "$BATCHED"
  # batches wrk gave up on are still being written: wait for them, or pgbench would wait on their locks
  while :; do N3=$(events); sleep 1; [ "$(events)" = "$N3" ] && break; done
  CPU3=$(cpu "$SERVICE" "$BACKENDS"); N3=$(events)
fi
echo "== pgbench: the same SQL, one event a transaction, $CONNS clients, ${DURATION}s (the floor)"
FLOOR=$(pgbench -n -c "$CONNS" -j"$THREADS" -T "$DURATION" -D users="$USERS" -f bench/events-floor.sql "$DBURL" 2>&1 | grep -E 'tps|latency|transactions')
echo "$FLOOR"
TPS=$(awk '/^tps/ {print $3; exit}' <<<"$FLOOR")
echo "== summary (load now: $(cut -d' ' -f1-3 /proc/loadavg))"
awk -v flat="$(rate "$FLAT")" -v flatp99="$(p99 "$FLAT")" -v paced="$(rate "$PACED")" -v pacedp99="$(p99 "$PACED")" \
    -v batch="$(rate "$BATCHED")" -v per="$BATCH" -v tps="$TPS" 'BEGIN {
  printf "floor (pgbench, one event a transaction): %.0f tps\n", tps
  printf "POST /v1/events flat out: %.0f events/s = %.2fx the floor, p99 %s\n", flat, flat / tps, flatp99
  printf "POST /v1/events paced:    %.0f events/s = %.2fx the floor, p99 %s\n", paced, paced / tps, pacedp99
  if (batch != "") printf "POST /v1/events/batch:    %.0f events/s = %.2fx the floor (%d events a request)\n", batch * per, batch * per / tps, per
}'
# CPU per event (service + its database backends) and what two cores would sustain at that cost
# (a loaded machine inflates the cost too, so this is a floor on the capacity, not a ceiling)
awk -v a="$CPU0 $N0 $CPU1 $N1" -v b="${CPU2:-0 0} ${N2:-0} ${CPU3:-0 0} ${N3:-0}" '
function show(label, x,   f, n, s, d) {
  split(x, f, " "); n = f[6] - f[3]; if (n <= 0) return
  s = (f[4] - f[1]) * 1000 / n; d = (f[5] - f[2]) * 1000 / n
  printf "CPU per event, %s: service %.2f ms + database %.2f ms -> %.0f events/s if 2 cores did only this\n", label, s, d, 2000 / (s + d)
}
BEGIN { show("POST /v1/events flat out", a); show("POST /v1/events/batch   ", b) }'
echo "== rows"
psql -tA "$DBURL" -c "select 'events ' || count(*) from events" -c "select 'commissions ' || count(*) from commissions" \
  -c "select 'non-accrued answers (should be 0): ' || count(*) from events e where not exists (select 1 from attributions a where a.event_id = e.id)"
kill $SERVICE 2>/dev/null || true; wait $SERVICE 2>/dev/null || true
psql -q "$PGURL" -c "drop database if exists $DB" >/dev/null
