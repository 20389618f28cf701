#!/usr/bin/env bash
# Starts a throwaway PostgreSQL server for the server package's tests, on loopback only, and
# exports FOLLOWUP_TEST_DATABASE_URL. Idempotent: installs Debian's postgresql package when
# missing, creates the cluster and the database once, and starts the server unless it runs.
# Source it (`. scripts/start-test-postgres.sh`) to get the variable in your shell; run it to
# see the URL. Stop it with scripts/stop-test-postgres.sh.
#
# It also exports FOLLOWUP_TEST_PG_STARTED_PID: the server's pid when this call started it, empty
# when the server was already running (someone else's). `stop-test-postgres.sh
# "$FOLLOWUP_TEST_PG_STARTED_PID"` then stops only what this shell started, so two runs of
# .ci/run on one machine never stop each other's server.
#
# PostgreSQL refuses to run as root, so the cluster belongs to the `postgres` user when run as
# root. Override the location and port with FOLLOWUP_TEST_PG_DIR and FOLLOWUP_TEST_PG_PORT.
set -euo pipefail

followup_pg_dir="${FOLLOWUP_TEST_PG_DIR:-/tmp/followup-pg}"
followup_pg_port="${FOLLOWUP_TEST_PG_PORT:-54329}"
followup_pg_db=followup_test

followup_pg_bin() {
  local found
  found=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  echo "$found"
}

if [ -z "$(followup_pg_bin)" ]; then
  echo "start-test-postgres: installing PostgreSQL from Debian's packages" >&2
  if [ "$(id -u)" -eq 0 ]; then
    apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
  else
    sudo apt-get update -qq >&2
    sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
  fi
fi
followup_pg_bindir="$(followup_pg_bin)"

# Run PostgreSQL's tools as the postgres user when we are root, as ourselves otherwise.
followup_pg_as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

mkdir -p "$followup_pg_dir"
if [ "$(id -u)" -eq 0 ]; then chown postgres:postgres "$followup_pg_dir"; fi

if [ ! -f "$followup_pg_dir/data/PG_VERSION" ]; then
  followup_pg_as_owner "$followup_pg_bindir/initdb" -D "$followup_pg_dir/data" \
    --auth=trust --username=postgres --encoding=UTF8 --no-locale >"$followup_pg_dir/initdb.log"
fi

export FOLLOWUP_TEST_PG_STARTED_PID=
if ! followup_pg_as_owner "$followup_pg_bindir/pg_ctl" -D "$followup_pg_dir/data" status >/dev/null 2>&1; then
  followup_pg_as_owner "$followup_pg_bindir/pg_ctl" -D "$followup_pg_dir/data" \
    -o "-k $followup_pg_dir -c listen_addresses=127.0.0.1 -p $followup_pg_port" \
    -l "$followup_pg_dir/server.log" -w start >&2
  FOLLOWUP_TEST_PG_STARTED_PID=$(head -n 1 "$followup_pg_dir/data/postmaster.pid")
fi

if ! followup_pg_as_owner "$followup_pg_bindir/psql" -h 127.0.0.1 -p "$followup_pg_port" -U postgres \
  -tAc "SELECT 1 FROM pg_database WHERE datname = '$followup_pg_db'" postgres | grep -q 1; then
  followup_pg_as_owner "$followup_pg_bindir/createdb" -h 127.0.0.1 -p "$followup_pg_port" -U postgres "$followup_pg_db"
fi

export FOLLOWUP_TEST_DATABASE_URL="postgres://postgres@127.0.0.1:$followup_pg_port/$followup_pg_db"
echo "FOLLOWUP_TEST_DATABASE_URL=$FOLLOWUP_TEST_DATABASE_URL"
echo "FOLLOWUP_TEST_PG_STARTED_PID=$FOLLOWUP_TEST_PG_STARTED_PID"
unset -f followup_pg_bin followup_pg_as_owner
unset followup_pg_dir followup_pg_port followup_pg_db followup_pg_bindir
