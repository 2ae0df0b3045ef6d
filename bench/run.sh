#!/usr/bin/env bash
# Runs every benchmark in turn (bun run bench). Needs wrk and pgbench (Debian: wrk, postgresql-client)
# and the local PostgreSQL at 127.0.0.1:5432 (or DATABASE_URL / BENCH_DATABASE_URL).
# One at a time: pass names to choose, e.g. `bun run bench redirect events`.
set -euo pipefail
cd "$(dirname "$0")/.."
export DATABASE_URL=${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}
export BENCH_DATABASE_URL=${BENCH_DATABASE_URL:-$DATABASE_URL}
all=(redirect events webhooks payouts dashboard)
chosen=("${@:-${all[@]}}")
for name in "${chosen[@]}"; do
  echo "=================== $name"
  case "$name" in
    redirect) bun bench/redirect.ts ;;
    events) bash bench/events.sh ;;
    webhooks) bun bench/webhooks.ts ;;
    payouts) bun bench/payouts.ts ;;
    dashboard) bun bench/dashboard.ts ;;
    *) echo "unknown benchmark $name (one of: ${all[*]})"; exit 2 ;;
  esac
done
